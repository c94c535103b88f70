/* The GPU decoder on the project's own codestreams: the C encoder writes
 * streams with every coding tool and format (including those no third-party
 * vector covers: 4:0:0, 4 components, RCT, NLT, CWD, precinct columns, raw
 * counts, long headers, lossless), and the GPU decoder must give the C
 * decoder's samples exactly. Without a GPU only the C half runs (encode,
 * decode, lossless exactness): its failures still fail the test, but a pass
 * is reported as a skip (77), since what the test is named for did not run. */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "xs.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

/* A picture with edges, gradients and noise, so every band carries data. */
static void fill(xsf_picture *img, const xs_encoder_config *cfg)
{
    img->fmt.nc = cfg->nc;
    for (int c = 0; c < cfg->nc; c++) {
        const int w = cfg->width / cfg->sx[c], h = cfg->height / cfg->sy[c];
        const int maxv = (1 << cfg->depth[c]) - 1;
        img->fmt.width[c] = w;
        img->fmt.height[c] = h;
        img->fmt.depth[c] = cfg->depth[c];
        img->stride[c] = ((size_t)w) * sizeof(uint16_t);
        img->data[c] = (uint8_t *)(malloc((size_t)w * h * sizeof(uint16_t)));
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int v = (x * maxv) / (w > 1 ? w - 1 : 1) / 2 +
                        ((x / 9 + y / 7) % 3 == 0 ? maxv / 3 : 0);
                v += (int)(rnd() % (unsigned)(maxv / 16 + 1)) - maxv / 32 + c * 17;
                ((uint16_t *)img->data[c])[(size_t)y * w + x] =
                    (uint16_t)(v < 0 ? 0 : (v > maxv ? maxv : v));
            }
    }
}

typedef struct variant {
    const char *name;
    const char *sampling;
    int width, height, depth;
    double bpp;
    void (*tweak)(xs_encoder_config *cfg);
} variant;

static void t_none(xs_encoder_config *c)
{
    (void)c;
}
static void t_rct(xs_encoder_config *c)
{
    c->cpih = 1;
}
static void t_nlt_quadratic(xs_encoder_config *c)
{
    c->tnlt = 1;
    c->nlt_sigma = 0;
    c->nlt_alpha = 0;
}
static void t_nlt_extended(xs_encoder_config *c)
{
    c->tnlt = 2;
    c->nlt_t1 = 1u << 17;
    c->nlt_t2 = 3u << 18;
    c->nlt_e = 3;
}
static void t_cwd(xs_encoder_config *c)
{
    c->sd = 1;
}
static void t_raw_only(xs_encoder_config *c)
{
    c->gcli_modes = XS_GCLI_RAW | XS_GCLI_NOPRED;
}
static void t_vpred_sig_rm1(xs_encoder_config *c)
{
    c->gcli_modes = XS_GCLI_NOPRED | XS_GCLI_VPRED | XS_GCLI_SIGFLAGS;
    c->rm = 1;
}
static void t_vpred_sig_rm0(xs_encoder_config *c)
{
    c->gcli_modes = XS_GCLI_NOPRED | XS_GCLI_VPRED | XS_GCLI_SIGFLAGS;
    c->rm = 0;
}
static void t_uniform_nosignpack(xs_encoder_config *c)
{
    c->qpih = 1;
    c->fs = 0;
}
static void t_columns(xs_encoder_config *c)
{
    c->cw = 1;
}
static void t_long_headers(xs_encoder_config *c)
{
    c->long_headers = 1;
}
static void t_lossless(xs_encoder_config *c)
{
    c->lossless = 1;
}
static void t_nly0_nlx8(xs_encoder_config *c)
{
    c->nly = 0;
    c->nlx = 8;
}
static void t_nly2_nlx3(xs_encoder_config *c)
{
    c->nly = 2;
    c->nlx = 3;
}
static void t_precinct_rc(xs_encoder_config *c)
{
    c->rate_control = XS_RC_PRECINCT;
    c->slice_lines = 8;
}

static const variant variants[] = {
    {"400 8-bit", "400", 256, 64, 8, 3, t_none},
    {"420 10-bit", "420", 256, 64, 10, 3, t_none},
    {"422 12-bit", "422", 320, 72, 12, 4, t_none},
    {"444 16-bit", "444", 128, 48, 16, 8, t_none},
    {"4444 10-bit", "4444", 128, 32, 10, 6, t_none},
    {"RCT", "444", 192, 64, 10, 5, t_rct},
    {"NLT quadratic", "422", 192, 64, 10, 4, t_nlt_quadratic},
    {"NLT extended", "444", 192, 64, 12, 6, t_nlt_extended},
    {"CWD Sd=1", "444", 192, 64, 10, 5, t_cwd},
    {"raw counts", "422", 256, 64, 10, 3, t_raw_only},
    {"vpred+sigflags Rm=1", "444", 256, 64, 10, 2, t_vpred_sig_rm1},
    {"vpred+sigflags Rm=0", "422", 256, 64, 10, 2, t_vpred_sig_rm0},
    {"uniform, signs inline", "422", 256, 64, 10, 3, t_uniform_nosignpack},
    {"precinct columns", "422", 1024, 32, 10, 3, t_columns},
    {"long headers", "444", 160, 48, 12, 4, t_long_headers},
    {"lossless", "444", 128, 40, 10, 0, t_lossless},
    {"NLy0 NLx8", "422", 1024, 24, 10, 3, t_nly0_nlx8},
    {"NLy2 NLx3 odd", "444", 130, 37, 10, 3, t_nly2_nlx3},
    {"precinct CBR", "422", 256, 64, 10, 2, t_precinct_rc},
};

