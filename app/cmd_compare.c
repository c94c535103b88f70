/* xsflow compare: JPEG XS and BPC-PaCo side by side on the same pictures
 * (compare/compare.h does the work; this parses the command line and
 * prints). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "compare.h"
#include "demo_vector.h"
#include "image_io.h"
#include "xs.h"

#define MAX_INPUTS 64

static void usage(FILE *f)
{
    fprintf(f,
            "usage: xsflow compare [IN...] [options]\n"
            "\n"
            "Codes each picture with JPEG XS and BPC-PaCo at each rate, decodes it, and\n"
            "reports the bits spent, PSNR (per component and overall, peak 2^depth-1),\n"
            "SSIM on luma, and encode and decode throughput. IN: .ppm (RGB), .pgm, .y4m\n"
            "or .yuv (with --size) pictures of 8 to 16 bits, first frame; without IN, the\n"
            "built-in set: the demo vector decoded (%s, %dx%d, %d bits, a photograph)\n"
            "and a synthetic 256x192 RGB 8-bit picture.\n"
            "\n"
            "options:\n"
            "  --bpp LIST        rates in bits per pixel and 'lossless' (default\n"
            "                    0.5,1,2,3,4,6,8,lossless)\n"
            "  --codecs LIST     xs, bpc, or single variants: xs-default, xs-quality,\n"
            "                    bpc-1pass, bpc-2pass, bpc-3pass (default: all five)\n"
            "  --gpu             the CUDA codecs: throughput of the kernels alone and with the\n"
            "                    PCIe transfers; each GPU-decoded picture is checked against\n"
            "                    the C reference decoder (the default where a GPU is usable)\n"
            "  --cpu             the C reference codecs, one thread\n"
            "  --time-ms MS      repeat each timed call for at least MS ms, report the median\n"
            "                    (default 200; 0: one run)\n"
            "  --csv OUT.csv     one row per measurement ('-': standard output)\n"
            "  --plot DIR        PSNR-over-bpp and throughput-over-bpp plots per picture, SVG\n"
            "                    and PNG, drawn by gnuplot (with its script and data)\n"
            "  --gnuplot PROG    the gnuplot to run (default: gnuplot from PATH); 'none':\n"
            "                    write the data and scripts only (gnuplot NAME.gp draws them)\n"
            "  --size WxH, --sampling 444|422|420|mono, --depth D   the layout of .yuv input\n"
            "  --codec-help      what each codec variant is\n"
            "  -v, --progress    a line on standard error as each measurement ends\n"
            "  -q, --quiet       no table on standard output\n",
            demo_vector_name, demo_vector_width, demo_vector_height, demo_vector_depth);
}

typedef struct compare_args {
    const char *in[MAX_INPUTS];
    int nin;
    double rates[64];
    size_t nrates;
    unsigned variants;
    int gpu; /* -1 auto */
    double time_ms;
    const char *csv, *plot, *gnuplot, *sampling;
    long width, height, depth;
    int progress, quiet;
} compare_args;

