/* C reference of wavelet/: hand-checked 5/3 vectors, an independent oracle
 * (lifting over an explicitly mirrored copy of each line, in float64; the 9/7
 * forward also against the analysis filters of 15444-1 as convolutions),
 * perfect reconstruction, pitch/planes handling and argument checks, at every
 * size from 1x1 to 19x19, awkward medium sizes and 8193x4321; the incremental
 * inverse's final rows (wav_inverse_rows_final) against the whole inverse of
 * coefficients whose non-final part is garbage. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "wav_test_data.h"
#include "wavelet.h"

/* ---- oracle: whole-sample symmetric extension made explicit ---- */

static size_t fold(long i, size_t n)
{
    if (n == 1)
        return 0;
    const long p = 2 * (long)(n - 1);
    i %= p;
    if (i < 0)
        i += p;
    return (size_t)i < n ? (size_t)i : (size_t)(p - i);
}

#define EXT 12 /* mirrored samples each side: more than any filter reaches */

/* One lifting step over the extended line: positions of parity `parity`
 * (relative to sample 0) get x += f(left, right). */
static void oracle_step(double *e, size_t len, int parity, int kind, double c)
{
    for (size_t k = 1; k + 1 < len; k++) {
        if ((int)((k + EXT) & 1) != parity)
            continue;
        const double s = e[k - 1] + e[k + 1];
        switch (kind) {
        case 0: e[k] -= floor(s / 2); break;       /* 5/3 predict */
        case 1: e[k] += floor((s + 2) / 4); break; /* 5/3 update */
        case 2: e[k] += floor(s / 2); break;       /* 5/3 inverse predict */
        case 3: e[k] -= floor((s + 2) / 4); break; /* 5/3 inverse update */
        default: e[k] += c * s; break;             /* 9/7 */
        }
    }
}

static const double A97[4] = {-1.586134342059924, -0.052980118572961, 0.882911075530934,
                              0.443506852043971};
static const double K97 = 1.230174104914001;

static void oracle_line(double *x, size_t n, wav_filter f, int inverse)
{
    if (n < 2)
        return;
    const size_t len = n + 2 * EXT;
    double *e = malloc(len * sizeof *e);
    for (size_t k = 0; k < len; k++)
        e[k] = x[fold((long)k - EXT, n)];
    if (f == WAV_FILTER_53) {
        if (!inverse) {
            oracle_step(e, len, 1, 0, 0);
            oracle_step(e, len, 0, 1, 0);
        } else {
            oracle_step(e, len, 0, 3, 0);
            oracle_step(e, len, 1, 2, 0);
        }
    } else if (!inverse) {
        for (int s = 0; s < 4; s++)
            oracle_step(e, len, (s & 1) ? 0 : 1, 4, A97[s]);
        for (size_t k = 0; k < len; k++)
            e[k] *= ((k + EXT) & 1) ? K97 : 1.0 / K97;
    } else {
        for (size_t k = 0; k < len; k++)
            e[k] *= ((k + EXT) & 1) ? 1.0 / K97 : K97;
        for (int s = 3; s >= 0; s--)
            oracle_step(e, len, (s & 1) ? 0 : 1, 4, -A97[s]);
    }
    for (size_t i = 0; i < n; i++)
        x[i] = e[i + EXT];
    free(e);
}

/* 15444-1 Table F.4-style analysis filters of the 9/7 (JPEG 2000 normalization). */
static void oracle97_convolve(const double *x, double *y, size_t n)
{
    static const double lo[5] = {0.6029490182363579, 0.2668641184428723, -0.07822326652898785,
                                 -0.01686411844287495, 0.02674875741080976};
    static const double hi[4] = {1.115087052456994, -0.5912717631142470, -0.05754352622849957,
                                 0.09127176311424948};
    for (size_t i = 0; i < n; i++) {
        double s = 0;
        if ((i & 1) == 0)
            for (int k = -4; k <= 4; k++)
                s += lo[abs(k)] * x[fold((long)i + k, n)];
        else
            for (int k = -3; k <= 3; k++)
                s += hi[abs(k)] * x[fold((long)i + k, n)];
        y[i] = s;
    }
}

