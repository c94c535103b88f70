/* CUDA plans of wavelet/ against the C reference: the 5/3 forward and inverse
 * bit for bit and exact reconstruction, the 9/7 within 1e-5 of the largest
 * magnitude, on random and photographic-like data, in place and out of place,
 * at sizes from 1x1 to 8193x4321 and every level pair JPEG XS (levels_v 0..2,
 * levels_h 1..8) and JPEG 2000 / BPC-PaCo (symmetric 1..6) use. Outputs are
 * poisoned before each run; padding between rows and planes must stay as it was.
 * The incremental inverse (wav_cuda_inverse_rows_to): coefficients arriving
 * from the top down, the rows said final right, nothing else written. Both
 * into 16-bit planes (wav_cuda_inverse_to_u16, _rows_to_u16): the C
 * reference converted, the padding and the rows not final untouched.
 * Prints why and exits 77 where no GPU is present.
 *
 *   test_wavelet_cuda          the full matrix
 *   test_wavelet_cuda quick    small sizes only (for compute-sanitizer)
 *   test_wavelet_cuda N        the full matrix, sizes of at most N samples
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "wav_test_data.h"
#include "wavelet_cuda.h"

static wav_rng rng = {0x2545F4914F6CDD1Dull};
static cudaStream_t stream;
static int chunk_pairs; /* 0: the plan's choice */

#define POISON 0x7fbadbadu

typedef struct test_case {
    size_t w, h, pitch, planes, plane_stride;
    wav_filter filter;
    int lv, lh, photo;
} test_case;

/* The plan description of a case (the 5/3 on int32, the 9/7 on float32). */
static wav_plan_desc case_desc(const test_case *c)
{
    const wav_plan_desc d = {c->w,
                             c->h,
                             c->pitch,
                             c->planes,
                             c->plane_stride,
                             c->filter,
                             c->filter == WAV_FILTER_53 ? WAV_INT32 : WAV_FLOAT32,
                             c->lv,
                             c->lh};
    return d;
}

static size_t extent(const test_case *c)
{
    return (c->planes - 1) * c->plane_stride + (c->h - 1) * c->pitch + c->w;
}

static int in_region(const test_case *c, size_t i)
{
    const size_t in_plane = c->planes > 1 ? i % c->plane_stride : i;
    return in_plane / c->pitch < c->h && in_plane % c->pitch < c->w;
}

/* Fills the picture region with samples, the padding with POISON. */
static void fill(const test_case *c, uint32_t *x, int coefficients)
{
    const size_t n = extent(c);
    for (size_t i = 0; i < n; i++) {
        if (!in_region(c, i)) {
            x[i] = POISON;
            continue;
        }
        const size_t in_plane = c->planes > 1 ? i % c->plane_stride : i;
        const size_t px = in_plane % c->pitch, py = in_plane / c->pitch;
        int32_t v = coefficients ? wav_rng_range(&rng, c->filter == WAV_FILTER_53 ? 1 << 20 : 4000)
                    : c->photo   ? wav_photo_sample(&rng, px, py, c->w, c->h)
                                 : wav_rng_range(&rng, 1 << 20);
        if (c->filter == WAV_FILTER_53) {
            x[i] = (uint32_t)v;
        } else {
            const float f = (float)v;
            memcpy(&x[i], &f, 4);
        }
    }
}

/* 0 if equal: bit for bit for the 5/3 and the padding, within 1e-5 of the
 * largest reference magnitude for the 9/7. */
static int padded(const test_case *c)
{
    return c->pitch != c->w || c->planes > 1;
}

static double compare(const test_case *c, const uint32_t *got, const uint32_t *want)
{
    const size_t n = extent(c);
    double worst = 0, mx = 1;
    if (c->filter == WAV_FILTER_53)
        return memcmp(got, want, n * 4) != 0;
    if (c->filter == WAV_FILTER_97)
        for (size_t i = 0; i < n; i++)
            if (!padded(c) || in_region(c, i)) {
                float f;
                memcpy(&f, &want[i], 4);
                mx = fmax(mx, fabs(f));
            }
    for (size_t i = 0; i < n; i++) {
        if (padded(c) && !in_region(c, i)) {
            if (got[i] != want[i])
                return 1;
        } else {
            float a, b;
            memcpy(&a, &got[i], 4);
            memcpy(&b, &want[i], 4);
            const double e = isnan(a) ? 1 : fabs((double)a - b) / mx;
            worst = e > worst ? e : worst;
        }
    }
    return worst;
}

static int cuda_ok(cudaError_t e, const char *what)
{
    CHECK(e == cudaSuccess, "%s: %s", what, cudaGetErrorString(e));
    return e == cudaSuccess;
}

/* A copy ordered on the test's stream, finished on return. The stream is
 * non-blocking (as callers' streams often are), so a plain cudaMemcpy would
 * not be ordered with it: a pageable upload may still be in flight when the
 * next kernel on the stream starts. */
static int copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                const char *what)
{
    return cuda_ok(cudaMemcpyAsync(dst, src, bytes, kind, stream), what) &&
           cuda_ok(cudaStreamSynchronize(stream), what);
}

/* Runs one GPU transform and downloads the result; dst is poisoned first
 * (except in place, where it holds the input). */
