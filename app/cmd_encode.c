/* xsflow encode: .yuv, .y4m, .ppm or .pgm to JPEG XS codestreams (one per
 * frame, one after the other), with the C reference or the GPU encoder.
 * Every option of the encoder (xs_encoder_config) is reachable from here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "commands.h"
#include "image_io.h"
#include "xs.h"

/* --codec bpc hands the whole command line to the BPC-PaCo encoder: bpc/bpc.h
 * declares int bpc_cli_encode(int argc, char **argv), which takes this
 * command's argv (argv[0] = "encode") and returns the exit status. A build
 * without bpc/ says so instead. */
#if defined(__has_include)
#if __has_include("bpc.h")
#include "bpc.h"
#define XSF_ENCODE_HAVE_BPC 1
#endif
#endif

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: xsflow encode IN -o OUT.jxs --bpp B [options]\n"
        "\n"
        "Encodes the frames of IN as JPEG XS (ISO/IEC 21122-1) codestreams, one after the\n"
        "other in OUT.jxs. IN's extension picks the reader:\n"
        "  .yuv  planar, needs --size WxH, --sampling and --depth (the layout of decode's .yuv)\n"
        "  .y4m  YUV4MPEG2 (size, sampling and depth from its header)\n"
        "  .ppm  RGB, coded with the reversible colour transform unless --no-rct\n"
        "  .pgm  one component\n"
        "\n"
        "rate:\n"
        "  --bpp B             target bits per pixel: each codestream is floor(B*W*H/8) bytes\n"
        "  --bytes N           target codestream size in bytes instead\n"
        "  --rc MODE           slice: each slice exactly its share, unused bytes of a precinct\n"
        "                      go to the next ones of its slice (default); precinct: each\n"
        "                      precinct exactly its share; fixed: no target, --q/--r everywhere\n"
        "  --q Q --r R         quantization and refinement for --rc fixed (default 0 0)\n"
        "  --lossless          lossless coding (Fq=0, Bw=depth, Q=R=0; signals cap[6])\n"
        "input (.yuv):\n"
        "  --size WxH          picture size\n"
        "  --sampling S        400, 420, 422, 444 or 4444 (default 422)\n"
        "  --depth N           bits per sample, 8..16 (default 10)\n"
        "  --frames N          encode the first N frames only\n"
        "transform:\n"
        "  --nlx N --nly N     horizontal (1..8) and vertical (0..2) levels (default 5, 2;\n"
        "                      NLy 1 with the Light and Main profiles)\n"
        "  --rct / --no-rct    reversible colour transform on components 0..2 given as R, G, B\n"
        "                      (default: on for .ppm, off otherwise)\n"
        "  --cwd N             leave the last N components untransformed (CWD, Sd)\n"
        "  --bw N --fq N       coefficient precision and fractional bits (default 20, 8)\n"
        "  --nlt quadratic:SIGMA:ALPHA | extended:T1:T2:E | none\n"
        "                      non-linearity (21122-1 Annex G) the decoder undoes\n"
        "coding:\n"
        "  --quant Q           deadzone (default) or uniform\n"
        "  --sign-packing 0|1  signs of non-zero coefficients in their own subpacket (default 1)\n"
        "  --run-mode 0|1      significance runs of zero residuals (0, default) or counts (1)\n"
        "  --modes LIST        bitplane-count coding modes the encoder may pick from, by cost:\n"
        "                      comma list of raw, nopred, vpred, sig, or all (default all)\n"
        "  --slice-height L    lines per slice, a multiple of 2^NLy (default 16)\n"
        "  --cw N              precinct width in units of 8*max(sx)*2^NLx (default 0: full)\n"
        "  --long-headers      7-byte packet headers\n"
        "  --gains LIST --priorities LIST\n"
        "                      WGT table in band order (default: derived for PSNR)\n"
        "  --profile P         unrestricted (default), light422.10, main422.10, main444.12,\n"
        "                      high444.12: checked, and signalled with a derived level\n"
        "  --plev 0xNNNN       Plev to write instead of the derived one\n"
        "engine:\n"
        "  --cpu               the C reference encoder (default)\n"
        "  --gpu               the CUDA encoder (same bytes)\n"
        "  --codec xs|bpc      JPEG XS (default) or BPC-PaCo\n"
        "  -q, --quiet         print nothing but errors\n");
}

typedef struct encode_args {
    const char *in, *out;
    xs_encoder_config cfg;
    int width, height, depth;
    const char *sampling;
    long frames;
    int rct; /* -1: by input */
    int nly_given, gpu, quiet;
} encode_args;