/* Multi-level 2D oracle on a compact w x h plane of doubles. */
static void oracle_2d(double *a, const wav_plan_desc *d, int inverse)
{
    const size_t W = d->width;
    double *line = malloc((d->width > d->height ? d->width : d->height) * sizeof *line);
    for (int i = 0; i < d->levels_h; i++) {
        const int l = inverse ? d->levels_h - i : i + 1;
        size_t w, h;
        wav_level_input_size(d, l, &w, &h);
        for (int pass = 0; pass < 2; pass++) {
            const int vertical = (pass == 0) != (inverse != 0);
            if (vertical && l > d->levels_v)
                continue;
            const size_t lines = vertical ? w : h, n = vertical ? h : w, half = (n + 1) / 2;
            for (size_t j = 0; j < lines; j++) {
                double *base = vertical ? a + j : a + j * W;
                const size_t st = vertical ? W : 1;
                for (size_t k = 0; k < n; k++) /* Mallat -> interleaved for the inverse */
                    line[k] = inverse ? base[((k & 1) ? half + k / 2 : k / 2) * st] : base[k * st];
                oracle_line(line, n, d->filter, inverse);
                for (size_t k = 0; k < n; k++)
                    base[(inverse ? k : ((k & 1) ? half + k / 2 : k / 2)) * st] = line[k];
            }
        }
    }
    free(line);
}

/* ---- helpers ---- */

static wav_rng rng = {0x9E3779B97F4A7C15ull};

static void fill(int32_t *x, size_t w, size_t h, int photo, int32_t range)
{
    for (size_t y = 0; y < h; y++)
        for (size_t i = 0; i < w; i++)
            x[y * w + i] = photo ? wav_photo_sample(&rng, i, y, w, h) : wav_rng_range(&rng, range);
}

static wav_plan *make_plan(size_t w, size_t h, wav_filter f, int lv, int lh)
{
    wav_plan_desc d = {.width = w,
                       .height = h,
                       .pitch = w,
                       .planes = 1,
                       .plane_stride = w * h,
                       .filter = f,
                       .sample = f == WAV_FILTER_53 ? WAV_INT32 : WAV_FLOAT32,
                       .levels_v = lv,
                       .levels_h = lh};
    wav_plan *p = NULL;
    xsf_error err = {0};
    xsf_status st = wav_plan_create(&p, &d, &err);
    CHECK(st == XSF_OK, "plan %zux%zu v%d h%d: %s", w, h, lv, lh, err.msg);
    return p;
}

static void count_pair(void *ctx, size_t k)
{
    ((unsigned char *)ctx)[k]++;
}

/* Rows of a plane (width, samples, row pitch): odd rows copied into the
 * buffer, even ones pointed at, as a caller may do either. */
typedef struct plane_rows {
    const int32_t *x;
    size_t w, pitch;
} plane_rows;

static const int32_t *plane_row(void *ctx, size_t y, int32_t *buf)
{
    const plane_rows *p = ctx;
    if (y % 2 == 0)
        return p->x + y * p->pitch;
    memcpy(buf, p->x + y * p->pitch, p->w * sizeof *buf);
    return buf;
}

/* The forward transform as a caller in parts does it: the levels that
 * split rows from row sources (wav_forward_level_part, level 1 from the
 * picture, each next one from the low band the one before left in a buffer
 * of its own; pairs in parts of 1-3 from the last, each pair's callback
 * once), the last of them finishing the horizontal levels after it; where
 * no level splits rows, every level with wav_forward_part. 1 where it
 * differs from `ref` (wav_forward's). */
