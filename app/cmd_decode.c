/* xsflow decode: a .jxs file to .yuv, .y4m, .ppm or .pgm. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "image_io.h"
#include "jxs_file.h"
#include "md5.h"

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
               "A decoding error ends the run; the frames before it stay written.\n"
               "\n"
               "options:\n"
               "  -o, --output OUT  output file\n"
               "  --format F        yuv, y4m, ppm or pgm (default: OUT's extension)\n"
               "  --frames N        decode the first N frames only\n"
               "  --cpu             decode with the C reference decoder\n"
               "  --gpu             decode on the GPU (the default where a GPU is usable)\n"
               "  --colour C        what PPM's components are: bt709 (default), bt601,\n"
               "                    bt709-full, bt601-full, rgb, gbr; rgb by default when the\n"
               "                    codestream uses the reversible colour transform (Cpih=1)\n"
               "  --fps N[:D]       Y4M frame rate (default 25:1; codestreams do not carry it)\n"
               "  --interlaced      the codestreams are fields, two per frame (as `xsflow recv`\n"
               "                    writes an interlaced stream): weave each pair into a frame,\n"
               "                    the first field on the top line (.y4m: It)\n"
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

    uint8_t *data;
    size_t len;
    xsf_error err;
    xsf_error_clear(&err);
    if (imgio_read_file(a.in, &data, &len, &err) != XSF_OK) {
        cli_error(a.in, "%s", err.msg);
        return 1;
    }
    const unsigned long max_frames = a.frames > 0 ? (unsigned long)a.frames : (unsigned long)-1;
    jxs_file jf;
    if (jxs_file_init(&jf, data, len, a.engine) != XSF_OK) {
        cli_error(a.in, "%s", jxs_file_error(&jf));
        free(data);
        return 1;
    }
    imgio_writer *w = NULL;
    app_md5 md5;
    app_md5_init(&md5);
    uint64_t md5_bytes = 0;
    imgio_picture first; /* the first frame's shape, for the summary */
    memset(&first, 0, sizeof first);
    char first_path[4096] = "";
    int status = 0;
    unsigned long frames = 0;
    const unsigned long per_frame = a.interlaced ? 2 : 1; /* codestreams */

    while (frames < max_frames && (frames == 0 || !jxs_file_done(&jf))) {
        imgio_picture pic;
        const xs_header *hdr;
        if ((a.interlaced ? jxs_file_decode_fields(&jf, &pic, &hdr)
                          : jxs_file_decode(&jf, &pic, &hdr)) != XSF_OK) {
            cli_error(a.in, "%s", jxs_file_error(&jf));
            status = 1;
            break;
        }
        frames++;
        if (frames == 1) {
            first = pic;
            if (a.out) {
                imgio_write_options opt = {
                    .format = a.format,
                    .colour = a.colour_given
                                  ? a.colour
                                  : (hdr->cpih == 1 ? IMGIO_COLOUR_RGB : IMGIO_COLOUR_BT709),
                    .fps_num = a.fps_num,
                    .fps_den = a.fps_den,
                    .scan = a.interlaced ? IMGIO_SCAN_TOP_FIRST : IMGIO_SCAN_PROGRESSIVE,
                };
                /* Frame files only when there is more than one frame to write. */
                if (a.format == IMGIO_FORMAT_PPM || a.format == IMGIO_FORMAT_PGM)
                    opt.frame_files =
                        jxs_count_frames(data, len, (max_frames < 2 ? 1u : 2u) * per_frame) >
                        per_frame;
                if (imgio_writer_open(&w, a.out, &opt, &err) != XSF_OK) {
                    cli_error(a.out, "%s", err.msg);
                    status = 1;
                    break;
                }
            }
        }
        if (w && imgio_write(w, &pic, &err) != XSF_OK) {
            cli_error(a.out, "%s", err.msg);
            status = 1;
            break;
        }
        if (w && frames == 1)
            snprintf(first_path, sizeof first_path, "%s", imgio_writer_last_path(w));
        if (a.md5) {
            imgio_yuv_serialize(&pic, app_md5_sink, &md5);
            md5_bytes += imgio_yuv_frame_bytes(&pic);
        }
    }
    char last[4096] = "";
    if (w)
        snprintf(last, sizeof last, "%s", imgio_writer_last_path(w));
    const uint64_t bytes = w ? imgio_writer_bytes(w) : 0;
    if (imgio_writer_close(w, &err) != XSF_OK && status == 0) {
        cli_error(a.out, "%s", err.msg);
        status = 1;
    }
    jxs_file_free(&jf);
    free(data);
    if (status)
        return status;

    FILE *info = a.out && !strcmp(a.out, "-") ? stderr : stdout;
    if (a.md5) {
        char hex[33];
        app_md5_final_hex(&md5, hex);
        fprintf(info, "%s  %s (%lu frame%s, %llu bytes in .yuv layout)\n", hex, a.in, frames,
                frames == 1 ? "" : "s", (unsigned long long)md5_bytes);
    }
    if (!a.quiet && a.out) {
        char where[8300];
        if (strcmp(first_path, last))
            snprintf(where, sizeof where, "%s .. %s", first_path, last);
        else
            snprintf(where, sizeof where, "%s", strcmp(a.out, "-") ? a.out : "standard output");
        fprintf(info,
                "decoded %lu frame%s (%dx%d, %d component%s, %s, %d bits) from %s into %s: %llu "
                "bytes\n",
                frames, frames == 1 ? "" : "s", first.width[0], first.height[0], first.nc,
                first.nc == 1 ? "" : "s", imgio_picture_sampling(&first), first.depth[0], a.in,
                where, (unsigned long long)bytes);
    }
    return 0;
}
