/* xsflow decode: a .jxs file to .yuv, .y4m, .ppm or .pgm. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "image_io.h"
#include "jxs_file.h"
#include "pipeline.h"

/* BPC-PaCo input goes to bpc_cli_decode (app/cmd_bpc.c, declared in bpc/bpc.h). */
#if defined(__has_include)
#if __has_include("bpc.h")
#include "bpc.h"
#define XSF_DECODE_HAVE_BPC 1
#endif
#endif

static void usage(FILE *f)
{
    fprintf(f, "usage: xsflow decode IN.jxs -o OUT [options]\n"
               "\n"
               "Decodes the JPEG XS codestreams of IN.jxs (one frame each, one after the other).\n"
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
               "codestream whose structure does not parse ends the run (earlier frames are written).\n"
               "\n"
               "options:\n"
               "  -o, --output OUT  output file\n"
               "  --format F        yuv, y4m, ppm or pgm (default: OUT's extension)\n"
               "  --frames N        decode the first N frames only\n"
               "  --cpu             decode with the C reference decoder\n"
               "  --gpu             decode on the GPU (the default where a GPU is usable)\n"
               "  --gpus LIST       GPUs to use, e.g. 0,1 (default: all visible)\n"
               "  --contexts N      decoder contexts per GPU (default 3)\n"
               "  --threads N       CPU decoder threads (default: one per core)\n"
               "  --colour C        what PPM's components are: bt709 (default), bt601,\n"
               "                    bt709-full, bt601-full, rgb, gbr; rgb by default when the\n"
               "                    codestream uses the reversible colour transform (Cpih=1)\n"
               "  --fps N[:D]       Y4M frame rate (default 25:1; codestreams do not carry it)\n"
               "  --interlaced      the codestreams are fields, two per frame (as `xsflow recv`\n"
               "                    writes an interlaced stream): weave each pair into a frame,\n"
               "                    top field first (Y4M: It)\n"
               "  --md5             print the MD5 of the decoded frames in .yuv layout\n"
               "  -q, --quiet       print nothing but errors\n");
}

typedef struct decode_args {
    const char *in, *out;
    imgio_format format;
    long frames;
    jxs_engine engine;
    int colour_given;
    imgio_colour colour;
    unsigned fps_num, fps_den;
    int md5, quiet, interlaced;
    pl_config pl;
} decode_args;

static int parse_format(const char *s, imgio_format *f)
{
    static const char *const names[] = {"yuv", "y4m", "ppm", "pgm"};
    static const imgio_format formats[] = {IMGIO_FORMAT_YUV, IMGIO_FORMAT_Y4M, IMGIO_FORMAT_PPM,
                                           IMGIO_FORMAT_PGM};
    for (int i = 0; i < 4; i++) {
        if (!strcmp(s, names[i])) {
            *f = formats[i];
            return 0;
        }
    }
    return -1;
}

static int parse_fps(const char *s, unsigned *num, unsigned *den)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    char *colon = strchr(buf, ':');
    long n, d = 1;
    if (colon)
        *colon = '\0';
    if (cli_parse_long(buf, 1, 1000000, &n) || (colon && cli_parse_long(colon + 1, 1, 1000000, &d)))
        return -1;
    *num = (unsigned)n;
    *den = (unsigned)d;
    return 0;
}