static int gpu(wav_cuda_plan *p, int inverse, int inplace, void *d_src, void *d_dst, uint32_t *host,
               size_t bytes)
{
    xsf_status st;
    if (!inplace && !cuda_ok(cudaMemsetAsync(d_dst, 0x7f, bytes, stream), "poison"))
        return 0;
    if (inplace)
        st = inverse ? wav_cuda_inverse(p, d_src, stream) : wav_cuda_forward(p, d_src, stream);
    else
        st = inverse ? wav_cuda_inverse_to(p, d_src, d_dst, stream)
                     : wav_cuda_forward_to(p, d_src, d_dst, stream);
    CHECK(st == XSF_OK, "transform: %s", wav_cuda_plan_error(p));
    if (st != XSF_OK)
        return 0;
    return cuda_ok(cudaMemcpyAsync(host, inplace ? d_src : d_dst, bytes, cudaMemcpyDeviceToHost,
                                   stream),
                   "download") &&
           cuda_ok(cudaStreamSynchronize(stream), "transform");
}

/* Padding of an out-of-place destination: the poison of gpu() must survive,
 * so compare the padding against 0x7f7f7f7f there. */
static void repoison(const test_case *c, uint32_t *x, uint32_t v)
{
    const size_t n = extent(c);
    if (!padded(c))
        return;
    for (size_t i = 0; i < n; i++)
        if (!in_region(c, i))
            x[i] = v;
}

static double tolerance(const test_case *c)
{
    return c->filter == WAV_FILTER_53 ? 0 : 1e-5;
}

/* Inputs depend on the size, filter and kind of data only: generated once and
 * kept for the next level pairs (the 8193x4321 pictures take a while). */
typedef struct input_cache {
    test_case key;
    uint32_t *x, *r;
} input_cache;

static int same_input(const test_case *a, const test_case *b)
{
    return a->w == b->w && a->h == b->h && a->pitch == b->pitch && a->planes == b->planes &&
           a->plane_stride == b->plane_stride && a->filter == b->filter && a->photo == b->photo;
}

static void inputs(const test_case *c, uint32_t *x, uint32_t *r, size_t bytes)
{
    static input_cache cache[4];
    input_cache *e = &cache[(c->filter == WAV_FILTER_97) * 2 + (c->photo != 0)];
    if (!e->x || !same_input(&e->key, c)) {
        free(e->x);
        free(e->r);
        e->x = malloc(bytes);
        e->r = malloc(bytes);
        e->key = *c;
        if (!e->x || !e->r) {
            free(e->x);
            free(e->r);
            e->x = e->r = NULL;
            fill(c, x, 0);
            fill(c, r, 1);
            return;
        }
        fill(c, e->x, 0);
        fill(c, e->r, 1);
    }
    memcpy(x, e->x, bytes);
    memcpy(r, e->r, bytes);
}

static void run_case(const test_case *c)
{
    const size_t n = extent(c), bytes = n * 4;
    uint32_t *x = malloc(bytes), *ref = malloc(bytes), *got = malloc(bytes), *r = malloc(bytes),
             *ref_r = malloc(bytes), *want = malloc(bytes);
    void *d_a = NULL, *d_b = NULL;
    wav_plan *cp = NULL;
    wav_cuda_plan *gp = NULL;
    xsf_error err = {0};
    const wav_plan_desc d = case_desc(c);
    char name[96];
    snprintf(name, sizeof name, "%s %zux%zu pitch %zu x%zu v%d h%d %s",
             c->filter == WAV_FILTER_53 ? "5/3" : "9/7", c->w, c->h, c->pitch, c->planes, c->lv,
             c->lh, c->photo ? "photo" : "random");
    if (!x || !ref || !got || !r || !ref_r || !want) {
        CHECK(0, "%s: host memory", name);
        goto done;
    }
    if (wav_plan_create(&cp, &d, &err) != XSF_OK || wav_cuda_plan_create(&gp, &d, &err) != XSF_OK) {
        CHECK(0, "%s: plan: %s", name, err.msg);
        goto done;
    }
    if (chunk_pairs)
        CHECK(wav_cuda_plan_tune(gp, chunk_pairs) == XSF_OK, "tune %d", chunk_pairs);
    if (!cuda_ok(cudaMalloc(&d_a, bytes), "malloc") || !cuda_ok(cudaMalloc(&d_b, bytes), "malloc"))
        goto done;
    inputs(c, x, r, bytes);
    memcpy(ref, x, bytes);
    wav_forward(cp, ref);
    memcpy(ref_r, r, bytes);
    wav_inverse(cp, ref_r);
    const double tol = tolerance(c);
    double e;

    /* out of place: forward, then inverse of its output */
    if (!copy(d_a, x, bytes, cudaMemcpyHostToDevice, "upload"))
        goto done;
    if (!gpu(gp, 0, 0, d_a, d_b, got, bytes))
        goto done;
    memcpy(want, ref, bytes);
    repoison(c, want, 0x7f7f7f7fu);
    e = compare(c, got, want);
    CHECK(e <= tol, "%s: forward_to differs from the C reference (%g)", name, e);
    if (!gpu(gp, 1, 0, d_b, d_a, got, bytes))
        goto done;
    memcpy(want, x, bytes);
    repoison(c, want, 0x7f7f7f7fu);
    e = compare(c, got, want);
    CHECK(e <= tol, "%s: inverse_to(forward_to(x)) != x (%g)", name, e);
    /* source of an out-of-place call untouched */
    if (!copy(got, d_b, bytes, cudaMemcpyDeviceToHost, "download"))
        goto done;
    memcpy(want, ref, bytes);
    repoison(c, want, 0x7f7f7f7fu);
    CHECK(compare(c, got, want) <= tol, "%s: inverse_to modified its source", name);

    /* in place: forward, inverse */
    if (!copy(d_a, x, bytes, cudaMemcpyHostToDevice, "upload"))
        goto done;
    if (!gpu(gp, 0, 1, d_a, NULL, got, bytes))
        goto done;
    e = compare(c, got, ref);
    CHECK(e <= tol, "%s: in-place forward differs from the C reference (%g)", name, e);
    if (!gpu(gp, 1, 1, d_a, NULL, got, bytes))
        goto done;
    e = compare(c, got, x);
    CHECK(e <= tol, "%s: in-place inverse(forward(x)) != x (%g)", name, e);

    /* inverse of arbitrary coefficients, both ways */
    if (!copy(d_a, r, bytes, cudaMemcpyHostToDevice, "upload"))
        goto done;
    if (!gpu(gp, 1, 0, d_a, d_b, got, bytes))
        goto done;
    memcpy(want, ref_r, bytes);
    repoison(c, want, 0x7f7f7f7fu);
    e = compare(c, got, want);
    CHECK(e <= tol, "%s: inverse_to of random coefficients differs from the C reference (%g)", name,
          e);
    if (!gpu(gp, 1, 1, d_a, NULL, got, bytes))
        goto done;
    e = compare(c, got, ref_r);
    CHECK(e <= tol, "%s: in-place inverse of random coefficients differs (%g)", name, e);
done:
    cudaFree(d_a);
    cudaFree(d_b);
    wav_cuda_plan_destroy(gp);
    wav_plan_destroy(cp);
    free(x);
    free(ref);
    free(got);
    free(r);
    free(ref_r);
    free(want);
}