static int check53_parts(wav_plan *p, const int32_t *x, const int32_t *ref)
{
    const wav_plan_desc *d = wav_plan_get_desc(p);
    const size_t n = d->width * d->height;
    int32_t *y = malloc(n * 4), *scratch = malloc(wav_part_scratch(d) * 4);
    int32_t *ll[2] = {malloc(n * 4), malloc(n * 4)};
    unsigned char *calls = calloc(d->height + 1, 1);
    int bad = 0;
    memset(y, 0x5a, n * 4);
    if (d->levels_v < 1) {
        bad += wav_forward_level_pairs(p, 1) != 0;
        memcpy(y, x, n * 4);
        for (int l = 1; l <= d->levels_h; l++) {
            const size_t parts = wav_forward_part_count(p, l, 0);
            for (size_t i = 0; i < parts; i++)
                wav_forward_part(p, y, l, 0, i, 1, scratch);
        }
    }
    plane_rows rows = {x, d->width, d->width};
    for (int l = 1; l <= d->levels_v; l++) {
        size_t w, h;
        wav_level_input_size(d, l, &w, &h);
        const size_t pairs = wav_forward_level_pairs(p, l), wl = (w + 1) / 2;
        bad += pairs != (h + 1) / 2;
        memset(calls, 0, d->height + 1);
        int32_t *to = ll[l % 2];
        for (size_t end = pairs; end > 0;) {
            const size_t count = 1 + (end * 7) % 3 < end ? 1 + (end * 7) % 3 : end;
            const size_t first = end - count;
            wav_forward_level_part(p, l, plane_row, &rows, y + first * d->pitch,
                                   y + ((h + 1) / 2 + first) * d->pitch, d->pitch, to + first * wl,
                                   wl, first, count, scratch, count_pair, calls);
            end -= count;
        }
        for (size_t k = 0; k < pairs; k++)
            bad += calls[k] != 1;
        rows = (plane_rows){to, wl, wl};
    }
    bad += memcmp(y, ref, n * 4) != 0;
    free(y);
    free(scratch);
    free(ll[0]);
    free(ll[1]);
    free(calls);
    return bad;
}

/* The inverse transform as a caller in parts does it (wav_inverse_part: each
 * step's parts in groups of 1-3 from the last, as threads may take them);
 * 1 where it differs from wav_inverse's on the same coefficients `x`. */
static int check_inverse_parts(wav_plan *p, const void *x)
{
    const wav_plan_desc *d = wav_plan_get_desc(p);
    const size_t n = d->width * d->height;
    int32_t *ref = malloc(n * 4), *y = malloc(n * 4), *scratch = malloc(wav_part_scratch(d) * 4);
    memcpy(ref, x, n * 4);
    memcpy(y, x, n * 4);
    wav_inverse(p, ref);
    for (int l = d->levels_h; l >= 1; l--)
        for (int v = 0; v <= 1; v++)
            for (size_t end = wav_inverse_part_count(p, l, v); end > 0;) {
                const size_t count = 1 + (end * 5) % 3 < end ? 1 + (end * 5) % 3 : end;
                wav_inverse_part(p, y, l, v, end - count, count, scratch);
                end -= count;
            }
    const int bad = memcmp(y, ref, n * 4) != 0;
    free(ref);
    free(y);
    free(scratch);
    return bad;
}

/* 5/3 at one size and level pair: forward == oracle, inverse == oracle on
 * random coefficients, inverse(forward(x)) == x, the forward in parts (level
 * 1 out of place) == the forward. Returns failures. */
static int check53(size_t w, size_t h, int lv, int lh, int photo)
{
    const size_t n = w * h;
    int32_t *x = malloc(n * 4), *y = malloc(n * 4);
    double *o = malloc(n * sizeof *o);
    wav_plan *p = make_plan(w, h, WAV_FILTER_53, lv, lh);
    int bad = 0;
    if (!p)
        return 1;
    fill(x, w, h, photo, 1 << 20);
    for (size_t i = 0; i < n; i++)
        o[i] = x[i];
    memcpy(y, x, n * 4);
    wav_forward(p, y);
    oracle_2d(o, wav_plan_get_desc(p), 0);
    for (size_t i = 0; i < n && !bad; i++)
        bad += (double)y[i] != o[i];
    bad += check53_parts(p, x, y);
    wav_inverse(p, y);
    bad += memcmp(x, y, n * 4) != 0;
    fill(x, w, h, 0, 1 << 20); /* arbitrary coefficients */
    bad += check_inverse_parts(p, x);
    for (size_t i = 0; i < n; i++)
        o[i] = x[i];
    wav_inverse(p, x);
    oracle_2d(o, wav_plan_get_desc(p), 1);
    for (size_t i = 0; i < n && !bad; i++)
        bad += (double)x[i] != o[i];
    wav_plan_destroy(p);
    free(x);
    free(y);
    free(o);
    return bad;
}

