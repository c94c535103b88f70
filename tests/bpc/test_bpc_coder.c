/* The code-block coder alone (bpc/codeblock.c), every variant: lossless
 * round trips of random and structured blocks of every awkward size,
 * decoding at every truncation point (the reconstruction interval holds the
 * value, the codewords used are exactly the recorded ones), the distortion
 * of each pass against the error measured on the decoded blocks, and the
 * errors of short, long and odd data. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "bpc.h"
#include "bpc_internal.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

/* Laplacian-like wavelet coefficients with some structure, or uniform noise. */
static void fill(int32_t *c, int w, int h, int kind, int maxbits)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int32_t v;
            if (kind == 0) { /* uniform */
                v = (int32_t)(rnd() & ((1u << maxbits) - 1));
            } else if (kind == 1) { /* geometric magnitudes */
                int b = 0;
                while (b < maxbits && (rnd() & 3))
                    b++;
                v = b ? (int32_t)((rnd() & ((1u << b) - 1)) | (1u << (b - 1))) : 0;
                if (b > 3 && (rnd() & 1))
                    v = 0;
            } else if (kind == 2) { /* an edge plus noise */
                v = (x > w / 3 && x < w / 3 + 3) ? (1 << (maxbits - 1)) : (int32_t)(rnd() % 5);
            } else { /* sparse */
                v = (rnd() % 97 == 0) ? (int32_t)(rnd() & ((1u << maxbits) - 1)) : 0;
            }
            if (rnd() & 1)
                v = -v;
            c[y * 64 + x] = v;
        }
}

static int check_block(bpc_variant var, const bpc_band_probs *probs, const int32_t *coef, int w,
                       int h, const char *what)
{
    static uint8_t buf[1 << 20];
    static int32_t rec[64 * 64];
    bpc_codeblock_result res;
    xsf_error err;
    xsf_error_clear(&err);
    int planes = 0;
    for (int i = 0; i < h; i++)
        for (int x = 0; x < w; x++) {
            const int32_t v = coef[i * 64 + x];
            const uint32_t m = v < 0 ? (uint32_t)-v : (uint32_t)v;
            while (planes < 32 && (m >> planes))
                planes++;
        }
    const size_t cap = bpc_codeblock_bound(w, h, planes);
    memset(buf, 0xa5, sizeof buf);
    xsf_status s = bpc_codeblock_encode(var, probs, coef, 64, w, h, buf, cap, &res, &err);
    CHECK(s == XSF_OK, "%s: encode: %s", what, err.msg);
    if (s)
        return 1;
    CHECK(res.planes == planes, "%s: %d planes, expected %d", what, res.planes, planes);
    CHECK(res.passes == bpc_pass_count(var, planes), "%s: %d passes", what, res.passes);
    const uint32_t total = res.passes ? res.pass_codewords[res.passes - 1] : 0;
    CHECK((size_t)total * 2 <= cap, "%s: %u codewords beyond the bound %zu", what, total, cap);
    for (int k = 1; k < res.passes; k++)
        CHECK(res.pass_codewords[k] >= res.pass_codewords[k - 1], "%s: pass %d shrinks", what, k);

    /* every truncation point, the last included */
    double prev_err = 0;
    int bad = 0;
    for (int k = 0; k <= res.passes && !bad; k++) {
        const uint32_t cw = k ? res.pass_codewords[k - 1] : 0;
        s = bpc_codeblock_decode(var, probs, buf, 2 * (size_t)cw, planes, k, rec, 64, w, h, &err);
        CHECK(s == XSF_OK, "%s: decode %d passes: %s", what, k, err.msg);
        if (s)
            return 1;
        double e = 0;
        int last = planes,
            type = 3; /* after SIG, CP or ONE every coefficient is known to plane `last` */
        if (k)
            bpc_pass_at((int)var, planes, k - 1, &last, &type);
        for (int y = 0; y < h && !bad; y++)
            for (int x = 0; x < w; x++) {
                const int32_t v = coef[y * 64 + x], r = rec[y * 64 + x];
                const double av = fabs((double)v) + 0.5, ar = fabs((double)r) / 2;
                e += (av - ar) * (av - ar);
                if (k == res.passes && r != (v ? (v < 0 ? -(2 * -v + 1) : 2 * v + 1) : 0)) {
                    CHECK(0, "%s: lossless (%d,%d): %d decoded as %d/2", what, y, x, v, r);
                    bad = 1;
                    break;
                }
                if (r && ((r < 0) != (v < 0))) {
                    CHECK(0, "%s: %d passes (%d,%d): sign of %d decoded as %d", what, k, y, x, v,
                          r);
                    bad = 1;
                    break;
                }
                /* known down to bitplane p: |v| in [(|r| - 2^p)/2, (|r| + 2^p)/2) */
                const uint32_t m = v < 0 ? (uint32_t)-v : (uint32_t)v, ar2 = (uint32_t)abs(r);
                if (r) {
                    const uint32_t half = ar2 & (0u - ar2); /* 2^p: the lowest set bit */
                    if (!(2 * m + half >= ar2 && 2 * m < ar2 + half)) {
                        CHECK(0, "%s: %d passes (%d,%d): %d outside %d/2 +- %u/2", what, k, y, x, v,
                              r, half);
                        bad = 1;
                        break;
                    }
                } else if (m >> (last + (type == 2 || type == 3 || type == 4 || k == 0 ? 0 : 1))) {
                    CHECK(0, "%s: %d passes (%d,%d): %d decoded as 0 below plane %d", what, k, y, x,
                          v, last);
                    bad = 1;
                    break;
                }
            }
        if (k > 0) {
            /* the pass' distortion against the measured error change */
            const double model =
                (double)res.pass_distortion[k - 1] * ldexp(1.0, 2 * last - 2 * BPC_DIST_FRAC);
            const double measured = prev_err - e;
            const double tol = 1e-6 + 0.02 * fabs(measured) +
                               (double)w * h * ldexp(1.0, 2 * last - BPC_DIST_FRAC + 2);
            if (fabs(model - measured) > tol) {
                CHECK(0, "%s: pass %d distortion %g, measured %g", what, k - 1, model, measured);
                bad = 1;
            }
        }
        prev_err = e;
    }
    /* one codeword short, one too many, an odd length */
    if (total > 0) {
        s = bpc_codeblock_decode(var, probs, buf, 2 * (size_t)total - 2, planes, res.passes, rec,
                                 64, w, h, &err);
        CHECK(s == XSF_ERR_TRUNCATED, "%s: short data gives %d", what, (int)s);
    }
    s = bpc_codeblock_decode(var, probs, buf, 2 * (size_t)total + 2, planes, res.passes, rec, 64, w,
                             h, &err);
    CHECK(s == XSF_ERR_INVALID, "%s: long data gives %d", what, (int)s);
    s = bpc_codeblock_decode(var, probs, buf, 2 * (size_t)total + 1, planes, res.passes, rec, 64, w,
                             h, &err);
    CHECK(s == XSF_ERR_INVALID, "%s: odd data gives %d", what, (int)s);
    return bad;
}