static int level_pairs(int lv[], int lh[])
{
    int k = 0;
    lv[k] = 0, lh[k++] = 0;
    for (int h = 1; h <= 8; h++)
        for (int v = 0; v <= 2 && v <= h; v++)
            lv[k] = v, lh[k++] = h;
    for (int s = 3; s <= 6; s++)
        lv[k] = s, lh[k++] = s;
    return k;
}

static void test_arguments(void)
{
    wav_plan_desc d = {64, 32, 64, 1, 0, WAV_FILTER_53, WAV_INT32, 1, 3};
    wav_cuda_plan *p = NULL;
    xsf_error err = {0};
    CHECK(wav_cuda_plan_create(&p, &d, &err) == XSF_OK, "%s", err.msg);
    void *buf = NULL;
    if (!p || !cuda_ok(cudaMalloc(&buf, 64 * 64 * 4), "malloc"))
        return;
    CHECK(wav_cuda_inverse_to(p, buf, (char *)buf + 64, stream) == XSF_ERR_ARG,
          "overlapping source and destination refused");
    CHECK(wav_cuda_forward(p, NULL, stream) == XSF_ERR_ARG, "null buffer refused");
    CHECK(wav_cuda_plan_tune(p, 3) == XSF_ERR_ARG, "chunk of 3 pairs refused");
    CHECK(wav_cuda_step_count(p, 1) == 2 && wav_cuda_step_count(p, 0) == 2,
          "v1 h3: a row pass and a 2D level each way, got %d %d", wav_cuda_step_count(p, 1),
          wav_cuda_step_count(p, 0));
    /* the steps run one by one give what the whole call gives */
    void *src = NULL, *dst = NULL;
    int32_t host[64 * 32], a[64 * 32], b[64 * 32];
    for (int i = 0; i < 64 * 32; i++)
        host[i] = wav_rng_range(&rng, 1000);
    if (cuda_ok(cudaMalloc(&src, sizeof host), "malloc") &&
        cuda_ok(cudaMalloc(&dst, sizeof host), "malloc") &&
        copy(src, host, sizeof host, cudaMemcpyHostToDevice, "upload")) {
        for (int inv = 0; inv < 2; inv++) {
            CHECK((inv ? wav_cuda_inverse_to(p, src, dst, stream)
                       : wav_cuda_forward_to(p, src, dst, stream)) == XSF_OK,
                  "whole call");
            copy(a, dst, sizeof a, cudaMemcpyDeviceToHost, "download");
            cuda_ok(cudaMemsetAsync(dst, 0, sizeof a, stream), "clear");
            size_t bytes = 0;
            for (int s = 0; s < wav_cuda_step_count(p, inv); s++) {
                wav_cuda_step_info info;
                CHECK(wav_cuda_step_get(p, inv, s, &info) == XSF_OK, "step info");
                bytes += info.bytes;
                CHECK(wav_cuda_step_run(p, inv, s, src, dst, stream) == XSF_OK, "step %d", s);
            }
            copy(b, dst, sizeof b, cudaMemcpyDeviceToHost, "download");
            CHECK(memcmp(a, b, sizeof a) == 0, "steps one by one == whole call (inverse %d)", inv);
            /* 64x32 level 1 and 32x16 rows, read and written once */
            CHECK(bytes == 8 * (64 * 32 + 32 * 16), "bytes %zu", bytes);
        }
    }
    cudaFree(src);
    cudaFree(dst);
    d.filter = WAV_FILTER_97;
    wav_cuda_plan *q = NULL;
    CHECK(wav_cuda_plan_create(&q, &d, &err) == XSF_ERR_UNSUPPORTED && !q, "9/7 on int32 refused");
    cudaFree(buf);
    wav_cuda_plan_destroy(p);
}