/* 9/7: forward and inverse against the float64 oracle, reconstruction, all
 * relative to the largest magnitude involved. Returns the worst error. */
static double check97(size_t w, size_t h, int lv, int lh)
{
    const size_t n = w * h;
    int32_t *s = malloc(n * 4);
    float *x = malloc(n * 4), *y = malloc(n * 4);
    double *o = malloc(n * sizeof *o);
    wav_plan *p = make_plan(w, h, WAV_FILTER_97, lv, lh);
    double worst = 0, mx = 0, e;
    if (!p)
        return 1;
    fill(s, w, h, 1, 0);
    for (size_t i = 0; i < n; i++) {
        x[i] = y[i] = (float)s[i];
        o[i] = s[i];
        mx = fmax(mx, fabs(o[i]));
    }
    wav_forward(p, y);
    oracle_2d(o, wav_plan_get_desc(p), 0);
    double my = 1;
    for (size_t i = 0; i < n; i++)
        my = fmax(my, fabs(o[i]));
    for (size_t i = 0; i < n; i++)
        if ((e = fabs(y[i] - o[i]) / my) > worst || isnan(y[i]))
            worst = isnan(y[i]) ? 1 : e;
    wav_inverse(p, y);
    for (size_t i = 0; i < n; i++)
        if ((e = fabs(y[i] - x[i]) / fmax(mx, 1)) > worst || isnan(y[i]))
            worst = isnan(y[i]) ? 1 : e;
    for (size_t i = 0; i < n; i++)
        o[i] = y[i] = x[i];
    if (check_inverse_parts(p, y))
        worst = 1;
    wav_inverse(p, y);
    oracle_2d(o, wav_plan_get_desc(p), 1);
    my = 1;
    for (size_t i = 0; i < n; i++)
        my = fmax(my, fabs(o[i]));
    for (size_t i = 0; i < n; i++)
        if ((e = fabs(y[i] - o[i]) / my) > worst || isnan(y[i]))
            worst = isnan(y[i]) ? 1 : e;
    wav_plan_destroy(p);
    free(s);
    free(x);
    free(y);
    free(o);
    return worst;
}

/* The level pairs the codecs use: JPEG XS (levels_v 0..2, levels_h up to 8,
 * levels_v <= levels_h) and JPEG 2000 / BPC-PaCo (symmetric 1..6), plus 0/0. */
static int level_pairs(int lv[], int lh[])
{
    int k = 0;
    for (int h = 0; h <= 8; h++)
        for (int v = 0; v <= 2 && v <= h; v++)
            lv[k] = v, lh[k++] = h;
    for (int s = 3; s <= 6; s++)
        lv[k] = s, lh[k++] = s;
    return k;
}