/* 0: parsed; 1: help printed; 2: usage error (already reported). */
static int parse_args(int argc, char **argv, decode_args *a)
{
    memset(a, 0, sizeof *a);
    a->frames = -1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            a->out = v;
        } else if (!strcmp(arg, "--format")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (parse_format(v, &a->format)) {
                cli_error("--format", "'%s' is not one of yuv, y4m, ppm, pgm", v);
                return 2;
            }
        } else if (!strcmp(arg, "--frames")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (cli_parse_long(v, 1, 1L << 30, &a->frames)) {
                cli_error("--frames", "'%s' is not a frame count (1 or more)", v);
                return 2;
            }
        } else if (!strcmp(arg, "--cpu")) {
            a->engine = JXS_ENGINE_CPU;
        } else if (!strcmp(arg, "--gpu")) {
            a->engine = JXS_ENGINE_GPU;
        } else if (!strcmp(arg, "--colour") || !strcmp(arg, "--color")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (imgio_colour_parse(v, &a->colour) != XSF_OK) {
                cli_error(arg, "'%s' is not one of bt709, bt601, bt709-full, bt601-full, rgb, gbr",
                          v);
                return 2;
            }
            a->colour_given = 1;
        } else if (!strcmp(arg, "--fps")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (parse_fps(v, &a->fps_num, &a->fps_den)) {
                cli_error("--fps", "'%s' is not a rate N or N:D", v);
                return 2;
            }
        } else if (!strcmp(arg, "--gpus")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (cli_parse_gpus(v, a->pl.gpus, PL_MAX_GPUS, &a->pl.ngpus)) {
                cli_error("--gpus", "'%s' is not a list of GPU numbers (e.g. 0,1)", v);
                return 2;
            }
        } else if (!strcmp(arg, "--contexts") || !strcmp(arg, "--threads")) {
            long n;
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (cli_parse_long(v, 1, 256, &n)) {
                cli_error(arg, "'%s' is not a count from 1 to 256", v);
                return 2;
            }
            if (!strcmp(arg, "--contexts"))
                a->pl.contexts_per_gpu = (unsigned)n;
            else
                a->pl.cpu_threads = (unsigned)n;
        } else if (!strcmp(arg, "--interlaced")) {
            a->interlaced = 1;
        } else if (!strcmp(arg, "--md5")) {
            a->md5 = 1;
        } else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
            a->quiet = 1;
        } else if (arg[0] == '-' && arg[1]) {
            cli_error(arg, "unknown option of 'xsflow decode' (see --help)");
            return 2;
        } else if (!a->in) {
            a->in = arg;
        } else {
            cli_error(arg, "one input only (see --help)");
            return 2;
        }
    }
    if (!a->in) {
        usage(stderr);
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

int cmd_decode(int argc, char **argv)
{
#ifdef XSF_DECODE_HAVE_BPC
    if (bpc_cli_input_is_bpc(argc, argv))
        return bpc_cli_decode(argc, argv);
#endif
    decode_args a;
    int r = parse_args(argc, argv, &a);
    if (r)
        return r == 1 ? 0 : 2;

    const uint64_t t_start = pl_now_ns();
    xsf_error err;
    xsf_error_clear(&err);
    imgio_mapped in;
    if (imgio_map_file(a.in, &in, &err) != XSF_OK) {
        cli_error(a.in, "%s", err.msg);
        return 1;
    }
    const uint64_t max_frames = a.frames > 0 ? (uint64_t)a.frames : 0;
    a.pl.engine = a.engine == JXS_ENGINE_CPU   ? PL_ENGINE_CPU
                  : a.engine == JXS_ENGINE_GPU ? PL_ENGINE_GPU
                                               : PL_ENGINE_AUTO;
    pl_pipeline *p;
    if (pl_create(&p, &a.pl, &err) != XSF_OK) {
        cli_error(a.in, "%s", err.msg);
        imgio_unmap_file(&in);
        return 1;
    }
    pl_writer_options wo;
    memset(&wo, 0, sizeof wo);
    wo.kind = PL_WRITE_PICTURE;
    wo.image.format = a.format;
    wo.image.colour = a.colour;
    wo.colour_given = a.colour_given;
    wo.image.fps_num = a.fps_num;
    wo.image.fps_den = a.fps_den;
    wo.md5 = a.md5;
    /* Frame files only when there is more than one frame to write. */
    if (a.format == IMGIO_FORMAT_PPM || a.format == IMGIO_FORMAT_PGM)
        wo.image.frame_files = jxs_count_frames(in.data, in.len, max_frames == 1 ? 1 : 2) > 1;
    pl_writer *w = NULL;
    int sid = -1;
    int status = 0;
    xsf_status st = pl_writer_open(&w, a.out, &wo, &err);
    if (st == XSF_OK) {
        pl_stream_config sc = {.name = a.in, .backpressure = PL_BLOCK, .sink = pl_writer_sink(w)};
        st = pl_stream_add(p, &sc, &sid, &err);
    }
    if (st != XSF_OK) {
        cli_error(a.out ? a.out : a.in, "%s", err.msg);
        pl_writer_close(w, &err);
        pl_destroy(p);
        imgio_unmap_file(&in);
        return 1;
    }
    uint64_t read_frames = 0;
    const uint64_t t0 = pl_now_ns(); /* the pipeline is ready */
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
    const double seconds = (double)(pl_now_ns() - t0) / 1e9;
    const char *engine = pl_describe(p);
    char engine_copy[512];
    snprintf(engine_copy, sizeof engine_copy, "%s", engine);
    pl_destroy(p);
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
