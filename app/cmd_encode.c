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
#include "xsf_clock.h"
#include "xsf_codecs.h"

/* --codec NAME (the registry's names) of a codec other than JPEG XS hands the
 * whole command line to that codec's encoder command, which takes this
 * command's argv (argv[0] = "encode") and returns the exit status. */
static const struct {
    const char *codec;
    int (*encode)(int argc, char **argv);
} other_codecs[] = {{"bpc-paco", bpc_cli_encode}};

static const char about[] =
    "Encodes the frames of IN as JPEG XS (ISO/IEC 21122-1) codestreams, one after the\n"
    "other in OUT.jxs. IN's extension picks the reader:\n"
    "  .yuv  planar, needs --size WxH, --sampling and --depth (the layout of decode's .yuv)\n"
    "  .y4m  YUV4MPEG2 (size, sampling and depth from its header)\n"
    "  .ppm  RGB, coded with the reversible colour transform unless --no-rct\n"
    "  .pgm  one component\n";

typedef struct encode_args {
    const char *in, *out;
    xs_encoder_config cfg;
    int size[2], depth; /* .yuv input: width, height; bits */
    const char *sampling;
    int frames;
    int rct; /* -1: by input */
    int nly_given, gpu, quiet;
    int gains[XS_MAX_BANDS], prios[XS_MAX_BANDS], ngains, nprios;
    uint64_t bytes;
} encode_args;

static int modes_of(const char *s, unsigned *modes)
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

static int nlt_of(const char *s, xs_encoder_config *c)
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

static int profile_of(const char *s, uint16_t *ppih)
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

/* CLI_CALL parsers: o->dst is the encoder configuration. */
static int parse_modes(void *ctx, const cli_option *o, const char *v)
{
    (void)ctx;
    if (modes_of(v, &((xs_encoder_config *)o->dst)->gcli_modes)) {
        cli_error("--modes", "'%s' is not a list of raw, nopred, vpred, sig, all", v);
        return 2;
    }
    return 0;
}

static int parse_nlt(void *ctx, const cli_option *o, const char *v)
{
    (void)ctx;
    if (nlt_of(v, o->dst)) {
        cli_error("--nlt", "'%s' is not none, quadratic:SIGMA:ALPHA or extended:T1:T2:E", v);
        return 2;
    }
    return 0;
}

static int parse_profile(void *ctx, const cli_option *o, const char *v)
{
    (void)ctx;
    if (profile_of(v, &((xs_encoder_config *)o->dst)->ppih)) {
        cli_error("--profile", "'%s' is not unrestricted, light422.10, main422.10, main444.12, high444.12", v);
        return 2;
    }
    return 0;
}