static void test_hand_vectors(void)
{
    int32_t a[] = {7};
    wav53_forward_1d(a, 1, 1);
    CHECK(a[0] == 7, "1 sample passes through, got %d", a[0]);
    int32_t b[] = {10, 20};
    wav53_forward_1d(b, 2, 1);
    CHECK(b[0] == 15 && b[1] == 10, "[10 20] -> [15 10], got [%d %d]", b[0], b[1]);
    int32_t c[] = {1, 5, 3};
    wav53_forward_1d(c, 3, 1);
    CHECK(c[0] == 3 && c[1] == 3 && c[2] == 5, "[1 5 3] -> [3 3 5], got [%d %d %d]", c[0], c[1],
          c[2]);
    /* floor, not truncation: (-4 - 4 + 2) >> 2 = -2 */
    int32_t d[] = {0, -4, 1};
    wav53_forward_1d(d, 3, 1);
    CHECK(d[0] == -2 && d[1] == -4 && d[2] == -1, "[0 -4 1] -> [-2 -4 -1], got [%d %d %d]", d[0],
          d[1], d[2]);
    wav53_inverse_1d(d, 3, 1);
    CHECK(d[0] == 0 && d[1] == -4 && d[2] == 1, "inverse of [-2 -4 -1], got [%d %d %d]", d[0], d[1],
          d[2]);
    /* strided line */
    int32_t e[8] = {1, 99, 5, 99, 3, 99, 8, 99};
    wav53_forward_1d(e, 4, 2);
    int32_t f[4] = {1, 5, 3, 8};
    wav53_forward_1d(f, 4, 1);
    CHECK(e[0] == f[0] && e[2] == f[1] && e[4] == f[2] && e[6] == f[3] && e[1] == 99,
          "stride 2 matches stride 1");
}

static void test_97_filters(void)
{
    /* lifting == 15444-1 analysis filters (convolution), every length 2..40 */
    double worst = 0;
    for (size_t n = 2; n <= 40; n++) {
        float x[40];
        double xd[40], y[40];
        for (size_t i = 0; i < n; i++)
            xd[i] = x[i] = (float)wav_rng_range(&rng, 1000);
        wav97_forward_1d(x, n, 1);
        oracle97_convolve(xd, y, n);
        for (size_t i = 0; i < n; i++)
            worst = fmax(worst, fabs(x[i] - y[i]) / 1000.0);
    }
    CHECK(worst < 1e-5, "9/7 lifting vs analysis filters: relative error %g", worst);
    /* gains: DC -> low 1, high 0; Nyquist -> high magnitude 2 */
    float dc[16], ny[16];
    for (int i = 0; i < 16; i++) {
        dc[i] = 100.0f;
        ny[i] = (i & 1) ? -100.0f : 100.0f;
    }
    wav97_forward_1d(dc, 16, 1);
    wav97_forward_1d(ny, 16, 1);
    CHECK(fabs(dc[4] - 100.0) < 1e-3 && fabs(dc[5]) < 1e-3, "DC gain: low %g high %g", dc[4],
          dc[5]);
    CHECK(fabs(fabs(ny[5]) - 200.0) < 1e-3 && fabs(ny[4]) < 1e-3, "Nyquist gain: low %g high %g",
          ny[4], ny[5]);
    float one[1] = {3.5f};
    wav97_forward_1d(one, 1, 1);
    CHECK(one[0] == 3.5f, "9/7: 1 sample passes through unscaled, got %g", one[0]);
}

static void test_small_sizes(void)
{
    int lv[40], lh[40];
    const int np = level_pairs(lv, lh);
    for (size_t h = 1; h <= 19; h++) {
        for (size_t w = 1; w <= 19; w++) {
            int bad53 = 0;
            double worst97 = 0;
            for (int k = 0; k < np; k++) {
                bad53 += check53(w, h, lv[k], lh[k], (int)((w + h) & 1));
                worst97 = fmax(worst97, check97(w, h, lv[k], lh[k]));
            }
            CHECK(bad53 == 0, "5/3 %zux%zu: %d level pairs differ from the oracle", w, h, bad53);
            CHECK(worst97 < 1e-5, "9/7 %zux%zu: relative error %g", w, h, worst97);
        }
    }
}