static int parse_list(const char *s, uint8_t *out, int max, int *n)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", s);
    *n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        long v;
        if (*n >= max || cli_parse_long(tok, 0, 255, &v))
            return -1;
        out[(*n)++] = (uint8_t)v;
    }
    return *n ? 0 : -1;
}

static int parse_modes(const char *s, unsigned *modes)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    *modes = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (!strcmp(tok, "raw"))
            *modes |= XS_GCLI_RAW;
        else if (!strcmp(tok, "nopred"))
            *modes |= XS_GCLI_NOPRED;
        else if (!strcmp(tok, "vpred"))
            *modes |= XS_GCLI_VPRED;
        else if (!strcmp(tok, "sig"))
            *modes |= XS_GCLI_SIGFLAGS;
        else if (!strcmp(tok, "all"))
            *modes |= XS_GCLI_ALL;
        else
            return -1;
    }
    return *modes ? 0 : -1;
}

static int parse_nlt(const char *s, xs_encoder_config *c)
{
    unsigned long a, b, e;
    char tail;
    if (!strcmp(s, "none")) {
        c->tnlt = 0;
        return 0;
    }
    if (sscanf(s, "quadratic:%lu:%lu%c", &a, &b, &tail) == 2 && a <= 1 && b <= 32767) {
        c->tnlt = 1;
        c->nlt_sigma = (int)a;
        c->nlt_alpha = (unsigned)b;
        return 0;
    }
    if (sscanf(s, "extended:%lu:%lu:%lu%c", &a, &b, &e, &tail) == 3 && a <= UINT32_MAX &&
        b <= UINT32_MAX && e < 20) {
        c->tnlt = 2;
        c->nlt_t1 = (uint32_t)a;
        c->nlt_t2 = (uint32_t)b;
        c->nlt_e = (int)e;
        return 0;
    }
    return -1;
}

static int parse_profile(const char *s, uint16_t *ppih)
{
    static const struct {
        const char *name;
        uint16_t ppih;
    } t[] = {{"unrestricted", XS_PPIH_UNRESTRICTED},
             {"light422.10", XS_PPIH_LIGHT_422_10},
             {"main422.10", XS_PPIH_MAIN_422_10},
             {"main444.12", XS_PPIH_MAIN_444_12},
             {"high444.12", XS_PPIH_HIGH_444_12}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].name)) {
            *ppih = t[i].ppih;
            return 0;
        }
    return -1;
}

static int parse_double(const char *s, double lo, double hi, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return (errno || end == s || *end || *v <= lo || *v > hi) ? -1 : 0;
}

/* Options taking a whole number: name, range, where it goes. */
typedef struct int_option {
    const char *name;
    long lo, hi;
    int *dst;
} int_option;

/* 1: argv[*i] is one of opts and was parsed; 0: not one; -1: bad value. */
static int parse_int_option(int argc, char **argv, int *i, const int_option *opts, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (strcmp(argv[*i], opts[k].name))
            continue;
        const char *v = cli_option_value(argc, argv, i);
        long x;
        if (!v)
            return -1;
        if (cli_parse_long(v, opts[k].lo, opts[k].hi, &x)) {
            cli_error(opts[k].name, "'%s' is not a whole number in %ld..%ld", v, opts[k].lo,
                      opts[k].hi);
            return -1;
        }
        *opts[k].dst = (int)x;
        return 1;
    }
    return 0;
}