static int parse_args(int argc, char **argv, compare_args *a)
{
    memset(a, 0, sizeof *a);
    a->gpu = -1;
    a->time_ms = 200;
    a->sampling = "444";
    a->depth = 8;
    xsf_error err;
    xsf_error_clear(&err);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(arg, "--codec-help")) {
            for (int k = 0; k < CMP_VARIANTS; k++)
                printf("%s-%s: %s\n", cmp_variant_codec((cmp_variant)k),
                       cmp_variant_name((cmp_variant)k), cmp_variant_describe((cmp_variant)k));
            return 1;
        } else if (!strcmp(arg, "--bpp")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (cmp_parse_rates(v, a->rates, 64, &a->nrates, &err)) {
                cli_error(arg, "%s", err.msg);
                return 2;
            }
        } else if (!strcmp(arg, "--codecs") || !strcmp(arg, "--codec")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (cmp_parse_variants(v, &a->variants, &err)) {
                cli_error(arg, "%s", err.msg);
                return 2;
            }
        } else if (!strcmp(arg, "--gpu")) {
            a->gpu = 1;
        } else if (!strcmp(arg, "--cpu")) {
            a->gpu = 0;
        } else if (!strcmp(arg, "--time-ms")) {
            long ms;
            if (!(v = cli_option_value(argc, argv, &i)) || cli_parse_long(v, 0, 3600000, &ms)) {
                cli_error(arg, "needs milliseconds, 0..3600000");
                return 2;
            }
            a->time_ms = (double)ms;
        } else if (!strcmp(arg, "--csv")) {
            if (!(a->csv = cli_option_value(argc, argv, &i)))
                return 2;
        } else if (!strcmp(arg, "--plot")) {
            if (!(a->plot = cli_option_value(argc, argv, &i)))
                return 2;
        } else if (!strcmp(arg, "--gnuplot")) {
            if (!(a->gnuplot = cli_option_value(argc, argv, &i)))
                return 2;
        } else if (!strcmp(arg, "--size")) {
            if (!(v = cli_option_value(argc, argv, &i)) || cli_parse_size(v, &a->width, &a->height)) {
                cli_error(arg, "needs WxH");
                return 2;
            }
        } else if (!strcmp(arg, "--sampling")) {
            if (!(a->sampling = cli_option_value(argc, argv, &i)))
                return 2;
        } else if (!strcmp(arg, "--depth")) {
            if (!(v = cli_option_value(argc, argv, &i)) || cli_parse_long(v, 1, 16, &a->depth)) {
                cli_error(arg, "needs 1..16");
                return 2;
            }
        } else if (!strcmp(arg, "-v") || !strcmp(arg, "--progress")) {
            a->progress = 1;
        } else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
            a->quiet = 1;
        } else if (arg[0] == '-' && arg[1]) {
            cli_error(arg, "unknown option of 'xsflow compare' (see --help)");
            return 2;
        } else if (a->nin == MAX_INPUTS) {
            cli_error(arg, "at most %d pictures", MAX_INPUTS);
            return 2;
        } else {
            a->in[a->nin++] = arg;
        }
    }
    return 0;
}

static void progress(void *ctx, const cmp_row *r)
{
    (void)ctx;
    char rate[32];
    if (r->bpp_target > 0)
        snprintf(rate, sizeof rate, "%g bpp", r->bpp_target);
    else
        snprintf(rate, sizeof rate, "lossless");
    if (!r->coded)
        fprintf(stderr, "xsflow compare: %s %s-%s %s: not coded: %s\n", r->picture,
                cmp_variant_codec(r->variant), cmp_variant_name(r->variant), rate, r->note);
    else
        fprintf(stderr,
                "xsflow compare: %s %s-%s %s: %.3f bpp, %.2f dB, %s: encode %.1f fps, decode %.1f "
                "fps\n",
                r->picture, cmp_variant_codec(r->variant), cmp_variant_name(r->variant), rate,
                r->bpp, r->psnr_all, cmp_timing_name(r->timing), r->enc_fps, r->dec_fps);
}

/* The first frame of a picture file into an owned copy. */
static int read_picture(const compare_args *a, const char *path, xsf_picture *pic, int *rgb)
{
    xsf_error err;
    xsf_error_clear(&err);
    const imgio_format fmt = imgio_format_from_path(path);
    if (fmt == IMGIO_FORMAT_NONE) {
        cli_error(path, "unknown picture format: name it .ppm, .pgm, .y4m or .yuv");
        return 2;
    }
    imgio_raw_layout raw;
    if (fmt == IMGIO_FORMAT_YUV) {
        if (!a->width) {
            cli_error(path, "a .yuv input needs --size WxH (and --sampling, --depth)");
            return 2;
        }
        if (imgio_raw_layout_make(&raw, a->sampling, (int)a->width, (int)a->height, (int)a->depth,
                                  &err)) {
            cli_error("--sampling", "%s", err.msg);
            return 2;
        }
    }
    imgio_reader *rd = NULL;
    if (imgio_reader_open(&rd, path, fmt, fmt == IMGIO_FORMAT_YUV ? &raw : NULL, &err)) {
        cli_error(path, "%s", err.msg);
        return 1;
    }
    const xsf_picture *frame = NULL;
    int status = 0;
    if (imgio_read(rd, &frame, &err)) {
        cli_error(path, "%s", err.msg);
        status = 1;
    } else if (!frame) {
        cli_error(path, "no picture in the file");
        status = 1;
    } else if (cmp_picture_copy(pic, frame, &err)) {
        cli_error(path, "%s", err.msg);
        status = 1;
    }
    imgio_reader_close(rd);
    *rgb = fmt == IMGIO_FORMAT_PPM;
    return status;
}