static void test_medium_sizes(void)
{
    static const size_t sz[][2] = {{33, 17},  {127, 255}, {257, 129}, {1023, 7},
                                   {7, 1023}, {241, 243}, {1920, 36}, {500, 2}};
    int lv[40], lh[40];
    const int np = level_pairs(lv, lh);
    for (size_t i = 0; i < sizeof sz / sizeof sz[0]; i++) {
        int bad = 0;
        double worst = 0;
        for (int k = 0; k < np; k++) {
            bad += check53(sz[i][0], sz[i][1], lv[k], lh[k], k & 1);
            if (lv[k] == lh[k] || k % 3 == 0)
                worst = fmax(worst, check97(sz[i][0], sz[i][1], lv[k], lh[k]));
        }
        CHECK(bad == 0, "5/3 %zux%zu: %d level pairs differ from the oracle", sz[i][0], sz[i][1],
              bad);
        CHECK(worst < 1e-5, "9/7 %zux%zu: relative error %g", sz[i][0], sz[i][1], worst);
    }
}

static void test_large(void)
{
    CHECK(check53(8193, 4321, 1, 5, 1) == 0, "5/3 8193x4321 v1 h5 vs oracle");
    CHECK(check53(8193, 4321, 2, 8, 0) == 0, "5/3 8193x4321 v2 h8 vs oracle");
    CHECK(check97(8193, 4321, 5, 5) < 1e-5, "9/7 8193x4321 symmetric 5");
}

/* Rows with padding and several planes: the padding stays untouched and each
 * plane transforms as if alone. */
static void test_pitch_planes(void)
{
    const size_t w = 37, h = 23, pitch = 41, planes = 3, stride = pitch * h + 5;
    const size_t total = stride * planes;
    int32_t *a = malloc(total * 4), *b = malloc(total * 4), *one = malloc(w * h * 4);
    for (size_t i = 0; i < total; i++)
        a[i] = b[i] = wav_rng_range(&rng, 4000);
    wav_plan_desc d = {w, h, pitch, planes, stride, WAV_FILTER_53, WAV_INT32, 1, 4};
    wav_plan *p = NULL, *q = NULL;
    xsf_error err = {0};
    CHECK(wav_plan_create(&p, &d, &err) == XSF_OK, "%s", err.msg);
    wav_plan_desc d1 = {w, h, w, 1, 0, WAV_FILTER_53, WAV_INT32, 1, 4};
    CHECK(wav_plan_create(&q, &d1, &err) == XSF_OK, "%s", err.msg);
    wav_forward(p, a);
    int pad_ok = 1, planes_ok = 1;
    for (size_t pl = 0; pl < planes; pl++) {
        for (size_t y = 0; y < h; y++)
            for (size_t x = 0; x < w; x++)
                one[y * w + x] = b[pl * stride + y * pitch + x];
        wav_forward(q, one);
        for (size_t y = 0; y < h; y++)
            for (size_t x = 0; x < pitch; x++) {
                const size_t i = pl * stride + y * pitch + x;
                if (x >= w)
                    pad_ok &= a[i] == b[i];
                else
                    planes_ok &= a[i] == one[y * w + x];
            }
        for (size_t i = pl * stride + pitch * h; i < (pl + 1) * stride; i++)
            pad_ok &= a[i] == b[i];
    }
    CHECK(pad_ok, "padding between rows and planes untouched");
    CHECK(planes_ok, "each plane transforms as if alone");
    wav_inverse(p, a);
    CHECK(memcmp(a, b, total * 4) == 0, "pitch/planes round trip");
    wav_plan_destroy(p);
    wav_plan_destroy(q);
    free(a);
    free(b);
    free(one);
}