/* 0: parsed; 1: help printed; 2: usage error (already reported). */
static int parse_args(int argc, char **argv, encode_args *a)
{
    memset(a, 0, sizeof *a);
    xs_encoder_config_init(&a->cfg);
    xs_encoder_config *c = &a->cfg;
    a->depth = 10;
    a->sampling = "422";
    a->frames = -1;
    a->rct = -1;
    int plev = -1, gains = 0, prios = 0;
    uint8_t prio[XS_MAX_BANDS];
    const int_option int_opts[] = {
        {"--q", 0, 255, &c->q},        {"--r", 0, 255, &c->r},
        {"--depth", 8, 16, &a->depth}, {"--nlx", 1, 8, &c->nlx},
        {"--cwd", 0, 7, &c->sd},       {"--bw", 8, 20, &c->bw},
        {"--fq", 0, 8, &c->fq},        {"--sign-packing", 0, 1, &c->fs},
        {"--run-mode", 0, 1, &c->rm},  {"--slice-height", 1, 65535, &c->slice_lines},
        {"--cw", 0, 65535, &c->cw},
    };
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        const int io =
            parse_int_option(argc, argv, &i, int_opts, sizeof int_opts / sizeof int_opts[0]);
        if (io < 0)
            return 2;
        if (io > 0)
            continue;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            a->out = v;
        } else if (!strcmp(arg, "--bpp")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (parse_double(v, 0, 64, &c->bpp)) {
                cli_error(arg, "'%s' is not a rate above 0 and at most 64 bits per pixel", v);
                return 2;
            }
        } else if (!strcmp(arg, "--bytes")) {
            long n;
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (cli_parse_long(v, 1, 0x7fffffffL, &n)) {
                cli_error(arg, "'%s' is not a byte count", v);
                return 2;
            }
            c->target_bytes = (size_t)n;
        } else if (!strcmp(arg, "--rc")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (!strcmp(v, "slice"))
                c->rate_control = XS_RC_SLICE;
            else if (!strcmp(v, "precinct"))
                c->rate_control = XS_RC_PRECINCT;
            else if (!strcmp(v, "fixed"))
                c->rate_control = XS_RC_FIXED;
            else {
                cli_error(arg, "'%s' is not one of slice, precinct, fixed", v);
                return 2;
            }
        } else if (!strcmp(arg, "--nly")) {
            long n;
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (cli_parse_long(v, 0, 2, &n)) {
                cli_error(arg, "'%s' is not 0, 1 or 2", v);
                return 2;
            }
            c->nly = (int)n;
            a->nly_given = 1;
        } else if (!strcmp(arg, "--lossless")) {
            c->lossless = 1;
        } else if (!strcmp(arg, "--size")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            char tail;
            if (sscanf(v, "%dx%d%c", &a->width, &a->height, &tail) != 2 || a->width < 1 ||
                a->height < 1 || a->width > 65535 || a->height > 65535) {
                cli_error(arg, "'%s' is not a size WxH (1..65535 each)", v);
                return 2;
            }
        } else if (!strcmp(arg, "--sampling")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            a->sampling = v;
        } else if (!strcmp(arg, "--frames")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (cli_parse_long(v, 1, 1L << 30, &a->frames)) {
                cli_error(arg, "'%s' is not a frame count (1 or more)", v);
                return 2;
            }
        } else if (!strcmp(arg, "--rct")) {
            a->rct = 1;
        } else if (!strcmp(arg, "--no-rct")) {
            a->rct = 0;
        } else if (!strcmp(arg, "--nlt")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (parse_nlt(v, c)) {
                cli_error(arg, "'%s' is not none, quadratic:SIGMA:ALPHA or extended:T1:T2:E", v);
                return 2;
            }
        } else if (!strcmp(arg, "--quant")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (strcmp(v, "deadzone") && strcmp(v, "uniform")) {
                cli_error(arg, "'%s' is not deadzone or uniform", v);
                return 2;
            }
            c->qpih = !strcmp(v, "uniform");
        } else if (!strcmp(arg, "--modes")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (parse_modes(v, &c->gcli_modes)) {
                cli_error(arg, "'%s' is not a list of raw, nopred, vpred, sig, all", v);
                return 2;
            }
        } else if (!strcmp(arg, "--long-headers")) {
            c->long_headers = 1;
        } else if (!strcmp(arg, "--gains") || !strcmp(arg, "--priorities")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            int n;
            const int is_gain = !strcmp(arg, "--gains");
            if (parse_list(v, is_gain ? c->gain : prio, XS_MAX_BANDS, &n)) {
                cli_error(arg, "'%s' is not a comma list of values 0..255", v);
                return 2;
            }
            *(is_gain ? &gains : &prios) = n;
        } else if (!strcmp(arg, "--profile")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (parse_profile(v, &c->ppih)) {
                cli_error(
                    arg,
                    "'%s' is not unrestricted, light422.10, main422.10, main444.12, high444.12", v);
                return 2;
            }
        } else if (!strcmp(arg, "--plev")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            char *end;
            errno = 0;
            long n = strtol(v, &end, 0);
            if (errno || *end || n < 0 || n > 0xffff) {
                cli_error(arg, "'%s' is not a 16-bit value", v);
                return 2;
            }
            plev = (int)n;
        } else if (!strcmp(arg, "--cpu")) {
            a->gpu = 0;
        } else if (!strcmp(arg, "--gpu")) {
            a->gpu = 1;
        } else if (!strcmp(arg, "--codec")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (strcmp(v, "xs")) {
                cli_error(arg, "'%s' is not xs or bpc", v);
                return 2;
            }
        } else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
            a->quiet = 1;
        } else if (arg[0] == '-' && arg[1]) {
            cli_error(arg, "unknown option of 'xsflow encode' (see --help)");
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
    if (!a->out) {
        cli_error(a->in, "no output: give -o OUT.jxs");
        return 2;
    }
    if (gains != prios) {
        cli_error("--gains", "%d gains but %d priorities", gains, prios);
        return 2;
    }
    if (gains) {
        c->nbands = gains;
        memcpy(c->priority, prio, (size_t)gains);
    }
    c->plev = plev;
    if (c->rate_control == XS_RC_FIXED || c->lossless) {
        if (c->bpp > 0 || c->target_bytes) {
            cli_error(
                a->in,
                "--bpp and --bytes set a target, which --rc fixed and --lossless have none of");
            return 2;
        }
    } else if (!(c->bpp > 0) && !c->target_bytes) {
        cli_error(a->in, "no rate: give --bpp B (or --bytes N, --rc fixed, --lossless)");
        return 2;
    }
    /* The Light and Main profiles allow one vertical level. */
    if (!a->nly_given && (c->ppih == XS_PPIH_LIGHT_422_10 || c->ppih == XS_PPIH_MAIN_422_10 ||
                          c->ppih == XS_PPIH_MAIN_444_12))
        c->nly = 1;
    return 0;
}

