/* xsflow decode: a file of codestreams (.jxs, .bpc: the registry's codecs,
 * found by probing its first bytes) to .yuv, .y4m, .ppm or .pgm, through the
 * pipeline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "image_io.h"
#include "pipeline.h"
#include "xsf_clock.h"
#include "xsf_codecs.h"

static const char about[] =
    "Decodes the codestreams of IN (one frame each, one after the other): JPEG XS\n"
    "(.jxs) or BPC-PaCo (.bpc), whichever the file's first bytes are.\n"
    "OUT's extension picks the format:\n"
    "  .yuv  planar, components in codestream order, chroma at its subsampled size,\n"
    "        8 bits as one byte, deeper as two bytes little-endian (the layout that\n"
    "        vectors/xs/MANIFEST.tsv's MD5s are taken over)\n"
    "  .y4m  YUV4MPEG2: 1 or 3 components, 8, 9, 10, 12, 14 or 16 bits (C422p10...)\n"
    "  .ppm  RGB, 16-bit big-endian above 8 bits; 4:2:2 and 4:2:0 chroma is upsampled\n"
    "        by sample replication, then converted with --colour\n"
    "  .pgm  the first component (luma) only\n"
    "With several frames, .ppm and .pgm get one file per frame, numbered from 0:\n"
    "OUT-0000.ppm, OUT-0001.ppm... OUT '-' is standard output (needs --format).\n"
    "Frames go through the pipeline: read, upload, decode and download of different\n"
    "frames overlap on several decoder contexts (GPU) or threads (CPU); a writer thread\n"
    "writes them in order. A frame the decoder refuses is reported and skipped; a\n"
    "codestream whose structure does not parse ends the run (earlier frames are written).\n";

typedef struct decode_args {
    const char *in, *out, *tables;
    int format; /* imgio_format */
    int frames;
    xsf_colour colour;
    xsf_rate fps;
    int md5, quiet, interlaced;
    pl_config pl;
} decode_args;

static const int formats[] = {IMGIO_FORMAT_YUV, IMGIO_FORMAT_Y4M, IMGIO_FORMAT_PPM, IMGIO_FORMAT_PGM};

/* 0: parsed; 1: help printed; 2: usage error (already reported). */
static int parse_args(int argc, char **argv, decode_args *a)
{
    memset(a, 0, sizeof *a);
    a->frames = -1;
    const cli_option options[] = {
        CLI_OPT("output", 'o', CLI_STRING, &a->out, "OUT", "output file"),
        CLI_OPT("format", 0, CLI_CHOICE, &a->format, "F", "yuv, y4m, ppm or pgm (default: OUT's extension)",
                .choices = "yuv|y4m|ppm|pgm", .values = formats),
        CLI_OPT("frames", 0, CLI_INT, &a->frames, "N", "decode the first N frames only", .lo = 1, .hi = 1 << 30),
        CLI_OPT("cpu", 0, CLI_SET, &a->pl.engine, NULL, "decode with the C reference decoder",
                .value = PL_ENGINE_CPU),
        CLI_OPT("gpu", 0, CLI_SET, &a->pl.engine, NULL, "decode on the GPU (the default where a GPU is usable)",
                .value = PL_ENGINE_GPU),
        CLI_OPT("gpus", 0, CLI_INTS, a->pl.gpus, "LIST", "GPUs to use, e.g. 0,1 (default: all visible)", .lo = 0,
                .hi = 255, .max_items = PL_MAX_GPUS, .count = &a->pl.ngpus),
        CLI_OPT("contexts", 0, CLI_INT, &a->pl.contexts_per_gpu, "N", "decoder contexts per GPU (default 3)",
                .lo = 1, .hi = 256),
        CLI_OPT("threads", 0, CLI_INT, &a->pl.cpu_threads, "N", "CPU decoder threads (default: one per core)",
                .lo = 1, .hi = 256),
        CLI_OPT("colour", 0, CLI_COLOUR, &a->colour, "C",
                "what PPM's components are: " XSF_COLOUR_WORDS ";\n"
                "default 709 (narrow), or rgb when the codestream uses the\n"
                "reversible colour transform (Cpih=1); play and recv --display\n"
                "read it alike"),
        CLI_OPT("color", 0, CLI_COLOUR, &a->colour, "C", NULL, .flags = CLI_HIDDEN),
        CLI_OPT("fps", 0, CLI_RATE, &a->fps, "RATE",
                "Y4M frame rate: N, N/D, N:D or a decimal (29.97 is 30000/1001);\n"
                "default 25 (codestreams do not carry it)"),
        CLI_OPT("interlaced", 0, CLI_FLAG, &a->interlaced, NULL,
                "the codestreams are fields, two per frame (as `xsflow recv`\n"
                "writes an interlaced stream): weave each pair into a frame,\n"
                "top field first (Y4M: It)"),
        CLI_OPT("md5", 0, CLI_FLAG, &a->md5, NULL, "print the MD5 of the decoded frames in .yuv layout"),
        CLI_OPT("tables", 0, CLI_STRING, &a->tables, "FILE",
                "BPC-PaCo: the table file the codestreams were coded with (if\n"
                "not built in)"),
        CLI_OPT("quiet", 'q', CLI_FLAG, &a->quiet, NULL, "print nothing but errors"),
        CLI_TABLE_END};
    const cli_command cmd = {.name = "decode", .synopsis = "IN -o OUT [options]", .about = about,
                             .options = options, .input = &a->in};
    const int r = cli_parse(&cmd, argc, argv);
    if (r)
        return r;
    if (!a->in) {
        cli_usage(&cmd, stderr);
        return 2;
    }
    if (!a->out && !a->md5) {
        cli_error(a->in, "no output: give -o OUT (or --md5)");
        return 2;
    }
    if (a->out && a->format == IMGIO_FORMAT_NONE) {
        a->format = imgio_format_from_path(a->out);
        if (a->format == IMGIO_FORMAT_NONE) {
            cli_error(a->out, "unknown output format: name it .yuv, .y4m, .ppm or .pgm, or give "
                              "--format");
            return 2;
        }
    }
    return 0;
}

