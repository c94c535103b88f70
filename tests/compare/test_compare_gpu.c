/* compare/ on the GPU: the CUDA codecs give the rows of the C references
 * (same bytes, PSNR, SSIM: the codestreams and pictures are bit-exact),
 * every GPU-decoded picture is checked against the C reference decoder,
 * and both timings (kernels, transfers) are present. Exits 77 (skipped)
 * without a usable GPU. Argument "quick": fewer rates. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "test.h"

static int same(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

int main(int argc, char **argv)
{
    if (cmp_gpu_available() != XSF_OK) {
        printf("no usable GPU (or no CUDA kernels in this build): skipped\n");
        return XSF_TEST_SKIP;
    }
    static const double all_rates[] = {0.5, 1, 2, 4, 8, 0}, quick_rates[] = {1, 0};
    const int quick = argc > 1 && !strcmp(argv[1], "quick");
    const double *rates = quick ? quick_rates : all_rates;
    const size_t nrates = quick ? 2 : sizeof all_rates / sizeof all_rates[0];
    xsf_error err;
    xsf_error_clear(&err);
    xsf_picture pics[3];
    static const char *const names[3] = {"rgb8", "grey12", "rgb10-odd"};
    static const int rgb[3] = {1, 0, 1};
    CHECK(cmp_synthetic_picture(&pics[0], 640, 360, 3, 8, &err) == XSF_OK, "%s", err.msg);
    CHECK(cmp_synthetic_picture(&pics[1], 512, 300, 1, 12, &err) == XSF_OK, "%s", err.msg);
    CHECK(cmp_synthetic_picture(&pics[2], 333, 211, 3, 10, &err) == XSF_OK, "%s", err.msg);
    cmp_session *cpu = NULL, *gpu = NULL;
    cmp_options o = {.rates = rates, .nrates = nrates, .path = CMP_PATH_CPU, .time_ms = 0};
    CHECK(cmp_session_create(&cpu, &o, &err) == XSF_OK, "CPU session: %s", err.msg);
    o.path = CMP_PATH_GPU;
    o.time_ms = 5;
    CHECK(cmp_session_create(&gpu, &o, &err) == XSF_OK, "GPU session: %s", err.msg);
    if (!cpu || !gpu)
        return xsf_test_finish();
    for (int p = 0; p < 3; p++) {
        CHECK(cmp_session_add_picture(cpu, names[p], &pics[p], rgb[p]) == XSF_OK, "CPU %s: %s",
              names[p], cmp_session_error(cpu));
        CHECK(cmp_session_add_picture(gpu, names[p], &pics[p], rgb[p]) == XSF_OK, "GPU %s: %s",
              names[p], cmp_session_error(gpu));
    }
    CHECK(cmp_session_rows(gpu) == 2 * cmp_session_rows(cpu), "GPU rows %zu, CPU rows %zu",
          cmp_session_rows(gpu), cmp_session_rows(cpu));
    for (size_t i = 0; i < cmp_session_rows(cpu); i++) {
        const cmp_row *c = cmp_session_row(cpu, i);
        for (int k = 0; k < 2; k++) {
            const cmp_row *g = cmp_session_row(gpu, 2 * i + k);
            if (!g)
                break;
            CHECK(!strcmp(g->picture, c->picture) && g->variant == c->variant &&
                      g->bpp_target == c->bpp_target,
                  "row order");
            CHECK(g->timing == (k ? CMP_TIMING_TRANSFERS : CMP_TIMING_KERNELS) &&
                      g->path == CMP_PATH_GPU,
                  "timing kind");
            CHECK(g->coded == c->coded, "%s %s-%s %g: coded %d on the GPU, %d in C (%s)",
                  c->picture, cmp_variant_codec(c->variant), cmp_variant_name(c->variant),
                  c->bpp_target, g->coded, c->coded, g->note);
            if (!g->coded || !c->coded)
                continue;
            CHECK(g->checked == 1, "GPU picture checked against the C decoder");
            CHECK(g->bytes == c->bytes && same(g->qstep, c->qstep),
                  "%s %s-%s %g: %zu bytes (step %g) on the GPU, %zu (step %g) in C", c->picture,
                  cmp_variant_codec(c->variant), cmp_variant_name(c->variant), c->bpp_target,
                  g->bytes, g->qstep, c->bytes, c->qstep);
            CHECK(same(g->psnr_all, c->psnr_all) && same(g->ssim, c->ssim) && g->exact == c->exact,
                  "%s %s-%s %g: PSNR %.4f SSIM %.6f on the GPU, %.4f %.6f in C", c->picture,
                  cmp_variant_codec(c->variant), cmp_variant_name(c->variant), c->bpp_target,
                  g->psnr_all, g->ssim, c->psnr_all, c->ssim);
            for (int n = 0; n < CMP_MAX_COMPONENTS; n++)
                CHECK(same(g->psnr[n], c->psnr[n]), "component %d PSNR", n);
            CHECK(g->enc_fps > 0 && g->dec_fps > 0 && g->enc_runs >= 1 && g->dec_runs >= 1,
                  "GPU timings");
        }
    }
    for (int p = 0; p < 3; p++)
        cmp_picture_free(&pics[p]);
    cmp_session_destroy(cpu);
    cmp_session_destroy(gpu);
    return xsf_test_finish();
}