int main(void)
{
    const int gpu = xs_gpu_available() == XSF_OK;
    if (!gpu)
        printf(
            "no GPU: only the C encoder and decoder are checked; the GPU comparison is skipped\n");
    cudaStream_t stream = NULL;
    xs_gpu_decoder *g = NULL;
    xs_decoder *c = NULL;
    if (gpu) {
        cudaStreamCreate(&stream);
        CHECK(xs_gpu_decoder_create(&g, 0, stream, NULL) == XSF_OK,
              "cannot create the GPU decoder");
    }
    CHECK(xs_decoder_create(&c, NULL) == XSF_OK, "cannot create the C decoder");
    if ((gpu && !g) || !c)
        return xsf_test_finish();
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        const variant *vt = &variants[v];
        xs_encoder_config cfg;
        xs_encoder_config_init(&cfg);
        xsf_error err = {0};
        if (xs_encoder_config_format(&cfg, vt->sampling, vt->width, vt->height, vt->depth) !=
            XSF_OK) {
            CHECK(0, "%s: bad format", vt->name);
            continue;
        }
        cfg.bpp = vt->bpp;
        vt->tweak(&cfg);
        xs_encoder *enc = NULL;
        if (xs_encoder_create(&enc, &cfg, &err) != XSF_OK) {
            CHECK(0, "%s: encoder refused the settings: %s", vt->name, err.msg);
            continue;
        }
        xsf_picture pic;
        memset(&pic, 0, sizeof pic);
        fill(&pic, &cfg);
        const size_t cap = xs_encoder_max_bytes(enc);
        uint8_t *cs = NULL;
        size_t len = 0;
        if (gpu ? cudaMallocHost((void **)&cs, cap) != cudaSuccess : !(cs = malloc(cap)))
            return 1;
        CHECK(xs_encode(enc, &pic, cs, cap, &len) == XSF_OK, "%s: %s", vt->name,
              xs_encoder_error(enc));
        size_t used_c = 0, used_g = 0;
        const xsf_picture *img = NULL;
        CHECK(xs_decode(c, cs, len, &used_c, &img) == XSF_OK, "%s: C decoder: %s", vt->name,
              xs_decoder_error(c));
        uint16_t *planes[XS_MAX_COMPONENTS] = {0};
        if (img) {
            for (int k = 0; k < img->fmt.nc; k++)
                planes[k] =
                    calloc((size_t)img->fmt.width[k] * img->fmt.height[k], sizeof(uint16_t));
            int same = 1;
            if (gpu) {
                CHECK(xs_gpu_decode(g, cs, len, &used_g) == XSF_OK &&
                          xs_gpu_download(g, planes, 1) == XSF_OK,
                      "%s: GPU decoder: %s", vt->name, xs_gpu_decoder_error(g));
                same = used_c == used_g;
                for (int k = 0; k < img->fmt.nc && same; k++)
                    same = !memcmp(planes[k], img->data[k],
                                   (size_t)img->fmt.width[k] * img->fmt.height[k] * 2);
                CHECK(same, "%s: the GPU decoder's picture differs from the C decoder's", vt->name);
            }
            if (cfg.lossless) {
                int exact = 1;
                for (int k = 0; k < img->fmt.nc; k++)
                    exact &= !memcmp(pic.data[k], img->data[k],
                                     (size_t)img->fmt.width[k] * img->fmt.height[k] * 2);
                CHECK(exact, "%s: not lossless", vt->name);
            }
            printf("%-24s %7zu bytes: %s\n", vt->name, len,
                   !gpu   ? "C decoded"
                   : same ? "GPU == C"
                          : "GPU != C");
        }
        for (int k = 0; k < XS_MAX_COMPONENTS; k++) {
            free(planes[k]);
            free(pic.data[k]);
        }
        if (gpu)
            cudaFreeHost(cs);
        else
            free(cs);
        xs_encoder_destroy(enc);
    }
    xs_gpu_decoder_destroy(g);
    xs_decoder_destroy(c);
    if (stream)
        cudaStreamDestroy(stream);
    if (!gpu && !xsf_test_failed) {
        printf("skipped: no GPU (the C encoder and decoder half passed)\n");
        return XSF_TEST_SKIP;
    }
    return xsf_test_finish();
}
