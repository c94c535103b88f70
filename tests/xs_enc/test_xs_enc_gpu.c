/* The GPU encoder against the C encoder, byte for byte: every format, depth,
 * decomposition, coding tool and rate control mode, NLT, CWD, lossless,
 * precinct columns, awkward sizes, pictures from device memory, several
 * frames through one context; plus a photograph (a conformance vector
 * decoded) at every rate and a UHD frame. Skipped (77) without a GPU. */
#include <cuda_runtime.h>
#include <stdio.h>

#include "../test.h"
#include "enc_test_util.h"

static const char *vectors_dir;
static int dumped;

/* Keeps the first mismatching pairs where XSF_DUMP_DIR says, to study them
 * with the C decoder away from the GPU. */
static void dump(const char *what, const uint8_t *a, size_t la, const uint8_t *b, size_t lb)
{
    const char *dir = getenv("XSF_DUMP_DIR");
    if (!dir || dumped >= 3)
        return;
    char path[1024];
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/mismatch%d_%s.jxs", dir, dumped, k ? "gpu" : "c");
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(k ? b : a, 1, k ? lb : la, f);
            fclose(f);
        }
    }
    snprintf(path, sizeof path, "%s/mismatch%d.txt", dir, dumped);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%s\n", what);
        fclose(f);
    }
    dumped++;
}

/* Encodes pic with both encoders; 1 when the codestreams are identical. */
static int compare(const xs_encoder_config *cfg, const xsf_picture *pic, const char *what)
{
    xsf_error err = {0};
    xs_encoder *enc = NULL;
    xs_gpu_encoder *genc = NULL;
    uint8_t *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;
    int same = 0;
    xsf_status sc = xs_encoder_create(&enc, cfg, &err);
    xsf_status sg = xs_gpu_encoder_create(&genc, cfg, 0, NULL, &err);
    CHECK(sc == sg, "%s: C create %d, GPU create %d (%s)", what, (int)sc, (int)sg, err.msg);
    if (sc != XSF_OK || sg != XSF_OK)
        goto done;
    const size_t cap = xs_encoder_max_bytes(enc);
    a = malloc(cap);
    b = malloc(cap);
    sc = xs_encode(enc, pic, a, cap, &la);
    sg = xs_gpu_encode(genc, pic);
    if (sg == XSF_OK)
        sg = xs_gpu_encoder_download(genc, b, cap, &lb, 1);
    CHECK(sc == sg, "%s: C encode %d (%s), GPU encode %d (%s)", what, (int)sc,
          xs_encoder_error(enc), (int)sg, xs_gpu_encoder_error(genc));
    if (sc != XSF_OK || sg != XSF_OK)
        goto done;
    size_t first = 0;
    while (first < la && first < lb && a[first] == b[first])
        first++;
    same = la == lb && first == la;
    CHECK(same, "%s: C %zu bytes, GPU %zu bytes, first difference at byte %zu", what, la, lb,
          first);
    if (!same)
        dump(what, a, la, b, lb);
done:
    free(a);
    free(b);
    xs_encoder_destroy(enc);
    xs_gpu_encoder_destroy(genc);
    return same;
}

static void synthetic(const xs_encoder_config *cfg, int kind, const char *what)
{
    test_picture pic;
    if (test_picture_make(&pic, cfg, kind)) {
        CHECK(0, "%s: out of memory", what);
        return;
    }
    compare(cfg, &pic.img, what);
    test_picture_free(&pic);
}

static void test_matrix(void)
{
    static const char *const formats[] = {"400", "420", "422", "444", "rgb", "4444"};
    char what[200];
    for (size_t f = 0; f < 6; f++)
        for (int depth = 8; depth <= 16; depth += 2)
            for (int nly = 0; nly <= 2; nly++)
                for (int nlx = nly > 1 ? nly : 1; nlx <= 8; nlx += 3) {
                    if (!strcmp(formats[f], "420") && nly == 0)
                        continue;
                    xs_encoder_config cfg;
                    xs_encoder_config_init(&cfg);
                    set_format(&cfg, formats[f], 203 + 4 * nlx, 34 + 2 * nly, depth);
                    cfg.nlx = nlx;
                    cfg.nly = nly;
                    cfg.bpp = 1.5 + nlx + depth % 3;
                    cfg.rate_control = (XS_RC_SLICE + nlx + nly) % 2 ? XS_RC_PRECINCT : XS_RC_SLICE;
                    cfg.qpih = (depth / 2) & 1;
                    cfg.fs = nlx & 1;
                    cfg.rm = nly & 1;
                    snprintf(what, sizeof what, "%s %d-bit NLx=%d NLy=%d %.1f bpp", formats[f],
                             depth, nlx, nly, cfg.bpp);
                    synthetic(&cfg, (nlx + depth) % 5 == 0, what);
                }
}