static void test_arguments(void)
{
    wav_plan *p = (wav_plan *)1;
    xsf_error err = {0};
    wav_plan_desc ok = {64, 32, 64, 1, 0, WAV_FILTER_53, WAV_INT32, 1, 5};
    wav_plan_desc d = ok;
    d.pitch = 63;
    CHECK(wav_plan_create(&p, &d, &err) == XSF_ERR_ARG && p == NULL, "pitch < width refused");
    CHECK(strstr(err.msg, "pitch") != NULL, "message names the pitch: %s", err.msg);
    d = ok;
    d.levels_v = 6;
    xsf_error_clear(&err);
    CHECK(wav_plan_create(&p, &d, &err) == XSF_ERR_ARG, "levels_v > levels_h refused");
    d = ok;
    d.levels_h = WAV_MAX_LEVELS + 1;
    CHECK(wav_plan_create(&p, &d, &err) == XSF_ERR_ARG, "too many levels refused");
    d = ok;
    d.sample = WAV_FLOAT32;
    CHECK(wav_plan_create(&p, &d, &err) == XSF_ERR_UNSUPPORTED, "5/3 on float refused");
    d = ok;
    d.width = 0;
    CHECK(wav_plan_create(&p, &d, &err) == XSF_ERR_ARG, "width 0 refused");
    d = ok;
    d.planes = 2;
    d.plane_stride = 64 * 31;
    CHECK(wav_plan_create(&p, &d, &err) == XSF_ERR_ARG, "overlapping planes refused");
    d = ok;
    d.pitch = SIZE_MAX / 2;
    CHECK(wav_plan_create(&p, &d, &err) == XSF_ERR_ARG, "extent overflow refused");
    CHECK(wav_plan_create(&p, NULL, &err) == XSF_ERR_ARG, "no description refused");
    CHECK(wav_forward(NULL, &d) == XSF_ERR_ARG, "no plan refused");
    size_t w, h;
    wav_level_input_size(&ok, 3, &w, &h);
    CHECK(w == 16 && h == 16, "level 3 of 64x32 v1 splits 16x16, got %zux%zu", w, h);
}

/* ---- incremental inverse: the rows that the final coefficients determine ---- */

/* wav_inverse_rows_final alone: 0 rows for none, the whole picture once every
 * coefficient is final, growing, exact without vertical levels, and losing at
 * most the documented look-ahead (2 rows per level for the 5/3, 4 for the 9/7,
 * in units of the level's rows) at multiples of 2^levels_v. */
static void check_rows_final(const wav_plan_desc *d, const char *name)
{
    const size_t h = d->height, unit = (size_t)1 << d->levels_v;
    const size_t lag = d->filter == WAV_FILTER_53 ? 1 : 2, lost = 2 * lag * (unit - 1);
    size_t prev = 0, bad_r = 0, bad_f = 0, bad_prev = 0;
    const char *why = NULL;
    for (size_t r = 0; r <= h + 5 && !why; r++) {
        const size_t f = wav_inverse_rows_final(d, r);
        if (r == 0 && f != 0)
            why = "no final row: expected 0 output rows";
        else if (r >= h && f != h)
            why = "every coefficient final: expected the height";
        else if (f > h)
            why = "more rows than the picture";
        else if (f < prev)
            why = "fewer rows than for a smaller rows_in";
        else if (d->levels_v == 0 && f != (r < h ? r : h))
            why = "no vertical level: expected min(rows_in, height)";
        else if (r < h && r % unit == 0 && f < (r > lost ? r - lost : 0))
            why = "more conservative than the documented look-ahead";
        bad_r = r, bad_f = f, bad_prev = prev;
        prev = f;
    }
    CHECK(why == NULL, "%s: wav_inverse_rows_final(%zu) = %zu (%zu before): %s", name, bad_r, bad_f,
          bad_prev, why ? why : "");
}

/* One picture, filter and level pair: for each rows_in of wav_test_rows_sequence, the
 * coefficients that are not final (wav_test_coefficient_final) replaced by
 * garbage; the rows [0, wav_inverse_rows_final) of its inverse must equal the
 * inverse of the true coefficients bit for bit (the C reference does the same
 * operations on the same final inputs, floats included). The garbage must
 * change the coefficients (else the test could not fail). */