/* ---- the incremental inverse (wav_cuda_inverse_rows_to) ---- */

/* The coefficients seen when those of image rows [0, rows_in) are final: the
 * final ones from src, the others new garbage, the padding POISON. */
static void visible(const test_case *c, const wav_plan_desc *d, size_t rows_in, const uint32_t *src,
                    uint32_t *vis)
{
    const size_t n = extent(c);
    for (size_t i = 0; i < n; i++) {
        if (!in_region(c, i)) {
            vis[i] = POISON;
            continue;
        }
        const size_t in_plane = c->planes > 1 ? i % c->plane_stride : i;
        if (wav_test_coefficient_final(d, rows_in, in_plane % c->pitch, in_plane / c->pitch)) {
            vis[i] = src[i];
        } else if (c->filter == WAV_FILTER_53) {
            vis[i] = (uint32_t)wav_rng_range(&rng, 1 << 20);
        } else {
            const float f = (float)wav_rng_range(&rng, 1 << 20) / 64.0f;
            memcpy(&vis[i], &f, 4);
        }
    }
}

/* The first difference of an incrementally written destination: rows
 * [0, final_rows) of every plane equal the whole GPU inverse bit for bit and
 * the C reference (the 5/3 bit for bit, the 9/7 within the tolerance of the
 * largest reference magnitude mx); the other rows and the padding still hold
 * the poison 0x7f7f7f7f. NULL if none. */
static const char *incremental_diff(const test_case *c, const uint32_t *got, const uint32_t *full,
                                    const uint32_t *ref, size_t final_rows, double mx,
                                    size_t *where)
{
    const size_t n = extent(c);
    const double tol = tolerance(c);
    for (size_t i = 0; i < n; i++) {
        *where = i;
        const size_t in_plane = c->planes > 1 ? i % c->plane_stride : i;
        if (!in_region(c, i) || in_plane / c->pitch >= final_rows) {
            if (got[i] != 0x7f7f7f7fu)
                return in_region(c, i) ? "a row not yet final was written"
                                       : "the padding was written";
            continue;
        }
        if (got[i] != full[i])
            return "a final row differs from wav_cuda_inverse_to's";
        if (c->filter == WAV_FILTER_53) {
            if (got[i] != ref[i])
                return "a final row differs from the C reference";
        } else {
            float a, b;
            memcpy(&a, &got[i], 4);
            memcpy(&b, &ref[i], 4);
            if (isnan(a) || fabs((double)a - b) / mx > tol)
                return "a final row differs from the C reference";
        }
    }
    return NULL;
}

static int all_poison(const uint32_t *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (x[i] != 0x7f7f7f7fu)
            return 0;
    return 1;
}

/* One picture: the whole inverse (wav_cuda_inverse_to) first, then the same
 * coefficients arriving from the top down, rows_in growing along
 * wav_test_rows_sequence, the coefficients not yet final replaced by new
 * garbage at each call. After each call the rows said final must be right
 * and nothing else of the destination written (poisoned once, at the start);
 * at the end the picture is wav_cuda_inverse_to's. At the first call and
 * halfway, a call with rows_before > rows_in must be refused and one with
 * rows_before == rows_in write nothing (into a poisoned other buffer), and
 * neither disturbs the calls after. */