/* A headerless 4:4:4:4 .yuv (image_io reads 1 or 3 components). */
typedef struct raw4_reader {
    FILE *f;
    int w, h, depth;
    uint16_t *buf;
    uint8_t *bytes;
} raw4_reader;

static int raw4_read(raw4_reader *r, xsf_picture *img)
{
    xsf_picture_init(img);
    img->fmt.container = XSF_PLANAR_U16;
    const size_t n = (size_t)r->w * r->h, bps = r->depth > 8 ? 2 : 1;
    for (int c = 0; c < 4; c++) {
        size_t got = fread(r->bytes, bps, n, r->f);
        if (got != n)
            return (c == 0 && got == 0 && feof(r->f)) ? 0 : -1;
        uint16_t *p = r->buf + c * n;
        for (size_t i = 0; i < n; i++)
            p[i] = bps == 2 ? (uint16_t)(r->bytes[2 * i] | r->bytes[2 * i + 1] << 8) : r->bytes[i];
        img->data[c] = (uint8_t *)p;
        img->fmt.width[c] = r->w;
        img->fmt.height[c] = r->h;
        img->fmt.depth[c] = r->depth;
        img->stride[c] = (size_t)r->w * sizeof(uint16_t);
    }
    img->fmt.nc = 4;
    return 1;
}