static void test_tools(void)
{
    static const unsigned modes[] = {XS_GCLI_RAW,
                                     XS_GCLI_NOPRED,
                                     XS_GCLI_NOPRED | XS_GCLI_SIGFLAGS,
                                     XS_GCLI_VPRED,
                                     XS_GCLI_VPRED | XS_GCLI_SIGFLAGS,
                                     XS_GCLI_ALL};
    char what[200];
    for (size_t m = 0; m < 6; m++)
        for (int fs = 0; fs <= 1; fs++)
            for (int rm = 0; rm <= 1; rm++)
                for (int q = 0; q <= 1; q++) {
                    xs_encoder_config cfg;
                    xs_encoder_config_init(&cfg);
                    set_format(&cfg, "422", 360, 48, 10);
                    cfg.gcli_modes = modes[m];
                    cfg.fs = fs;
                    cfg.rm = rm;
                    cfg.qpih = q;
                    cfg.bpp = 2.5 + 2 * m;
                    snprintf(what, sizeof what, "modes 0x%x Fs=%d Rm=%d Qpih=%d", modes[m], fs, rm,
                             q);
                    synthetic(&cfg, 0, what);
                    cfg.lossless = 1;
                    snprintf(what, sizeof what, "lossless modes 0x%x Fs=%d Rm=%d", modes[m], fs,
                             rm);
                    synthetic(&cfg, 0, what);
                }
}

static void test_special(void)
{
    xs_encoder_config cfg;
    char what[200];
    /* NLT, CWD, columns, long headers, fixed Q/R, odd and tiny sizes. */
    xs_encoder_config_init(&cfg);
    set_format(&cfg, "422", 240, 40, 12);
    cfg.bpp = 6;
    cfg.tnlt = 1;
    cfg.nlt_alpha = 100;
    synthetic(&cfg, 0, "quadratic NLT");
    cfg.tnlt = 2;
    cfg.nlt_t1 = 1024;
    cfg.nlt_t2 = 4096;
    cfg.nlt_e = 8;
    synthetic(&cfg, 0, "extended NLT");
    xs_encoder_config_init(&cfg);
    set_format(&cfg, "4444", 160, 32, 10);
    cfg.sd = 2;
    cfg.bpp = 20;
    synthetic(&cfg, 0, "CWD Sd=2");
    cfg.cpih = 1;
    cfg.sd = 1;
    cfg.lossless = 1;
    synthetic(&cfg, 0, "RCT + CWD lossless");
    for (int cw = 1; cw <= 3; cw++) {
        xs_encoder_config_init(&cfg);
        set_format(&cfg, "422", 700, 24, 10);
        cfg.nlx = 3;
        cfg.nly = 0;
        cfg.cw = cw;
        cfg.bpp = 5;
        snprintf(what, sizeof what, "Cw=%d", cw);
        synthetic(&cfg, 0, what);
    }
    xs_encoder_config_init(&cfg);
    set_format(&cfg, "444", 128, 64, 12);
    cfg.long_headers = 1;
    cfg.rate_control = XS_RC_FIXED;
    cfg.q = 6;
    cfg.r = 7;
    synthetic(&cfg, 0, "fixed Q=6 R=7, long headers");
    static const int sizes[][2] = {{1, 1}, {3, 5}, {17, 3}, {33, 65}, {257, 9}, {1000, 2}};
    for (size_t s = 0; s < 6; s++) {
        xs_encoder_config_init(&cfg);
        set_format(&cfg, "444", sizes[s][0], sizes[s][1], 10);
        cfg.lossless = 1;
        snprintf(what, sizeof what, "%dx%d lossless", sizes[s][0], sizes[s][1]);
        synthetic(&cfg, 1, what);
    }
    /* A target too small: both refuse. */
    xs_encoder_config_init(&cfg);
    set_format(&cfg, "444", 64, 64, 10);
    cfg.bpp = 0.05;
    synthetic(&cfg, 0, "0.05 bpp (refused by both)");
}