static void run_incremental(const test_case *c)
{
    const size_t n = extent(c), bytes = n * 4;
    uint32_t *src = malloc(bytes), *ref = malloc(bytes), *full = malloc(bytes),
             *vis = malloc(bytes), *got = malloc(bytes);
    void *d_src = NULL, *d_dst = NULL, *d_other = NULL;
    wav_plan *cp = NULL;
    wav_cuda_plan *gp = NULL;
    xsf_error err = {0};
    const wav_plan_desc d = case_desc(c);
    char name[96];
    snprintf(name, sizeof name, "incremental %s %zux%zu pitch %zu x%zu v%d h%d",
             c->filter == WAV_FILTER_53 ? "5/3" : "9/7", c->w, c->h, c->pitch, c->planes, c->lv,
             c->lh);
    if (!src || !ref || !full || !vis || !got) {
        CHECK(0, "%s: host memory", name);
        goto done;
    }
    if (wav_plan_create(&cp, &d, &err) != XSF_OK || wav_cuda_plan_create(&gp, &d, &err) != XSF_OK) {
        CHECK(0, "%s: plan: %s", name, err.msg);
        goto done;
    }
    if (!cuda_ok(cudaMalloc(&d_src, bytes), "malloc") ||
        !cuda_ok(cudaMalloc(&d_dst, bytes), "malloc") ||
        !cuda_ok(cudaMalloc(&d_other, bytes), "malloc"))
        goto done;
    fill(c, src, 1);
    memcpy(ref, src, bytes);
    wav_inverse(cp, ref);
    double mx = 1;
    if (c->filter == WAV_FILTER_97)
        for (size_t i = 0; i < n; i++)
            if (in_region(c, i)) {
                float f;
                memcpy(&f, &ref[i], 4);
                mx = fmax(mx, fabs(f));
            }

    /* the whole inverse, before the incremental calls keep state in the plan */
    if (!copy(d_src, src, bytes, cudaMemcpyHostToDevice, "upload") ||
        !cuda_ok(cudaMemsetAsync(d_other, 0x7f, bytes, stream), "poison"))
        goto done;
    CHECK(wav_cuda_inverse_to(gp, d_src, d_other, stream) == XSF_OK, "%s: inverse_to: %s", name,
          wav_cuda_plan_error(gp));
    if (!copy(full, d_other, bytes, cudaMemcpyDeviceToHost, "download"))
        goto done;
    memcpy(vis, ref, bytes);
    repoison(c, vis, 0x7f7f7f7fu);
    CHECK(compare(c, full, vis) <= tolerance(c), "%s: inverse_to differs from the C reference",
          name);

    if (!cuda_ok(cudaMemsetAsync(d_dst, 0x7f, bytes, stream), "poison"))
        goto done;
    size_t seq[96], rows_before = 0, where = 0;
    const size_t ns = wav_test_rows_sequence(c->h, c->lv, seq, sizeof seq / sizeof seq[0]);
    const char *why = NULL;
    size_t k = 0;
    for (; k < ns && !why; k++) {
        const size_t rows_in = seq[k];
        visible(c, &d, rows_in, src, vis);
        if (!copy(d_src, vis, bytes, cudaMemcpyHostToDevice, "upload"))
            goto done;
        if (k == 0 || k == ns / 2) {
            if (!cuda_ok(cudaMemsetAsync(d_other, 0x7f, bytes, stream), "poison"))
                goto done;
            CHECK(wav_cuda_inverse_rows_to(gp, d_src, d_other, rows_before + 1, rows_before,
                                           stream) == XSF_ERR_ARG &&
                      wav_cuda_plan_error(gp)[0] != '\0',
                  "%s: rows_before %zu > rows_in %zu refused with a message", name, rows_before + 1,
                  rows_before);
            CHECK(wav_cuda_inverse_rows_to(gp, d_src, d_other, rows_before, rows_before, stream) ==
                      XSF_OK,
                  "%s: rows_before == rows_in == %zu: %s", name, rows_before,
                  wav_cuda_plan_error(gp));
            if (!copy(got, d_other, bytes, cudaMemcpyDeviceToHost, "download"))
                goto done;
            CHECK(all_poison(got, n), "%s: rows_before == rows_in == %zu wrote into dst", name,
                  rows_before);
        }
        const xsf_status st =
            wav_cuda_inverse_rows_to(gp, d_src, d_dst, rows_before, rows_in, stream);
        CHECK(st == XSF_OK, "%s: rows %zu to %zu: %s", name, rows_before, rows_in,
              wav_cuda_plan_error(gp));
        if (st != XSF_OK || !copy(got, d_dst, bytes, cudaMemcpyDeviceToHost, "download"))
            goto done;
        why = incremental_diff(c, got, full, ref, wav_inverse_rows_final(&d, rows_in), mx, &where);
        rows_before = rows_in;
    }
    CHECK(!why, "%s: rows %zu to %zu (%zu final): %s, at element %zu", name, k > 1 ? seq[k - 2] : 0,
          k > 0 ? seq[k - 1] : 0, k > 0 ? wav_inverse_rows_final(&d, seq[k - 1]) : 0,
          why ? why : "", where);
    CHECK(k == ns && seq[ns - 1] >= c->h && memcmp(got, full, bytes) == 0,
          "%s: the last call's picture is wav_cuda_inverse_to's", name);
done:
    cudaFree(d_src);
    cudaFree(d_dst);
    cudaFree(d_other);
    wav_cuda_plan_destroy(gp);
    wav_plan_destroy(cp);
    free(src);
    free(ref);
    free(full);
    free(vis);
    free(got);
}

static void test_incremental_rows(int quick, size_t max_samples)
{
    /* w, h, pitch, planes */
    static const size_t sizes[][4] = {{7, 9, 7, 1},       {33, 31, 37, 3}, {130, 70, 136, 3},
                                      {257, 131, 260, 3}, {1, 17, 1, 1},   {17, 1, 19, 2}};
    static const int pairs[][2] = {{0, 3}, {1, 1}, {1, 5}, {2, 2}, {2, 5}, {3, 3}, {3, 5}, {5, 5}};
    const size_t nsizes = sizeof sizes / sizeof sizes[0];
    const int npairs = (int)(sizeof pairs / sizeof pairs[0]);
    for (size_t s = 0; s < nsizes; s++) {
        const size_t w = sizes[s][0], h = sizes[s][1], pitch = sizes[s][2], planes = sizes[s][3];
        const int fails_before = xsf_test_failed;
        if (w * h * planes > max_samples)
            continue;
        for (int k = 0; k < npairs; k++) {
            test_case c = {w,           h,           pitch, planes, pitch * h + 3, WAV_FILTER_53,
                           pairs[k][0], pairs[k][1], 0};
            /* quick (the emulated CTest): every pair on the 5/3, some on the 9/7 */
            run_incremental(&c);
            if (!quick || k % 2 == 0) {
                c.filter = WAV_FILTER_97;
                run_incremental(&c);
            }
        }
        printf("incremental %zux%zu pitch %zu, %zu planes: %s\n", w, h, pitch, planes,
               xsf_test_failed == fails_before ? "ok" : "FAILED");
        fflush(stdout);
    }
    if (quick)
        return;
    static const test_case big[] = {{1920, 1080, 1920, 1, 1920 * 1080, WAV_FILTER_53, 1, 5, 0},
                                    {1920, 1080, 1920, 1, 1920 * 1080, WAV_FILTER_97, 5, 5, 0},
                                    {3840, 2160, 3840, 1, 3840 * 2160, WAV_FILTER_53, 2, 5, 0}};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        if (big[i].w * big[i].h > max_samples)
            continue;
        const int fails_before = xsf_test_failed;
        run_incremental(&big[i]);
        printf("incremental %zux%zu v%d h%d: %s\n", big[i].w, big[i].h, big[i].lv, big[i].lh,
               xsf_test_failed == fails_before ? "ok" : "FAILED");
        fflush(stdout);
    }
}