static double now_seconds(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int cmd_encode(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--codec") && !strcmp(argv[i + 1], "bpc")) {
#ifdef XSF_ENCODE_HAVE_BPC
            return bpc_cli_encode(argc, argv);
#else
            cli_error("--codec bpc", "this build has no BPC-PaCo encoder (bpc/ is not built)");
            return 2;
#endif
        }
    encode_args a;
    int r = parse_args(argc, argv, &a);
    if (r)
        return r == 1 ? 0 : 2;

    xsf_error err;
    xsf_error_clear(&err);
    const imgio_format fmt = imgio_format_from_path(a.in);
    if (fmt == IMGIO_FORMAT_NONE) {
        cli_error(a.in, "unknown input format: name it .yuv, .y4m, .ppm or .pgm");
        return 2;
    }
    const int four =
        fmt == IMGIO_FORMAT_YUV && (!strcmp(a.sampling, "4444") || !strcmp(a.sampling, "4:4:4:4"));
    imgio_reader *rd = NULL;
    raw4_reader r4 = {0};
    if (fmt == IMGIO_FORMAT_YUV && (!a.width || !a.height)) {
        cli_error(a.in, "a .yuv input needs --size WxH (and --sampling, --depth)");
        return 2;
    }
    if (four) {
        r4.f = strcmp(a.in, "-") ? fopen(a.in, "rb") : stdin;
        r4.w = a.width;
        r4.h = a.height;
        r4.depth = a.depth;
        r4.buf = malloc((size_t)a.width * a.height * 4 * sizeof *r4.buf);
        r4.bytes = malloc((size_t)a.width * a.height * 2);
        if (!r4.f || !r4.buf || !r4.bytes) {
            cli_error(a.in, "%s", r4.f ? "out of memory" : strerror(errno));
            if (r4.f && r4.f != stdin)
                fclose(r4.f);
            free(r4.buf);
            free(r4.bytes);
            return 1;
        }
    } else {
        imgio_raw_layout raw;
        const char *samp = !strcmp(a.sampling, "400") ? "mono" : a.sampling;
        if (fmt == IMGIO_FORMAT_YUV &&
            imgio_raw_layout_make(&raw, samp, a.width, a.height, a.depth, &err) != XSF_OK) {
            cli_error("--sampling", "%s", err.msg);
            return 2;
        }
        if (imgio_reader_open(&rd, a.in, fmt, fmt == IMGIO_FORMAT_YUV ? &raw : NULL, &err) !=
            XSF_OK) {
            cli_error(a.in, "%s", err.msg);
            return 1;
        }
    }
    FILE *out = NULL;
    xs_encoder *enc = NULL;
    xs_gpu_encoder *genc = NULL;
    uint8_t *cs = NULL;
    size_t cap = 0;
    unsigned long frames = 0;
    uint64_t total = 0;
    double seconds = 0;
    int status = 0, width = 0, height = 0;
    while (a.frames < 0 || frames < (unsigned long)a.frames) {
        xsf_picture four_pic;
        const xsf_picture *pic = &four_pic;
        if (four) {
            int got = raw4_read(&r4, &four_pic);
            if (got < 0) {
                cli_error(a.in, "file ends inside frame %lu", frames);
                status = 1;
            }
            if (got <= 0)
                break;
        } else {
            if (imgio_read(rd, &pic, &err) != XSF_OK) {
                cli_error(a.in, "%s", err.msg);
                status = 1;
                break;
            }
            if (!pic)
                break;
        }
        if (frames == 0) {
            /* The first frame fixes the format. */
            xs_encoder_config *c = &a.cfg;
            const xsf_format *f = &pic->fmt;
            c->width = width = f->width[0];
            c->height = height = f->height[0];
            c->nc = f->nc;
            for (int k = 0; k < f->nc; k++) {
                c->depth[k] = f->depth[k];
                c->sx[k] = f->width[k] ? f->width[0] / f->width[k] : 1;
                c->sy[k] = f->height[k] ? f->height[0] / f->height[k] : 1;
            }
            c->cpih = a.rct >= 0 ? a.rct : fmt == IMGIO_FORMAT_PPM;
            xsf_status st = a.gpu ? xs_gpu_encoder_create(&genc, c, 0, NULL, &err)
                                  : xs_encoder_create(&enc, c, &err);
            if (st != XSF_OK) {
                cli_error(a.in, "%s", err.msg);
                status = st == XSF_ERR_ARG || st == XSF_ERR_UNSUPPORTED ? 2 : 1;
                break;
            }
            cap = a.gpu ? xs_gpu_encoder_max_bytes(genc) : xs_encoder_max_bytes(enc);
            cs = malloc(cap);
            out = strcmp(a.out, "-") ? fopen(a.out, "wb") : stdout;
            if (!cs || !out) {
                cli_error(a.out, "%s", cs ? strerror(errno) : "out of memory");
                status = 1;
                break;
            }
        }
        size_t len = 0;
        const double t0 = now_seconds();
        xsf_status st;
        if (a.gpu) {
            st = xs_gpu_encode(genc, pic);
            if (st == XSF_OK)
                st = xs_gpu_encoder_download(genc, cs, cap, &len, 1);
        } else {
            st = xs_encode(enc, pic, cs, cap, &len);
        }
        seconds += now_seconds() - t0;
        if (st != XSF_OK) {
            cli_error(a.in, "frame %lu: %s", frames,
                      a.gpu ? xs_gpu_encoder_error(genc) : xs_encoder_error(enc));
            status = 1;
            break;
        }
        if (fwrite(cs, 1, len, out) != len) {
            cli_error(a.out, "%s", strerror(errno));
            status = 1;
            break;
        }
        total += len;
        frames++;
    }
    if (out && out != stdout && fclose(out) && !status) {
        cli_error(a.out, "%s", strerror(errno));
        status = 1;
    }
    if (!status && frames == 0) {
        cli_error(a.in, "no frame to encode");
        status = 1;
    }
    if (!status && !a.quiet) {
        FILE *info = strcmp(a.out, "-") ? stdout : stderr;
        fprintf(
            info,
            "encoded %lu frame%s (%dx%d, %d component%s) with the %s encoder into %s: %llu bytes, "
            "%.4f bits per pixel, %.1f frames/s\n",
            frames, frames == 1 ? "" : "s", width, height, a.cfg.nc, a.cfg.nc == 1 ? "" : "s",
            a.gpu ? "GPU" : "C", a.out, (unsigned long long)total,
            8.0 * (double)total / ((double)frames * width * height),
            seconds > 0 ? frames / seconds : 0.0);
    }
    xs_encoder_destroy(enc);
    xs_gpu_encoder_destroy(genc);
    free(cs);
    imgio_reader_close(rd);
    if (r4.f && r4.f != stdin)
        fclose(r4.f);
    free(r4.buf);
    free(r4.bytes);
    return status;
}