/* Device input, several frames through one context, and the stream left
 * asynchronous between them. */
static void test_device_input(void)
{
    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    set_format(&cfg, "422", 640, 96, 10);
    cfg.bpp = 3;
    xs_encoder *enc = NULL;
    xs_gpu_encoder *genc = NULL;
    xsf_error err = {0};
    if (xs_encoder_create(&enc, &cfg, &err) != XSF_OK ||
        xs_gpu_encoder_create(&genc, &cfg, 0, NULL, &err) != XSF_OK) {
        CHECK(0, "device input: create: %s", err.msg);
        xs_encoder_destroy(enc);
        return;
    }
    const size_t cap = xs_encoder_max_bytes(enc);
    uint8_t *a = malloc(cap), *b = malloc(cap);
    for (int frame = 0; frame < 4; frame++) {
        test_picture pic;
        test_picture_make(&pic, &cfg, frame == 2);
        uint8_t *dplane[XS_MAX_COMPONENTS] = {0};
        size_t pitch[XS_MAX_COMPONENTS] = {0};
        for (int c = 0; c < pic.img.fmt.nc; c++) {
            size_t dp;
            cudaMallocPitch((void **)&dplane[c], &dp, (size_t)pic.img.fmt.width[c] * 2,
                            (size_t)pic.img.fmt.height[c]);
            cudaMemcpy2D(dplane[c], dp, pic.img.data[c], pic.img.stride[c],
                         (size_t)pic.img.fmt.width[c] * 2, (size_t)pic.img.fmt.height[c],
                         cudaMemcpyHostToDevice);
            pitch[c] = dp;
        }
        xsf_picture dpic;
        xsf_picture_wrap(&dpic, &pic.img.fmt, dplane, pitch, XSF_MEMORY_DEVICE, 0);
        size_t la = 0, lb = 0;
        xsf_status sc = xs_encode(enc, &pic.img, a, cap, &la);
        xsf_status sg = xs_gpu_encode(genc, &dpic);
        if (sg == XSF_OK)
            sg = xs_gpu_encoder_download(genc, b, cap, &lb, 0);
        if (sg == XSF_OK)
            sg = xs_gpu_encoder_sync(genc);
        CHECK(sc == XSF_OK && sg == XSF_OK && la == lb && !memcmp(a, b, la),
              "device input frame %d: %s / %s", frame, xs_encoder_error(enc),
              xs_gpu_encoder_error(genc));
        for (int c = 0; c < pic.img.fmt.nc; c++)
            cudaFree(dplane[c]);
        test_picture_free(&pic);
    }
    free(a);
    free(b);
    xs_encoder_destroy(enc);
    xs_gpu_encoder_destroy(genc);
}

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = len > 0 ? malloc((size_t)len) : NULL;
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = (size_t)len;
    return b;
}

/* A photograph: the 12 bpp EveningGlow vector decoded, at every rate and
 * with the tools SVT-JPEG-XS used and ours. */
static void test_photograph(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/rate_bpp12.jxs", vectors_dir);
    size_t n, used;
    uint8_t *cs = read_file(path, &n);
    if (!cs) {
        printf("no %s: photograph test skipped\n", path);
        return;
    }
    xs_decoder *dec;
    xs_decoder_create(&dec, NULL);
    const xsf_picture *img;
    if (xs_decode(dec, cs, n, &used, &img) == XSF_OK) {
        static const double bpps[] = {0.75, 1, 2, 3, 4, 6, 8, 12};
        char what[200];
        for (size_t i = 0; i < sizeof bpps / sizeof bpps[0]; i++)
            for (int tools = 0; tools <= 2; tools++) {
                xs_encoder_config cfg;
                xs_encoder_config_init(&cfg);
                set_format(&cfg, "444", img->fmt.width[0], img->fmt.height[0], 12);
                cfg.bpp = bpps[i];
                if (!tools) {
                    cfg.gcli_modes = XS_GCLI_RAW | XS_GCLI_NOPRED | XS_GCLI_SIGFLAGS;
                    cfg.fs = 0;
                }
                if (tools == 2) /* the visual tune's tables (xs/enc_tune.h) */
                    cfg.tune = XS_TUNE_VISUAL;
                snprintf(what, sizeof what, "photograph at %.2f bpp (%s)", bpps[i],
                         tools == 2 ? "all tools, visual tune"
                         : tools    ? "all tools"
                                    : "SVT's tools");
                compare(&cfg, img, what);
            }
    }
    xs_decoder_destroy(dec);
    free(cs);
}