/* ---- the picture as 16-bit samples (wav_cuda_inverse_to_u16, _rows_to_u16) ---- */

/* Plane k's conversion in the tests: an XS-like 10-bit output of Bw 20, a
 * plain clamp to 16 bits, a small shift with an odd offset and maximum. */
static const int32_t u16_offset[3] = {(1 << 19) + (1 << 9), 0, 12345};
static const int u16_shift[3] = {10, 0, 3};
static const int32_t u16_max[3] = {1023, 65535, 40000};

static uint16_t u16_ref(int32_t v, int k)
{
    const int64_t c = v < -(1 << 30) ? -(1 << 30) : v > (1 << 30) ? (1 << 30) : v;
    const int64_t x = (c + u16_offset[k]) >> u16_shift[k];
    return (uint16_t)(x < 0 ? 0 : x > u16_max[k] ? u16_max[k] : x);
}

/* The first difference of the 16-bit planes `got` (plane k at k * plane_u16,
 * rows of pitch16 samples, poisoned with 0x7f7f) against the C reference's
 * int32 picture ref converted: rows [0, final_rows) equal, the other rows
 * and the padding still poison. NULL if none. */
static const char *u16_diff(const test_case *c, const uint16_t *got, size_t pitch16,
                            size_t plane_u16, const uint32_t *ref, size_t final_rows, size_t *where)
{
    for (size_t k = 0; k < c->planes; k++)
        for (size_t y = 0; y < c->h; y++)
            for (size_t x = 0; x < pitch16; x++) {
                const size_t i = k * plane_u16 + y * pitch16 + x;
                *where = i;
                if (x >= c->w || y >= final_rows) {
                    if (got[i] != 0x7f7fu)
                        return x >= c->w ? "the padding was written"
                                         : "a row not final was written";
                    continue;
                }
                const int32_t v = (int32_t)ref[k * c->plane_stride + y * c->pitch + x];
                if (got[i] != u16_ref(v, (int)k))
                    return "a sample differs from the C reference converted";
            }
    return NULL;
}

/* One case: the whole inverse into 16-bit planes (pitch w + 1: odd rows
 * start off 8-byte alignment, so both store paths run), then the
 * incremental one rows along wav_test_rows_sequence, against the C reference
 * converted sample by sample. */
static void run_u16(const test_case *c)
{
    const size_t n = extent(c), bytes = n * 4, pitch16 = c->w + 1, plane_u16 = pitch16 * c->h + 5;
    const size_t bytes16 = plane_u16 * c->planes * 2;
    uint32_t *src = malloc(bytes), *ref = malloc(bytes), *vis = malloc(bytes);
    uint16_t *got = malloc(bytes16);
    void *d_src = NULL;
    uint16_t *d_out = NULL;
    wav_plan *cp = NULL;
    wav_cuda_plan *gp = NULL;
    xsf_error err = {0};
    const wav_plan_desc d = case_desc(c);
    char name[96];
    snprintf(name, sizeof name, "u16 %zux%zu pitch %zu x%zu v%d h%d", c->w, c->h, c->pitch,
             c->planes, c->lv, c->lh);
    if (!src || !ref || !vis || !got) {
        CHECK(0, "%s: host memory", name);
        goto done;
    }
    if (wav_plan_create(&cp, &d, &err) != XSF_OK || wav_cuda_plan_create(&gp, &d, &err) != XSF_OK) {
        CHECK(0, "%s: plan: %s", name, err.msg);
        goto done;
    }
    if (!cuda_ok(cudaMalloc(&d_src, bytes), "malloc") ||
        !cuda_ok(cudaMalloc((void **)&d_out, bytes16), "malloc"))
        goto done;
    wav_u16_output out;
    memset(&out, 0, sizeof out);
    for (size_t k = 0; k < c->planes; k++) {
        out.plane[k] = d_out + k * plane_u16;
        out.pitch[k] = pitch16;
        out.offset[k] = u16_offset[k];
        out.shift[k] = u16_shift[k];
        out.max[k] = u16_max[k];
    }
    fill(c, src, 1);
    memcpy(ref, src, bytes);
    wav_inverse(cp, ref);
    size_t where = 0;
    const char *why = NULL;
    if (!copy(d_src, src, bytes, cudaMemcpyHostToDevice, "upload") ||
        !cuda_ok(cudaMemsetAsync(d_out, 0x7f, bytes16, stream), "poison"))
        goto done;
    CHECK(wav_cuda_inverse_to_u16(gp, d_src, &out, stream) == XSF_OK, "%s: inverse_to_u16: %s",
          name, wav_cuda_plan_error(gp));
    if (!copy(got, d_out, bytes16, cudaMemcpyDeviceToHost, "download"))
        goto done;
    why = u16_diff(c, got, pitch16, plane_u16, ref, c->h, &where);
    CHECK(!why, "%s: whole: %s, at sample %zu", name, why ? why : "", where);

    if (!cuda_ok(cudaMemsetAsync(d_out, 0x7f, bytes16, stream), "poison"))
        goto done;
    size_t seq[96], rows_before = 0;
    const size_t ns = wav_test_rows_sequence(c->h, c->lv, seq, sizeof seq / sizeof seq[0]);
    for (size_t k = 0; k < ns && !why; k++) {
        visible(c, &d, seq[k], src, vis);
        if (!copy(d_src, vis, bytes, cudaMemcpyHostToDevice, "upload"))
            goto done;
        const xsf_status st =
            wav_cuda_inverse_rows_to_u16(gp, d_src, &out, rows_before, seq[k], stream);
        CHECK(st == XSF_OK, "%s: rows %zu to %zu: %s", name, rows_before, seq[k],
              wav_cuda_plan_error(gp));
        if (st != XSF_OK || !copy(got, d_out, bytes16, cudaMemcpyDeviceToHost, "download"))
            goto done;
        why = u16_diff(c, got, pitch16, plane_u16, ref, wav_inverse_rows_final(&d, seq[k]), &where);
        CHECK(!why, "%s: rows %zu to %zu: %s, at sample %zu", name, rows_before, seq[k],
              why ? why : "", where);
        rows_before = seq[k];
    }
done:
    cudaFree(d_src);
    cudaFree(d_out);
    wav_cuda_plan_destroy(gp);
    wav_plan_destroy(cp);
    free(src);
    free(ref);
    free(vis);
    free(got);
}