static void check_incremental(size_t w, size_t h, wav_filter f, int lv, int lh)
{
    wav_plan *p = make_plan(w, h, f, lv, lh);
    if (!p)
        return;
    const wav_plan_desc *d = wav_plan_get_desc(p);
    const size_t n = w * h;
    uint32_t *src = malloc(n * 4), *ref = malloc(n * 4), *vis = malloc(n * 4);
    char name[80];
    snprintf(name, sizeof name, "%s %zux%zu v%d h%d", f == WAV_FILTER_53 ? "5/3" : "9/7", w, h, lv,
             lh);
    if (!src || !ref || !vis) {
        CHECK(0, "%s: host memory", name);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        if (f == WAV_FILTER_53) {
            src[i] = (uint32_t)wav_rng_range(&rng, 1 << 20);
        } else {
            const float v = (float)wav_rng_range(&rng, 1 << 20) / 256.0f;
            memcpy(&src[i], &v, 4);
        }
    }
    memcpy(ref, src, n * 4);
    wav_inverse(p, ref);
    check_rows_final(d, name);

    size_t seq[96];
    const size_t ns = wav_test_rows_sequence(h, lv, seq, sizeof seq / sizeof seq[0]);
    size_t k = 0, bad_row = SIZE_MAX, final_rows = 0;
    for (; k < ns; k++) {
        const size_t rows_in = seq[k];
        final_rows = wav_inverse_rows_final(d, rows_in);
        size_t changed = 0;
        for (size_t y = 0; y < h; y++)
            for (size_t x = 0; x < w; x++) {
                const size_t i = y * w + x;
                vis[i] = src[i];
                if (wav_test_coefficient_final(d, rows_in, x, y))
                    continue;
                if (f == WAV_FILTER_53) {
                    vis[i] = (uint32_t)wav_rng_range(&rng, 1 << 20);
                } else {
                    const float v = (float)wav_rng_range(&rng, 1 << 20) / 128.0f;
                    memcpy(&vis[i], &v, 4);
                }
                changed += vis[i] != src[i];
            }
        if (rows_in < h && changed == 0)
            break;
        wav_inverse(p, vis);
        for (size_t y = 0; y < final_rows && bad_row == SIZE_MAX; y++)
            if (memcmp(vis + y * w, ref + y * w, w * 4) != 0)
                bad_row = y;
        if (bad_row != SIZE_MAX)
            break;
    }
    CHECK(k == ns, "%s rows_in %zu: %s", name, k < ns ? seq[k] : 0,
          bad_row != SIZE_MAX ? "an output row said final differs from the whole inverse's"
                              : "the garbage changed no coefficient");
    if (bad_row != SIZE_MAX)
        fprintf(stderr, "  output row %zu of the %zu said final\n", bad_row, final_rows);
done:
    wav_plan_destroy(p);
    free(src);
    free(ref);
    free(vis);
}

static void test_incremental_rows(void)
{
    static const size_t sz[][2] = {{1, 1},   {1, 17},  {17, 1},  {7, 9},     {2, 2},    {5, 3},
                                   {33, 31}, {64, 64}, {19, 40}, {241, 243}, {480, 270}};
    int lv[32], lh[32], np = 0;
    for (int h = 0; h <= 6; h++) /* JPEG XS */
        for (int v = 0; v <= 2 && v <= h; v++)
            lv[np] = v, lh[np++] = h;
    lv[np] = 3, lh[np++] = 3; /* JPEG 2000 */
    lv[np] = 5, lh[np++] = 5;
    for (size_t i = 0; i < sizeof sz / sizeof sz[0]; i++)
        for (int k = 0; k < np; k++) {
            check_incremental(sz[i][0], sz[i][1], WAV_FILTER_53, lv[k], lh[k]);
            check_incremental(sz[i][0], sz[i][1], WAV_FILTER_97, lv[k], lh[k]);
        }
    check_incremental(1920, 1080, WAV_FILTER_53, 1, 5);
    check_incremental(1920, 1080, WAV_FILTER_53, 2, 5);
    check_incremental(1920, 1080, WAV_FILTER_97, 2, 6);
    check_incremental(1920, 1080, WAV_FILTER_97, 5, 5);
}

int main(void)
{
    test_hand_vectors();
    test_97_filters();
    test_arguments();
    test_pitch_planes();
    test_incremental_rows();
    test_small_sizes();
    test_medium_sizes();
    test_large();
    return xsf_test_finish();
}
