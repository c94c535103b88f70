/* xsflow decode: a file of codestreams (.jxs, .bpc: the registry's codecs,
 * found by probing its first bytes) to .yuv, .y4m, .ppm or .pgm, through the
 * pipeline. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "image_io.h"
#include "pipeline.h"
#include "svc_decode.h"
#include "xsf_cli.h"

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
    "--pix-fmt F writes another pixel format, as the decoder writes it (no later pass):\n"
    "  planar16 (as decoded), planar8, v210, pgroup (ST 2110-20 4:2:2 10-bit), p210,\n"
    "  p010, uyvy, nv12, i420, rgba, bgra, rgb48, rgbf32 (R'G'B' with --colour).\n"
    "  .yuv takes every one (its planes packed), .y4m planar16, planar8 and i420, .ppm\n"
    "  planar16, rgb48, rgba and bgra (alpha dropped).\n"
    "With several frames, .ppm and .pgm get one file per frame, numbered from 0:\n"
    "OUT-0000.ppm, OUT-0001.ppm... OUT '-' is standard output (needs --format).\n"
    "Frames go through the pipeline: read, upload, decode and download of different\n"
    "frames overlap on several decoder contexts (GPU) or threads (CPU); a writer thread\n"
    "writes them in order. A frame the decoder refuses is reported and skipped; a\n"
    "codestream whose structure does not parse ends the run. After either the command\n"
    "exits with 1 and removes what it wrote (nothing half-written is left).\n";

typedef struct decode_args {
    const char *in, *out, *tables;
    int format; /* imgio_format */
    int frames;
    xsf_colour colour;
    xsf_rate fps;
    int md5, quiet, interlaced;
    xsf_container pix_fmt;
    pl_config pl;
} decode_args;

static const int formats[] = {IMGIO_FORMAT_YUV, IMGIO_FORMAT_Y4M, IMGIO_FORMAT_PPM,
                              IMGIO_FORMAT_PGM};

/* -1: parsed; else the exit status (0 after --help, 2 after a usage error, reported). */
static int parse_args(int argc, char **argv, decode_args *a)
{
    memset(a, 0, sizeof *a);
    a->frames = -1;
    const cli_option options[] = {
        CLI_OPT("output", 'o', CLI_STRING, &a->out, "OUT", "output file"),
        CLI_OPT("format", 0, CLI_CHOICE, &a->format, "F",
                "yuv, y4m, ppm or pgm (default: OUT's extension)", .choices = "yuv|y4m|ppm|pgm",
                .values = formats),
        CLI_OPT("pix-fmt", 0, CLI_PIX_FMT, &a->pix_fmt, "F",
                "the pixel format written (default planar16, as decoded):\n" XSF_CONTAINER_WORDS),
        CLI_OPT("frames", 0, CLI_INT, &a->frames, "N", "decode the first N frames only", .lo = 1,
                .hi = 1 << 30),
        CLI_OPT("cpu", 0, CLI_SET, &a->pl.engine, NULL, "decode with the C reference decoder",
                .value = PL_ENGINE_CPU),
        CLI_OPT("gpu", 0, CLI_SET, &a->pl.engine, NULL,
                "decode on the GPU only (by default where a GPU is usable, a short\n"
                "file goes to the C decoder on every core, and a longer one starts\n"
                "there while the GPU starts)",
                .value = PL_ENGINE_GPU),
        CLI_OPT("gpus", 0, CLI_INTS, a->pl.gpus, "LIST",
                "the GPU to use: the first of LIST (default 0); a file is one\n"
                "stream, whose frames all go to one GPU",
                .lo = 0, .hi = 255, .max_items = PL_MAX_GPUS, .count = &a->pl.ngpus),
        CLI_OPT("contexts", 0, CLI_INT, &a->pl.contexts_per_gpu, "N",
                "decoder contexts per GPU (default 3)", .lo = 1, .hi = 256),
        CLI_OPT("threads", 0, CLI_INT, &a->pl.cpu_threads, "N",
                "CPU decoder threads (default: one per core)", .lo = 1, .hi = 256),
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
        CLI_OPT("md5", 0, CLI_FLAG, &a->md5, NULL,
                "print the MD5 of the decoded frames in .yuv layout"),
        CLI_OPT("tables", 0, CLI_STRING, &a->tables, "FILE",
                "BPC-PaCo: the table file the codestreams were coded with (if\n"
                "not built in)"),
        CLI_OPT("quiet", 'q', CLI_FLAG, &a->quiet, NULL, "print nothing but errors"),
        CLI_TABLE_END};
    const int r =
        cli_parse_input("decode", "IN -o OUT [options]", about, options, &a->in, argc, argv);
    if (r >= 0)
        return r;
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
    return -1;
}

int cmd_decode(int argc, char **argv)
{
    decode_args a;
    const int r = parse_args(argc, argv, &a);
    if (r >= 0)
        return r;
    const svc_decode_config c = {.in = a.in,
                                 .out = a.out,
                                 .tables = a.tables,
                                 .format = (imgio_format)a.format,
                                 .colour = a.colour,
                                 .fps = a.fps,
                                 .md5 = a.md5,
                                 .interlaced = a.interlaced,
                                 .max_frames = a.frames > 0 ? (uint64_t)a.frames : 0,
                                 .pix_fmt = a.pix_fmt,
                                 .pl = a.pl};
    svc_decode_result res;
    svc_failure f;
    if (svc_decode_file(&c, &res, &f) != XSF_OK) {
        cli_error(f.subject, "%s", f.err.msg);
        return 1;
    }
    int status = 0;
    if (res.not_decoded) {
        cli_error(a.in, "%llu frame%s not decoded, the last: %s",
                  (unsigned long long)res.not_decoded, res.not_decoded == 1 ? "" : "s",
                  res.last_error);
        status = 1;
    }
    if (res.source != XSF_OK) {
        cli_error(a.in, "%s", res.source_err.msg);
        status = 1;
    }
    if (res.close != XSF_OK) {
        cli_error(a.out, "%s", res.close_err.msg);
        status = 1;
    }
    if (status)
        return status; /* the output is removed (svc_decode_result) */

    svc_decode_result_format(a.out && !strcmp(a.out, "-") ? stderr : stdout, &c, &res, a.quiet);
    return 0;
}