static const int rate_controls[] = {XS_RC_SLICE, XS_RC_PRECINCT, XS_RC_FIXED};

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
    int plev = -1, codec = 0;
    const cli_option options[] = {
        CLI_OPT("output", 'o', CLI_STRING, &a->out, "OUT.jxs", "output file"),
        CLI_HEAD("rate:"),
        CLI_OPT("bpp", 0, CLI_DOUBLE, &c->bpp, "B", "target bits per pixel: each codestream is floor(B*W*H/8) bytes",
                .lo = 0, .hi = 64, .flags = CLI_ABOVE_LO),
        CLI_OPT("bytes", 0, CLI_BYTES, &a->bytes, "N", "target codestream size in bytes instead (k, M: binary)",
                .lo = 1, .hi = 0x7fffffff),
        CLI_OPT("rc", 0, CLI_CHOICE, &c->rate_control, "MODE",
                "slice: each slice exactly its share, unused bytes of a precinct\n"
                "go to the next ones of its slice (default); precinct: each\n"
                "precinct exactly its share; fixed: no target, --q/--r everywhere",
                .choices = "slice|precinct|fixed", .values = rate_controls),
        CLI_OPT("q", 0, CLI_INT, &c->q, "Q", "quantization for --rc fixed (default 0)", .lo = 0, .hi = 255),
        CLI_OPT("r", 0, CLI_INT, &c->r, "R", "refinement for --rc fixed (default 0)", .lo = 0, .hi = 255),
        CLI_OPT("lossless", 0, CLI_FLAG, &c->lossless, NULL, "lossless coding (Fq=0, Bw=depth, Q=R=0; signals cap[6])"),
        CLI_HEAD("input (.yuv):"),
        CLI_OPT("size", 0, CLI_SIZE, a->size, "WxH", "picture size"),
        CLI_OPT("sampling", 0, CLI_STRING, &a->sampling, "S", "400, 420, 422, 444 or 4444 (default 422)"),
        CLI_OPT("depth", 0, CLI_INT, &a->depth, "N", "bits per sample, 8..16 (default 10)", .lo = 8, .hi = 16),
        CLI_OPT("frames", 0, CLI_INT, &a->frames, "N", "encode the first N frames only", .lo = 1, .hi = 1 << 30),
        CLI_HEAD("transform:"),
        CLI_OPT("nlx", 0, CLI_INT, &c->nlx, "N", "horizontal levels 1..8 (default 5)", .lo = 1, .hi = 8),
        CLI_OPT("nly", 0, CLI_INT, &c->nly, "N", "vertical levels 0..2 (default 2; 1 with the Light and Main profiles)",
                .lo = 0, .hi = 2, .given = &a->nly_given),
        CLI_OPT("rct", 0, CLI_SET, &a->rct, NULL,
                "reversible colour transform on components 0..2 given as R, G, B\n(default: on for .ppm, off otherwise)",
                .value = 1),
        CLI_OPT("no-rct", 0, CLI_SET, &a->rct, NULL, "no colour transform", .value = 0),
        CLI_OPT("cwd", 0, CLI_INT, &c->sd, "N", "leave the last N components untransformed (CWD, Sd)", .lo = 0,
                .hi = 7),
        CLI_OPT("bw", 0, CLI_INT, &c->bw, "N", "coefficient precision (default 20)", .lo = 8, .hi = 20),
        CLI_OPT("fq", 0, CLI_INT, &c->fq, "N", "fractional bits (default 8)", .lo = 0, .hi = 8),
        CLI_OPT("nlt", 0, CLI_CALL, c, "quadratic:SIGMA:ALPHA | extended:T1:T2:E | none",
                "non-linearity (21122-1 Annex G) the decoder undoes", .call = parse_nlt),
        CLI_HEAD("coding:"),
        CLI_OPT("quant", 0, CLI_CHOICE, &c->qpih, "Q", "deadzone (default) or uniform", .choices = "deadzone|uniform"),
        CLI_OPT("sign-packing", 0, CLI_INT, &c->fs, "0|1",
                "signs of non-zero coefficients in their own subpacket (default 1)", .lo = 0, .hi = 1),
        CLI_OPT("run-mode", 0, CLI_INT, &c->rm, "0|1",
                "significance runs of zero residuals (0, default) or counts (1)", .lo = 0, .hi = 1),
        CLI_OPT("modes", 0, CLI_CALL, c, "LIST",
                "bitplane-count coding modes the encoder may pick from, by cost:\n"
                "comma list of raw, nopred, vpred, sig, or all (default all)",
                .call = parse_modes),
        CLI_OPT("slice-height", 0, CLI_INT, &c->slice_lines, "L", "lines per slice, a multiple of 2^NLy (default 16)",
                .lo = 1, .hi = 65535),
        CLI_OPT("cw", 0, CLI_INT, &c->cw, "N", "precinct width in units of 8*max(sx)*2^NLx (default 0: full)",
                .lo = 0, .hi = 65535),
        CLI_OPT("long-headers", 0, CLI_FLAG, &c->long_headers, NULL, "7-byte packet headers"),
        CLI_OPT("gains", 0, CLI_INTS, a->gains, "LIST", "WGT gains in band order (default: derived for PSNR)",
                .lo = 0, .hi = 255, .max_items = XS_MAX_BANDS, .count = &a->ngains),
        CLI_OPT("priorities", 0, CLI_INTS, a->prios, "LIST", "WGT priorities in band order, one per gain", .lo = 0,
                .hi = 255, .max_items = XS_MAX_BANDS, .count = &a->nprios),
        CLI_OPT("profile", 0, CLI_CALL, c, "P",
                "unrestricted (default), light422.10, main422.10, main444.12,\n"
                "high444.12: checked, and signalled with a derived level",
                .call = parse_profile),
        CLI_OPT("plev", 0, CLI_INT, &plev, "0xNNNN", "Plev to write instead of the derived one", .lo = 0,
                .hi = 0xffff),
        CLI_HEAD("engine:"),
        CLI_OPT("cpu", 0, CLI_SET, &a->gpu, NULL, "the C reference encoder (default)", .value = 0),
        CLI_OPT("gpu", 0, CLI_SET, &a->gpu, NULL, "the CUDA encoder (same bytes)", .value = 1),
        CLI_OPT("codec", 0, CLI_CHOICE, &codec, "xs|bpc", "JPEG XS (default) or BPC-PaCo", .choices = "xs|bpc"),
        CLI_OPT("quiet", 'q', CLI_FLAG, &a->quiet, NULL, "print nothing but errors"),
        CLI_TABLE_END};
    const cli_command cmd = {.name = "encode", .synopsis = "IN -o OUT.jxs --bpp B [options]", .about = about,
                             .options = options, .input = &a->in};
    const int r = cli_parse(&cmd, argc, argv);
    if (r)
        return r;
    c->target_bytes = (size_t)a->bytes;
    if (!a->in) {
        cli_usage(&cmd, stderr);
        return 2;
    }
    if (!a->out) {
        cli_error(a->in, "no output: give -o OUT.jxs");
        return 2;
    }
    if (a->ngains != a->nprios) {
        cli_error("--gains", "%d gains but %d priorities", a->ngains, a->nprios);
        return 2;
    }
    for (int k = 0; k < a->ngains; k++) {
        c->gain[k] = (uint8_t)a->gains[k];
        c->priority[k] = (uint8_t)a->prios[k];
    }
    if (a->ngains)
        c->nbands = a->ngains;
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

