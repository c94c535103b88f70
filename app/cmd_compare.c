/* xsflow compare: JPEG XS and BPC-PaCo side by side on the same pictures,
 * with the peers (SVT-JPEG-XS, OpenJPEG) where installed
 * (compare/include/compare.h does the work; this parses the command line,
 * looks for the peers and prints). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compare.h"
#include "demo_vector.h"
#include "picture_source.h"
#include "xsf_cli.h"
#include "xsf_codecs.h"

#define MAX_INPUTS 64

typedef struct compare_args {
    const char *in[MAX_INPUTS];
    int nin;
    cmp_request r; /* the options */
} compare_args;

static int parse_bpp(void *ctx, const cli_option *o, const char *v)
{
    compare_args *a = ctx;
    xsf_error err;
    xsf_error_clear(&err);
    (void)o;
    if (cmp_parse_rates(v, a->r.rates, CMP_MAX_RATES, &a->r.nrates, &err)) {
        cli_error("--bpp", "%s", err.msg);
        return 2;
    }
    return 0;
}

static int parse_codecs(void *ctx, const cli_option *o, const char *v)
{
    compare_args *a = ctx;
    xsf_error err;
    xsf_error_clear(&err);
    if (cmp_parse_variants(v, &a->r.variants, &err)) {
        cli_error(o->name, "%s", err.msg);
        return 2;
    }
    return 0;
}

static int add_input(void *ctx, const char *arg)
{
    compare_args *a = ctx;
    if (a->nin == MAX_INPUTS) {
        cli_error(arg, "at most %d pictures", MAX_INPUTS);
        return 2;
    }
    a->in[a->nin++] = arg;
    return 0;
}