/* What the 16-bit calls refuse: a 9/7 plan, no level, more than 4 planes, a
 * plane missing, misaligned or narrow, a conversion out of range. */
static void test_u16_arguments(void)
{
    uint16_t *d_out = NULL;
    void *d_src = NULL;
    if (!cuda_ok(cudaMalloc((void **)&d_out, 64 * 64 * 2 * 5), "malloc") ||
        !cuda_ok(cudaMalloc(&d_src, 64 * 64 * 4 * 5), "malloc"))
        goto done;
    struct {
        wav_filter filter;
        int lh;
        size_t planes;
        int plane_off, pitch, shift, offset, max; /* changes to a good output */
    } bad[] = {{WAV_FILTER_97, 2, 1, 0, 0, 0, 0, 0},       {WAV_FILTER_53, 0, 1, 0, 0, 0, 0, 0},
               {WAV_FILTER_53, 2, 5, 0, 0, 0, 0, 0},       {WAV_FILTER_53, 2, 1, 1, 0, 0, 0, 0},
               {WAV_FILTER_53, 2, 1, 0, -1, 0, 0, 0},      {WAV_FILTER_53, 2, 1, 0, 0, 31, 0, 0},
               {WAV_FILTER_53, 2, 1, 0, 0, 0, 1 << 30, 0}, {WAV_FILTER_53, 2, 1, 0, 0, 0, 0, 65536},
               {WAV_FILTER_53, 2, 1, 0, 0, -1, 0, 0},      {WAV_FILTER_53, 2, 1, 0, 0, 0, 0, -1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const wav_plan_desc d = {64,
                                 64,
                                 64,
                                 bad[i].planes,
                                 64 * 64,
                                 bad[i].filter,
                                 bad[i].filter == WAV_FILTER_53 ? WAV_INT32 : WAV_FLOAT32,
                                 bad[i].lh ? 1 : 0,
                                 bad[i].lh};
        wav_cuda_plan *gp = NULL;
        xsf_error err = {0};
        if (wav_cuda_plan_create(&gp, &d, &err) != XSF_OK) {
            CHECK(0, "u16 arguments %zu: plan: %s", i, err.msg);
            continue;
        }
        wav_u16_output out;
        memset(&out, 0, sizeof out);
        for (size_t k = 0; k < WAV_U16_PLANES; k++) {
            out.plane[k] = d_out + k * 64 * 64;
            out.pitch[k] = 64;
            out.max[k] = 1023;
        }
        out.plane[0] = bad[i].plane_off ? (uint16_t *)((char *)d_out + 1) : d_out;
        out.pitch[0] = (size_t)(64 + bad[i].pitch);
        out.shift[0] = bad[i].shift;
        out.offset[0] = bad[i].offset;
        out.max[0] = bad[i].max ? bad[i].max : 1023;
        CHECK(wav_cuda_inverse_to_u16(gp, d_src, &out, stream) == XSF_ERR_ARG &&
                  wav_cuda_plan_error(gp)[0] != '\0',
              "u16 arguments %zu refused with a message", i);
        CHECK(wav_cuda_inverse_rows_to_u16(gp, d_src, &out, 0, 64, stream) == XSF_ERR_ARG,
              "u16 arguments %zu refused (rows)", i);
        CHECK(wav_cuda_inverse_to_u16(gp, d_src, NULL, stream) == XSF_ERR_ARG,
              "u16 without an output refused");
        wav_cuda_plan_destroy(gp);
    }
done:
    cudaFree(d_out);
    cudaFree(d_src);
}

static void test_u16_output(int quick, size_t max_samples)
{
    test_u16_arguments();
    /* w, h, pitch, planes: odd sizes, a 1-sample-wide band, padding, 3 planes */
    static const size_t sizes[][4] = {{7, 9, 7, 1},       {1, 17, 1, 1},     {17, 1, 19, 2},
                                      {33, 31, 37, 3},    {130, 70, 136, 3}, {257, 131, 260, 2},
                                      {1000, 64, 1000, 1}};
    static const int pairs[][2] = {{0, 1}, {0, 3}, {1, 1}, {1, 5}, {2, 2}, {2, 5}, {3, 5}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t w = sizes[s][0], h = sizes[s][1], pitch = sizes[s][2], planes = sizes[s][3];
        const int fails_before = xsf_test_failed;
        if (w * h * planes > max_samples || (quick && w * h > 20000))
            continue;
        for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
            test_case c = {w,           h,           pitch, planes, pitch * h + 3, WAV_FILTER_53,
                           pairs[k][0], pairs[k][1], 0};
            run_u16(&c);
        }
        printf("u16 %zux%zu pitch %zu, %zu planes: %s\n", w, h, pitch, planes,
               xsf_test_failed == fails_before ? "ok" : "FAILED");
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    const int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    const size_t max_samples = argc > 1 && !quick ? (size_t)strtoull(argv[1], NULL, 10) : SIZE_MAX;
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("no CUDA device: skipping the GPU wavelet tests\n");
        return XSF_TEST_SKIP;
    }
    if (!cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream"))
        return xsf_test_finish();
    test_arguments();
    test_u16_output(quick, max_samples);
    test_incremental_rows(quick, max_samples);

    static const size_t sizes[][2] = {
        {1, 1},   {1, 2},     {2, 1},      {2, 2},       {3, 5},       {5, 3},      {1, 17},
        {17, 1},  {7, 9},     {33, 31},    {64, 64},     {127, 129},   {241, 243},  {257, 3},
        {3, 257}, {480, 270}, {1000, 999}, {1920, 1080}, {3840, 2160}, {8193, 4321}};
    static const size_t quick_sizes[][2] = {{1, 1},   {2, 1},     {3, 5},     {1, 17}, {17, 1},
                                            {33, 31}, {127, 129}, {241, 243}, {257, 3}};
    const size_t nsizes =
        quick ? sizeof quick_sizes / sizeof quick_sizes[0] : sizeof sizes / sizeof sizes[0];
    int lv[40], lh[40];
    const int np = level_pairs(lv, lh);
    for (size_t s = 0; s < nsizes; s++) {
        const size_t w = quick ? quick_sizes[s][0] : sizes[s][0];
        const size_t h = quick ? quick_sizes[s][1] : sizes[s][1];
        const int fails_before = xsf_test_failed;
        if (w * h > max_samples)
            continue;
        for (int k = 0; k < np; k++) {
            /* quick: (0,1) (0,3) (1,1) (1,5) (2,2) (2,8) and symmetric 3, 6 */
            if (quick && !((lv[k] == 0 && (lh[k] == 1 || lh[k] == 3)) ||
                           (lv[k] == 1 && (lh[k] == 1 || lh[k] == 5)) ||
                           (lv[k] == 2 && (lh[k] == 2 || lh[k] == 8)) || lv[k] == 3 || lv[k] == 6))
                continue;
            test_case c = {w, h, w, 1, w * h, WAV_FILTER_53, lv[k], lh[k], (int)(k & 1)};
            run_case(&c);
            /* 9/7: the symmetric pairs (JPEG 2000 / BPC-PaCo) and some XS ones */
            if (lv[k] == lh[k] || k % 4 == 1) {
                c.filter = WAV_FILTER_97;
                run_case(&c);
            }
        }
        printf("%zux%zu: %s\n", w, h, xsf_test_failed == fails_before ? "ok" : "FAILED");
        fflush(stdout);
    }
    /* rows with padding and several planes (4:4:4 in one plan) */
    static const size_t padded[][3] = {{37, 23, 41}, {250, 131, 256}, {1921, 1081, 1924}};
    for (size_t s = 0; s < (quick ? 1u : 3u); s++) {
        if (padded[s][0] * padded[s][1] > max_samples)
            continue;
        for (int k = quick ? 4 : 0; k < np; k += quick ? 9 : 2) {
            const size_t w = padded[s][0], h = padded[s][1], pitch = padded[s][2];
            test_case c = {w, h, pitch, 3, pitch * h + 7, WAV_FILTER_53, lv[k], lh[k], 1};
            run_case(&c);
            c.filter = WAV_FILTER_97;
            run_case(&c);
        }
        printf("%zux%zu pitch %zu, 3 planes: done\n", padded[s][0], padded[s][1], padded[s][2]);
    }
    /* every chunk height computes the same */
    static const int chunks[] = {4, 5, 64, 256};
    for (size_t i = 0; i < (quick ? 1u : 4u) && max_samples >= 999000; i++) {
        chunk_pairs = chunks[i];
        test_case c = {1000, 999, 1000, 1, 1000 * 999, WAV_FILTER_53, 1, 5, 1};
        run_case(&c);
        c.lv = c.lh = 5;
        c.filter = WAV_FILTER_97;
        run_case(&c);
    }
    chunk_pairs = 0;
    printf("chunk heights: done\n");
    cudaStreamDestroy(stream);
    return xsf_test_finish();
}