/* The demo vector decoded by the C reference decoder. */
static int demo_picture(xsf_picture *pic)
{
    xs_decoder *dec = NULL;
    const xsf_picture *img;
    size_t used;
    int status = 1;
    if (xs_decoder_create(&dec) == XSF_OK &&
        xs_decode(dec, demo_vector_data, demo_vector_size, &used, &img) == XSF_OK) {
        xsf_error err;
        status = cmp_picture_copy(pic, img, &err) != XSF_OK;
    }
    if (status)
        cli_error(demo_vector_name, "cannot decode the built-in vector");
    xs_decoder_destroy(dec);
    return status;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int cmd_compare(int argc, char **argv)
{
    compare_args a;
    int r = parse_args(argc, argv, &a);
    if (r)
        return r == 1 ? 0 : 2;
    if (a.gpu < 0) {
        a.gpu = cmp_gpu_available() == XSF_OK;
        if (!a.gpu)
            fprintf(
                stderr,
                "xsflow compare: no usable GPU (or no CUDA kernels in this build): comparing the C "
                "references (--cpu)\n");
    } else if (a.gpu && cmp_gpu_available() != XSF_OK) {
        cli_error(
            "--gpu",
            "no usable GPU (no device, or a build without CUDA kernels); --cpu compares the C "
            "references");
        return 1;
    }
    cmp_options opt = {
        .rates = a.nrates ? a.rates : NULL,
        .nrates = a.nrates,
        .variants = a.variants,
        .path = a.gpu ? CMP_PATH_GPU : CMP_PATH_CPU,
        .time_ms = a.time_ms,
        .progress = a.progress ? progress : NULL,
    };
    xsf_error err;
    xsf_error_clear(&err);
    cmp_session *s = NULL;
    if (cmp_session_create(&s, &opt, &err)) {
        cli_error("compare", "%s", err.msg);
        return 1;
    }
    int status = 0;
    const int builtin = a.nin == 0;
    const int count = builtin ? 2 : a.nin;
    for (int i = 0; i < count && !status; i++) {
        xsf_picture pic;
        xsf_picture_init(&pic);
        int rgb = 0;
        const char *name;
        if (builtin && i == 0) {
            name = demo_vector_name;
            status = demo_picture(&pic);
        } else if (builtin) {
            name = "synthetic-256x192-rgb8";
            rgb = 1;
            if (cmp_synthetic_picture(&pic, 256, 192, 3, 8, &err)) {
                cli_error(name, "%s", err.msg);
                status = 1;
            }
        } else {
            name = base_name(a.in[i]);
            status = read_picture(&a, a.in[i], &pic, &rgb);
        }
        if (status)
            break;
        if (cmp_session_add_picture(s, name, &pic, rgb) != XSF_OK) {
            cli_error("compare", "%s", cmp_session_error(s));
            status = 1;
        }
        cmp_picture_free(&pic);
    }
    if (!a.quiet && cmp_session_rows(s)) {
        cmp_write_table(s, stdout);
        printf("\nDWT lvls: horizontal/vertical levels; q: BPC-PaCo 9/7 step (8-bit units); "
               "kernels: data "
               "already on the GPU\n(BPC-PaCo's codestream still crosses PCIe); transfers: pinned "
               "host "
               "memory, PCIe included.\n");
    }
    if (a.csv && cmp_session_rows(s)) {
        FILE *f = strcmp(a.csv, "-") ? fopen(a.csv, "w") : stdout;
        if (!f || cmp_write_csv(s, f) != XSF_OK || (f != stdout && fclose(f))) {
            cli_error(a.csv, "%s", strerror(errno));
            status = 1;
        }
    }
    if (a.plot && cmp_session_rows(s) && cmp_write_plots(s, a.plot, a.gnuplot, &err) != XSF_OK) {
        cli_error("--plot", "%s", err.msg);
        status = 1;
    }
    cmp_session_destroy(s);
    return status;
}