/* Corrupt codewords never crash and never read beyond the data. */
static void corrupt(bpc_variant var, const bpc_band_probs *probs)
{
    int32_t coef[64 * 64];
    static uint8_t buf[1 << 18];
    static int32_t rec[64 * 64];
    fill(coef, 64, 64, 1, 10);
    bpc_codeblock_result res;
    xsf_error err;
    xsf_error_clear(&err);
    if (bpc_codeblock_encode(var, probs, coef, 64, 64, 64, buf, sizeof buf, &res, &err))
        return;
    const size_t len = 2 * (size_t)res.pass_codewords[res.passes - 1];
    int ok = 0, failed = 0;
    for (int i = 0; i < 200; i++) {
        uint8_t *copy = malloc(len);
        memcpy(copy, buf, len);
        copy[rnd() % len] ^= (uint8_t)(1u << (rnd() % 8));
        const xsf_status s = bpc_codeblock_decode(var, probs, copy, len, res.planes, res.passes,
                                                  rec, 64, 64, 64, &err);
        s ? failed++ : ok++;
        free(copy);
    }
    CHECK(ok + failed == 200, "corrupt decodes");
}

int main(void)
{
    static int32_t coef[64 * 64];
    const int sizes[][2] = {{64, 64}, {1, 1},   {1, 64},  {64, 1}, {2, 2},   {3, 5},
                            {17, 33}, {63, 64}, {64, 63}, {33, 2}, {31, 47}, {62, 61}};
    for (int v = 1; v <= 3; v++)
        for (int f = 0; f < 2; f++) {
            const bpc_variant var = (bpc_variant)v;
            const bpc_tables *t = bpc_tables_builtin(f);
            for (int lev = 0; lev <= 2; lev++)
                for (int o = lev ? 1 : 0; o < 4; o += 2) {
                    const bpc_band_probs probs = bpc_tables_band(t, var, lev, o, f ? 0 : -2);
                    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
                        for (int kind = 0; kind < 4; kind++) {
                            const int w = sizes[i][0], h = sizes[i][1];
                            const int maxbits = 1 + (int)(rnd() % 14);
                            char what[96];
                            snprintf(what, sizeof what, "%d passes %dx%d kind %d bits %d", v, w, h,
                                     kind, maxbits);
                            fill(coef, w, h, kind, maxbits);
                            check_block(var, &probs, coef, w, h, what);
                        }
                }
            /* all zero; the largest magnitudes */
            const bpc_band_probs probs = bpc_tables_band(t, var, 1, 3, 0);
            memset(coef, 0, sizeof coef);
            check_block(var, &probs, coef, 64, 64, "zero");
            for (int i = 0; i < 64 * 64; i++)
                coef[i] = (int32_t)(rnd() & ((1u << BPC_MAX_PLANES) - 1)) * ((i & 1) ? -1 : 1);
            check_block(var, &probs, coef, 64, 64, "28 planes");
            coef[5] = 1 << BPC_MAX_PLANES;
            bpc_codeblock_result res;
            static uint8_t buf[1 << 20];
            xsf_error err;
            CHECK(bpc_codeblock_encode(var, &probs, coef, 64, 64, 64, buf, sizeof buf, &res,
                                       &err) == XSF_ERR_ARG,
                  "29 planes refused");
            corrupt(var, &probs);
        }
    return xsf_test_finish();
}