/* The codestreams from the start of data, by their structure alone, up to `max`. */
static unsigned long count_frames(const xsf_codec *codec, const uint8_t *data, size_t len, unsigned long max)
{
    unsigned long n = 0;
    size_t off = 0, bytes;
    xsf_error err;
    while (off < len && n < max) {
        xsf_error_clear(&err);
        if (codec->codestream_size(data + off, len - off, &bytes, &err) != XSF_OK || !bytes)
            break;
        off += bytes;
        n++;
    }
    return n;
}

/* The codec's settings from --tables (NULL: none); 0, or 1 after an error said. */
static int codec_params(const decode_args *a, const xsf_codec *codec, void **params)
{
    *params = NULL;
    if (!a->tables)
        return 0;
    if (!codec->params_set) {
        cli_error("--tables", "%s codestreams take no tables", codec->long_name);
        return 1;
    }
    uint8_t *data = NULL;
    size_t len = 0;
    xsf_error err;
    xsf_error_clear(&err);
    if (imgio_read_file(a->tables, &data, &len, &err) != XSF_OK ||
        codec->params_set(params, "tables", data, len, &err) != XSF_OK) {
        free(data);
        cli_error(a->tables, "%s", err.msg);
        return 1;
    }
    free(data);
    return 0;
}

int cmd_decode(int argc, char **argv)
{
    decode_args a;
    int r = parse_args(argc, argv, &a);
    if (r)
        return r == 1 ? 0 : 2;

    const uint64_t t_start = xsf_clock_mono_ns();
    xsf_error err;
    xsf_error_clear(&err);
    imgio_mapped in;
    if (imgio_map_file(a.in, &in, &err) != XSF_OK) {
        cli_error(a.in, "%s", err.msg);
        return 1;
    }
    const uint64_t max_frames = a.frames > 0 ? (uint64_t)a.frames : 0;
    /* The codec the file's first bytes name; a file no codec claims is read as JPEG XS's
     * (the default), whose reader then says what is wrong. */
    const xsf_codec *codec = xsf_codec_probe(in.data, in.len);
    if (!codec)
        codec = xsf_codec_find("jpeg-xs");
    void *params = NULL;
    if (codec_params(&a, codec, &params)) {
        imgio_unmap_file(&in);
        return 1;
    }
    pl_pipeline *p;
    if (pl_create(&p, &a.pl, &err) != XSF_OK) {
        cli_error(a.in, "%s", err.msg);
        if (params)
            codec->params_free(params);
        imgio_unmap_file(&in);
        return 1;
    }
    pl_writer_options wo;
    memset(&wo, 0, sizeof wo);
    wo.kind = PL_WRITE_PICTURE;
    wo.image.format = (imgio_format)a.format;
    wo.image.colour = a.colour;
    wo.image.fps_num = a.fps.num;
    wo.image.fps_den = a.fps.den;
    wo.md5 = a.md5;
    /* Frame files only when there is more than one frame to write. */
    if (a.format == IMGIO_FORMAT_PPM || a.format == IMGIO_FORMAT_PGM)
        wo.image.frame_files = count_frames(codec, in.data, in.len, max_frames == 1 ? 1 : 2) > 1;
    pl_writer *w = NULL;
    int sid = -1;
    int status = 0;
    xsf_status st = pl_writer_open(&w, a.out, &wo, &err);
    if (st == XSF_OK) {
        pl_stream_config sc = {.name = a.in,
                               .backpressure = PL_BLOCK,
                               .sink = pl_writer_sink(w),
                               .codec = codec->name,
                               .codec_params = params};
        st = pl_stream_add(p, &sc, &sid, &err);
    }
    if (st != XSF_OK) {
        cli_error(a.out ? a.out : a.in, "%s", err.msg);
        pl_writer_close(w, &err);
        pl_destroy(p);
        if (params)
            codec->params_free(params);
        imgio_unmap_file(&in);
        return 1;
    }
    uint64_t read_frames = 0;
    const uint64_t t0 = xsf_clock_mono_ns(); /* the pipeline is ready */
    xsf_error src_err;
    xsf_error_clear(&src_err);
    const xsf_status src =
        pl_jxs_source_run(p, sid, in.data, in.len, a.interlaced, max_frames, &read_frames, &src_err);
    pl_stream_finish(p, sid);
    pl_stream_stats ss;
    pl_stream_stats_get(p, sid, &ss);
    if (ss.dropped[PL_DROP_DECODE]) {
        cli_error(a.in, "%llu frame%s not decoded, the last: %s",
                  (unsigned long long)ss.dropped[PL_DROP_DECODE],
                  ss.dropped[PL_DROP_DECODE] == 1 ? "" : "s", ss.last_error);
        status = 1;
    }
    if (src != XSF_OK) {
        cli_error(a.in, "%s", src_err.msg);
        status = 1;
    }
    char md5hex[33] = "";
    if (a.md5)
        pl_writer_md5(w, md5hex);
    const uint64_t frames = pl_writer_frames(w), bytes = pl_writer_bytes(w);
    xsf_picture first;
    pl_writer_shape(w, &first);
    char last[4096] = "";
    snprintf(last, sizeof last, "%s", a.out ? pl_writer_last_path(w) : "");
    if (pl_writer_close(w, &err) != XSF_OK) {
        cli_error(a.out, "%s", err.msg);
        status = 1;
    }
    const double seconds = (double)(xsf_clock_mono_ns() - t0) / 1e9;
    const char *engine = pl_describe(p);
    char engine_copy[512];
    snprintf(engine_copy, sizeof engine_copy, "%s", engine);
    pl_destroy(p);
    if (params)
        codec->params_free(params);
    imgio_unmap_file(&in);
    if (status)
        return status; /* the frames before the error stay written */

    FILE *info = a.out && !strcmp(a.out, "-") ? stderr : stdout;
    if (a.md5 && !status)
        fprintf(info, "%s  %s (%llu frame%s, %llu bytes in .yuv layout)\n", md5hex, a.in,
                (unsigned long long)frames, frames == 1 ? "" : "s", (unsigned long long)bytes);
    if (!a.quiet && a.out) {
        fprintf(info,
                "decoded %llu frame%s (%dx%d, %d component%s, %s, %d bits) from %s into %s: %llu "
                "bytes in %.3f s, %.1f frames/s (%s; start %.0f ms, steady %.1f frames/s)\n",
                (unsigned long long)frames, frames == 1 ? "" : "s", first.fmt.width[0],
                first.fmt.height[0], first.fmt.nc, first.fmt.nc == 1 ? "" : "s",
                first.fmt.nc ? imgio_picture_sampling(&first) : "-", first.fmt.depth[0], a.in,
                strcmp(a.out, "-") ? last : "standard output", (unsigned long long)bytes, seconds,
                seconds > 0 ? (double)frames / seconds : 0, engine_copy,
                (double)(t0 - t_start) / 1e6, ss.fps);
    }
    return status;
}