/* One UHD 4:2:2 10-bit frame at 3 bpp (synthetic: the C encoder takes a
 * second or two). */
static void test_uhd(void)
{
    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    set_format(&cfg, "422", 3840, 2160, 10);
    cfg.bpp = 3;
    synthetic(&cfg, 0, "UHD 4:2:2 10-bit 3 bpp");
}

/* --quick: small pictures through every kernel path, for compute-sanitizer. */
static void test_quick(void)
{
    static const unsigned modes[] = {XS_GCLI_ALL, XS_GCLI_VPRED | XS_GCLI_SIGFLAGS, XS_GCLI_RAW};
    char what[200];
    for (size_t m = 0; m < 3; m++)
        for (int fs = 0; fs <= 1; fs++) {
            xs_encoder_config cfg;
            xs_encoder_config_init(&cfg);
            set_format(&cfg, m == 1 ? "420" : "422", 136, 40, 10);
            cfg.gcli_modes = modes[m];
            cfg.fs = fs;
            cfg.rm = (int)m & 1;
            cfg.qpih = fs;
            cfg.bpp = 3;
            cfg.rate_control = fs ? XS_RC_PRECINCT : XS_RC_SLICE;
            snprintf(what, sizeof what, "quick modes 0x%x Fs=%d", modes[m], fs);
            synthetic(&cfg, 0, what);
        }
    static const char *const tuned[] = {"420", "444", "rgb"};
    for (size_t f = 0; f < 3; f++) {
        xs_encoder_config cfg;
        xs_encoder_config_init(&cfg);
        set_format(&cfg, tuned[f], 136, 40, 10);
        cfg.tune = XS_TUNE_VISUAL;
        cfg.qpih = 1;
        cfg.bpp = 3;
        snprintf(what, sizeof what, "quick %s visual tune", tuned[f]);
        synthetic(&cfg, 0, what);
    }
    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    set_format(&cfg, "rgb", 70, 20, 12);
    cfg.lossless = 1;
    synthetic(&cfg, 0, "quick RGB lossless");
    xs_encoder_config_init(&cfg);
    set_format(&cfg, "4444", 64, 16, 10);
    cfg.sd = 1;
    cfg.tnlt = 1;
    cfg.nlt_alpha = 20;
    cfg.bpp = 12;
    synthetic(&cfg, 0, "quick CWD + NLT");
    xs_encoder_config_init(&cfg);
    set_format(&cfg, "444", 48, 16, 8);
    cfg.bpp = 0.05;
    synthetic(&cfg, 0, "quick refused target");
}

/* Arguments: the vectors folder; --quick (the sanitizer set); --only NAME
 * (matrix, tools, special, device, photograph, uhd) to run one part. */
int main(int argc, char **argv)
{
    const char *only = NULL;
    vectors_dir = "vectors/xs";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            only = "quick";
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else
            vectors_dir = argv[i];
    }
    if (xs_gpu_available() != XSF_OK) {
        printf("no usable GPU (or no CUDA in this build): skipped\n");
        return XSF_TEST_SKIP;
    }
    static const struct {
        const char *name;
        void (*run)(void);
        int in_full;
    } parts[] = {{"quick", test_quick, 0},
                 {"matrix", test_matrix, 1},
                 {"tools", test_tools, 1},
                 {"special", test_special, 1},
                 {"device", test_device_input, 1},
                 {"photograph", test_photograph, 1},
                 {"uhd", test_uhd, 1}};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (only ? !strcmp(only, parts[i].name) ||
                       (!strcmp(only, "quick") && !strcmp(parts[i].name, "device"))
                 : parts[i].in_full)
            parts[i].run();
    return xsf_test_finish();
}