static int parse_args(int argc, char **argv, compare_args *a)
{
    memset(a, 0, sizeof *a);
    cmp_request_init(&a->r);
    char about[1024];
    snprintf(about, sizeof about,
             "Codes each picture with JPEG XS and BPC-PaCo at each rate, decodes it, and\n"
             "reports the bits spent, PSNR (per component and overall, peak 2^depth-1),\n"
             "SSIM and MS-SSIM on luma, and encode and decode throughput. Beside them,\n"
             "where installed, the peers on every CPU core: SVT-JPEG-XS's encoder\n"
             "(SvtJpegxsEncApp; its streams decoded by xsflow's C decoder) and OpenJPEG's\n"
             "JPEG 2000 (libopenjp2), at the same rates and byte budgets. IN: .ppm (RGB),\n"
             ".pgm, .y4m or .yuv (with --size) pictures of 8 to 16 bits, first frame;\n"
             "without IN, the built-in set: the demo vector decoded (%s, %dx%d, %d bits,\n"
             "a photograph) and a synthetic 256x192 RGB 8-bit picture.\n",
             demo_vector_name, demo_vector_width, demo_vector_height, demo_vector_depth);
    const cli_option options[] = {
        CLI_OPT("bpp", 0, CLI_CALL, NULL, "LIST",
                "rates in bits per pixel and 'lossless' (default\n0.5,1,2,3,4,6,8,lossless)",
                .call = parse_bpp),
        CLI_OPT("codecs", 0, CLI_CALL, NULL, "LIST",
                "xs, bpc, or single variants: xs-default, xs-quality,\n"
                "bpc-1pass, bpc-2pass, bpc-3pass; the peers svt, opj (default:\n"
                "all five and the peers found)",
                .call = parse_codecs),
        CLI_OPT("codec", 0, CLI_CALL, NULL, "LIST", NULL, .call = parse_codecs,
                .flags = CLI_HIDDEN),
        CLI_KNOB_TABLE(cmp_knobs, &a->r), CLI_TABLE_END};
    const cli_command cmd = {.name = "compare",
                             .synopsis = "[IN...] [options]",
                             .about = about,
                             .options = options,
                             .positional = add_input,
                             .ctx = a};
    const int r = cli_parse(&cmd, argc, argv);
    if (!r && strcmp(a->r.peers, "auto") && strcmp(a->r.peers, "none")) {
        cli_error("--peers", "'%s': expected auto or none", a->r.peers);
        return 2;
    }
    if (r || !a->r.codec_help)
        return r;
    for (int k = 0; k < CMP_VARIANTS; k++)
        printf("%s-%s: %s\n", cmp_variant_codec((cmp_variant)k), cmp_variant_name((cmp_variant)k),
               cmp_variant_describe((cmp_variant)k));
    return 1;
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

static int add(cmp_session *s, const char *name, const xsf_picture *pic, int rgb)
{
    if (cmp_session_add_picture(s, name, pic, rgb) == XSF_OK)
        return 0;
    cli_error("compare", "%s", cmp_session_error(s));
    return 1;
}

/* The kind of an input file and, for .yuv, its layout from the options:
 * 0, or 2 with a message (a usage error). */
static int input_layout(const compare_args *a, const char *path, imgio_raw_layout *raw)
{
    xsf_error err;
    xsf_error_clear(&err);
    imgio_format fmt;
    memset(raw, 0, sizeof *raw);
    if (imgio_source_kind_of(path, &fmt) == IMGIO_SOURCE_NONE) {
        cli_error(path, "unknown picture format: name it .ppm, .pgm, .y4m or .yuv");
        return 2;
    }
    if (fmt == IMGIO_FORMAT_YUV && !a->r.size[0]) {
        cli_error(path, "a .yuv input needs --size WxH (and --sampling, --depth)");
        return 2;
    }
    if (fmt == IMGIO_FORMAT_YUV &&
        imgio_raw_layout_make(raw, a->r.sampling, a->r.size[0], a->r.size[1], a->r.depth, &err)) {
        cli_error("--sampling", "%s", err.msg);
        return 2;
    }
    return 0;
}

/* The first picture of a file into the session. */
static int add_file(const compare_args *a, cmp_session *s, const char *path)
{
    xsf_error err;
    xsf_error_clear(&err);
    imgio_raw_layout raw;
    const int usage = input_layout(a, path, &raw);
    if (usage)
        return usage;
    imgio_source *src = NULL;
    const xsf_picture *pic = NULL;
    if (imgio_source_open(&src, path, &raw, &err) == XSF_OK &&
        imgio_source_next(src, &pic, &err) == XSF_OK && !pic)
        xsf_error_set(&err, XSF_ERR_INVALID, "no picture in the file");
    const char *slash = strrchr(path, '/');
    int status = 1;
    if (!pic)
        cli_error(path, "%s", err.msg);
    else
        status = add(s, slash ? slash + 1 : path, pic, imgio_source_rgb(src));
    imgio_source_close(src);
    return status;
}

/* Picture i of the built-in set (the demo vector decoded by its codec's C
 * decoder, a synthetic picture) into the session. */
static int add_builtin(cmp_session *s, int i)
{
    xsf_error err;
    xsf_error_clear(&err);
    xsf_picture pic;
    const char *name = i ? "synthetic-256x192-rgb8" : demo_vector_name;
    if (i ? cmp_synthetic_picture(&pic, 256, 192, 3, 8, &err) != XSF_OK
          : xsf_codec_decode_picture(demo_vector_data, demo_vector_size, &pic, &err) != XSF_OK) {
        cli_error(name, "%s", i ? err.msg : "cannot decode the built-in vector");
        return 1;
    }
    const int status = add(s, name, &pic, i);
    cmp_picture_free(&pic);
    return status;
}

/* The table, the CSV file and the plots the command line asks for. */
static int write_outputs(const compare_args *a, const cmp_session *s)
{
    int status = 0;
    if (!a->r.quiet) {
        cmp_write_table(s, stdout);
        printf("\nDWT lvls: horizontal/vertical levels; q: BPC-PaCo 9/7 step (8-bit units); "
               "kernels: data "
               "already on the GPU\n(BPC-PaCo's codestream still crosses PCIe); transfers: pinned "
               "host "
               "memory, PCIe included.\n");
    }
    if (a->r.csv) {
        FILE *f = strcmp(a->r.csv, "-") ? fopen(a->r.csv, "w") : stdout;
        if (!f || cmp_write_csv(s, f) != XSF_OK || (f != stdout && fclose(f))) {
            cli_error(a->r.csv, "%s", strerror(errno));
            status = 1;
        }
    }
    xsf_error err;
    xsf_error_clear(&err);
    if (a->r.plot && cmp_write_plots(s, a->r.plot, a->r.gnuplot, &err) != XSF_OK) {
        cli_error("--plot", "%s", err.msg);
        status = 1;
    }
    return status;
}

/* The peers to run: those --codecs names, or without --codecs every peer
 * with --peers auto; each looked for, one line for each that is missing (its
 * rows are left out). Nonzero when no codec is left. */
static int select_peers(const compare_args *a, cmp_options *opt)
{
    unsigned want = a->r.variants ? a->r.variants & CMP_PEER_VARIANTS : CMP_PEER_VARIANTS;
    unsigned variants = a->r.variants ? a->r.variants & CMP_OWN_VARIANTS : CMP_OWN_VARIANTS;
    if (!strcmp(a->r.peers, "none"))
        want = 0;
    for (int v = 0; v < CMP_VARIANTS; v++) {
        if (!(want & (1u << v)))
            continue;
        xsf_error err;
        xsf_error_clear(&err);
        if (cmp_peer_probe((cmp_variant)v, opt, NULL, 0, &err) == XSF_OK)
            variants |= 1u << v;
        else
            fprintf(stderr, "xsflow compare: %s\n", err.msg);
    }
    if (!variants) {
        cli_error("compare", "no codec left to compare");
        return 1;
    }
    opt->variants = variants;
    return 0;
}

int cmd_compare(int argc, char **argv)
{
    compare_args a;
    int r = cli_exit_status(parse_args(argc, argv, &a));
    if (r >= 0)
        return r;
    if (a.r.gpu < 0) {
        a.r.gpu = cmp_gpu_available() == XSF_OK;
        if (!a.r.gpu)
            fprintf(
                stderr,
                "xsflow compare: no usable GPU (or no CUDA kernels in this build): comparing the C "
                "references (--cpu)\n");
    } else if (a.r.gpu && cmp_gpu_available() != XSF_OK) {
        cli_error(
            "--gpu",
            "no usable GPU (no device, or a build without CUDA kernels); --cpu compares the C "
            "references");
        return 1;
    }
    cmp_options opt;
    cmp_request_options(&a.r, &opt);
    opt.progress = a.r.progress ? progress : NULL;
    /* Usage errors in the inputs before the peers are looked for. */
    for (int i = 0; i < a.nin; i++) {
        imgio_raw_layout raw;
        if (input_layout(&a, a.in[i], &raw))
            return 2;
    }
    if (select_peers(&a, &opt))
        return 1;
    xsf_error err;
    xsf_error_clear(&err);
    cmp_session *s = NULL;
    if (cmp_session_create(&s, &opt, &err)) {
        cli_error("compare", "%s", err.msg);
        return 1;
    }
    int status = 0;
    for (int i = 0; i < (a.nin ? a.nin : 2) && !status; i++)
        status = a.nin ? add_file(&a, s, a.in[i]) : add_builtin(s, i);
    if (cmp_session_rows(s) && write_outputs(&a, s))
        status = 1;
    cmp_session_destroy(s);
    return status;
}