int cmd_encode(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++) {
        const xsf_codec *codec = strcmp(argv[i], "--codec") ? NULL : xsf_codec_find(argv[i + 1]);
        for (size_t k = 0; codec && k < sizeof other_codecs / sizeof other_codecs[0]; k++)
            if (!strcmp(codec->name, other_codecs[k].codec))
                return other_codecs[k].encode(argc, argv);
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
    if (fmt == IMGIO_FORMAT_YUV && (!a.size[0] || !a.size[1])) {
        cli_error(a.in, "a .yuv input needs --size WxH (and --sampling, --depth)");
        return 2;
    }
    if (four) {
        r4.f = strcmp(a.in, "-") ? fopen(a.in, "rb") : stdin;
        r4.w = a.size[0];
        r4.h = a.size[1];
        r4.depth = a.depth;
        r4.buf = malloc((size_t)a.size[0] * a.size[1] * 4 * sizeof *r4.buf);
        r4.bytes = malloc((size_t)a.size[0] * a.size[1] * 2);
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
            imgio_raw_layout_make(&raw, samp, a.size[0], a.size[1], a.depth, &err) != XSF_OK) {
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
        const double t0 = xsf_clock_mono_s();
        xsf_status st;
        if (a.gpu) {
            st = xs_gpu_encode(genc, pic);
            if (st == XSF_OK)
                st = xs_gpu_encoder_download(genc, cs, cap, &len, 1);
        } else {
            st = xs_encode(enc, pic, cs, cap, &len);
        }
        seconds += xsf_clock_mono_s() - t0;
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
