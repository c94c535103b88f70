/* The GPU decoder's incremental API (xs_gpu_decode_begin/more/end/abort)
 * against xs_gpu_decode and the C decoder: every conformance vector (and
 * the UHD ones where present), fed as it would arrive from the network at
 * several split patterns, must give the same picture bit for bit:
 *   - all at once (begin with the whole codestream, then end);
 *   - every slice boundary one at a time, with a prefix one byte short of
 *     each boundary in between (which must launch nothing new);
 *   - random byte prefixes;
 *   - and a frame aborted halfway, followed by a good frame.
 * Slice by slice and along random prefixes, the rows xs_gpu_decode_rows
 * reports final before the end must hold the picture's samples already.
 * The buffer is filled as the prefix grows (the bytes beyond it are garbage
 * until then), so nothing may depend on bytes not yet "received".
 * Corrupted codestreams must be refused by both paths or decoded alike.
 * Exits 77 (skipped) where no GPU is present.
 * Usage: test_gpu_incremental VECTOR_DIR [UHD_DIR] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef XSF_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "../test.h"
#include "vector_files.h"
#include "xs.h"

/* Pinned where CUDA is built, so that the uploads are asynchronous as in the
 * pipeline (the host keeps writing later bytes while earlier ones upload). */
static uint8_t *host_alloc(size_t n)
{
#ifdef XSF_HAVE_CUDA
    void *p = NULL;
    return cudaMallocHost(&p, n ? n : 1) == cudaSuccess ? p : NULL;
#else
    return malloc(n ? n : 1);
#endif
}

static void host_free(uint8_t *p)
{
#ifdef XSF_HAVE_CUDA
    if (p)
        cudaFreeHost(p);
#else
    free(p);
#endif
}

/* Corrupted copies and random-prefix patterns tried per vector: fewer on
 * the host emulation of CUDA (tests/cuda_emu), where a decode takes a
 * thousand times longer; every other pattern still runs on every vector. */
#ifdef XSF_TEST_EMULATED
#define CORRUPT_TRIALS 1
#define RANDOM_PATTERNS 1
#else
#define CORRUPT_TRIALS 6
#define RANDOM_PATTERNS 2
#endif

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

/* One picture in host memory, as the GPU decoder's last one. */
typedef struct picture {
    int nc;
    size_t samples[XS_MAX_COMPONENTS];
    uint16_t *plane[XS_MAX_COMPONENTS];
} picture;

static int download(xs_gpu_decoder *g, picture *p)
{
    const xsf_picture *gi = xs_gpu_decoder_picture(g);
    if (!gi)
        return 0;
    memset(p, 0, sizeof *p);
    p->nc = gi->fmt.nc;
    for (int c = 0; c < gi->fmt.nc; c++) {
        p->samples[c] = (size_t)gi->fmt.width[c] * (size_t)gi->fmt.height[c];
        p->plane[c] = calloc(p->samples[c] ? p->samples[c] : 1, sizeof(uint16_t));
    }
    return xs_gpu_download(g, p->plane, 1) == XSF_OK;
}

static void picture_free(picture *p)
{
    for (int c = 0; c < XS_MAX_COMPONENTS; c++)
        free(p->plane[c]);
    memset(p, 0, sizeof *p);
}

static int same_picture(const picture *a, const picture *b)
{
    if (a->nc != b->nc)
        return 0;
    for (int c = 0; c < a->nc; c++)
        if (a->samples[c] != b->samples[c] ||
            memcmp(a->plane[c], b->plane[c], a->samples[c] * sizeof(uint16_t)))
            return 0;
    return 1;
}

static int same_as_c(const picture *a, const xsf_picture *img)
{
    if (a->nc != img->fmt.nc)
        return 0;
    for (int c = 0; c < img->fmt.nc; c++) {
        if (a->samples[c] != (size_t)img->fmt.width[c] * img->fmt.height[c])
            return 0;
        for (int y = 0; y < img->fmt.height[c]; y++)
            if (memcmp(a->plane[c] + (size_t)y * img->fmt.width[c], xsf_picture_row16(img, c, y),
                       (size_t)img->fmt.width[c] * sizeof(uint16_t)))
                return 0;
    }
    return 1;
}

/* With `ref` (the picture): the rows xs_gpu_decode_rows reports after a
 * begin or more only grow, and once the work enqueued has run they hold
 * ref's samples (they are final while later slices are still garbage);
 * *released (may be NULL) gets component 0's rows before the end. */
static void check_rows(xs_gpu_decoder *g, const picture *ref, picture *got, int prev[],
                       const char *name)
{
    const xsf_picture *gi = xs_gpu_decoder_picture(g);
    int rows[XS_MAX_COMPONENTS];
    xs_gpu_decode_rows(g, rows);
    if (!gi || gi->fmt.nc != ref->nc) {
        CHECK(0, "%s: no picture shape during the frame", name);
        return;
    }
    if (!got->nc) {
        got->nc = gi->fmt.nc;
        for (int c = 0; c < gi->fmt.nc; c++) {
            got->samples[c] = (size_t)gi->fmt.width[c] * (size_t)gi->fmt.height[c];
            got->plane[c] = calloc(got->samples[c] ? got->samples[c] : 1, sizeof(uint16_t));
        }
    }
    for (int c = 0; c < gi->fmt.nc; c++) {
        CHECK(rows[c] >= prev[c] && rows[c] <= gi->fmt.height[c],
              "%s: component %d rows %d after %d (of %d)", name, c, rows[c], prev[c],
              gi->fmt.height[c]);
        if (rows[c] < prev[c] || rows[c] > gi->fmt.height[c])
            return;
    }
    CHECK(xs_gpu_download_rows(g, got->plane, prev, rows) == XSF_OK && xs_gpu_sync(g) == XSF_OK,
          "%s: rows download: %s", name, xs_gpu_decoder_error(g));
    for (int c = 0; c < gi->fmt.nc; c++) {
        const size_t w = (size_t)gi->fmt.width[c];
        CHECK(memcmp(got->plane[c] + (size_t)prev[c] * w, ref->plane[c] + (size_t)prev[c] * w,
                     (size_t)(rows[c] - prev[c]) * w * sizeof(uint16_t)) == 0,
              "%s: component %d rows [%d, %d) reported final differ from the picture", name, c,
              prev[c], rows[c]);
        prev[c] = rows[c];
    }
}

/* Feeds cs[0, len) into `work` along the prefixes cut[0..ncut) (increasing,
 * each < len): begin at the first that holds the header, more at the rest,
 * then end with all of it. Returns the status of end (or of the first
 * failing call); *consumed from end. With `ref`, check_rows after each
 * call. */
static xsf_status feed_rows(xs_gpu_decoder *g, uint8_t *work, const uint8_t *cs, size_t len,
                            const size_t *cut, size_t ncut, size_t *consumed, const picture *ref,
                            int *released)
{
    memset(work, 0xa5, len); /* not yet received */
    size_t have = 0;
    int begun = 0;
    int prev[XS_MAX_COMPONENTS] = {0};
    picture got = {0};
    for (size_t i = 0; i < ncut; i++) {
        memcpy(work + have, cs + have, cut[i] - have);
        have = cut[i];
        xsf_status st;
        if (!begun) {
            st = xs_gpu_decode_begin(g, work, have);
            if (st == XSF_ERR_AGAIN)
                continue;
            begun = st == XSF_OK;
        } else {
            st = xs_gpu_decode_more(g, work, have);
        }
        if (st != XSF_OK) {
            picture_free(&got);
            return st;
        }
        if (ref && begun)
            check_rows(g, ref, &got, prev, "rows");
    }
    picture_free(&got);
    if (released)
        *released = prev[0];
    memcpy(work + have, cs + have, len - have);
    return xs_gpu_decode_end(g, work, len, consumed);
}

static xsf_status feed(xs_gpu_decoder *g, uint8_t *work, const uint8_t *cs, size_t len,
                       const size_t *cut, size_t ncut, size_t *consumed)
{
    return feed_rows(g, work, cs, len, cut, ncut, consumed, NULL, NULL);
}

static int cmp_size(const void *a, const void *b)
{
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* One codestream cs[0, len): every pattern against the references. */
static void check_codestream(xs_decoder *c, xs_gpu_decoder *g, const uint8_t *cs, size_t len,
                             const char *name)
{
    xs_layout lay;
    xsf_error err;
    xsf_error_clear(&err);
    if (xs_scan_layout(cs, len, &lay, &err) != XSF_OK) {
        CHECK(0, "%s: layout: %s", name, err.msg);
        return;
    }
    const xsf_picture *img = NULL;
    size_t used_c = 0, used_g = 0;
    CHECK(xs_decode(c, cs, len, &used_c, &img) == XSF_OK, "%s: C decoder: %s", name,
          xs_decoder_error(c));
    uint8_t *work = host_alloc(len);
    size_t *cut = malloc(sizeof *cut * (2 * lay.nslices + 64));
    picture whole = {0}, inc = {0};
    if (!img || !work || !cut)
        goto out;
    CHECK(xs_gpu_decode(g, cs, len, &used_g) == XSF_OK && xs_gpu_sync(g) == XSF_OK,
          "%s: xs_gpu_decode: %s", name, xs_gpu_decoder_error(g));
    CHECK(download(g, &whole) && same_as_c(&whole, img),
          "%s: xs_gpu_decode differs from the C decoder", name);
    CHECK(used_g == used_c && used_c == lay.codestream_bytes,
          "%s: consumed %zu (GPU) %zu (C) of %zu", name, used_g, used_c, lay.codestream_bytes);

    /* The subset (vf_subset): no random prefixes. */
    size_t samples = 0;
    for (int k = 0; k < img->fmt.nc; k++)
        samples += (size_t)img->fmt.width[k] * img->fmt.height[k];
    const int subset = vf_subset(samples);
    for (int pattern = 0; pattern < 3 + (subset ? 0 : RANDOM_PATTERNS); pattern++) {
        size_t n = 0;
        const char *what = "";
        if (pattern == 0) {
            what = "all at once";
            cut[n++] = len;
        } else if (pattern == 1) {
            /* The header without its SLH (begin says AGAIN), then each slice
             * boundary, one byte short of the next in between. */
            what = "slice by slice";
            cut[n++] = lay.header_bytes;
            for (size_t s = 0; s < lay.nslices; s++) {
                const size_t next = s + 1 < lay.nslices ? lay.slice_offset[s + 1] : len - 2;
                if (next - 1 > cut[n - 1])
                    cut[n++] = next - 1;
                cut[n++] = next;
            }
        } else if (pattern == 2) {
            what = "begin with the header alone, then the rest at end";
            cut[n++] = lay.slice_offset[0] + 2;
        } else {
            what = "random prefixes";
            const size_t k = 1 + rnd() % 40;
            for (size_t i = 0; i < k; i++)
                cut[n++] = 1 + (size_t)rnd() % (len - 1);
            qsort(cut, n, sizeof *cut, cmp_size);
            size_t m = 0; /* strictly increasing */
            for (size_t i = 0; i < n; i++)
                if (!m || cut[i] > cut[m - 1])
                    cut[m++] = cut[i];
            n = m;
        }
        size_t consumed = 0;
        int released = 0;
        /* Slice by slice on a decoder of its own, whose buffers hold no
         * earlier decode of this picture: a row released before its
         * coefficients are decoded then shows (the emulation poisons new
         * device memory; a GPU leaves it as it finds it). */
        xs_gpu_decoder *dec = g;
        if (pattern == 1 && xs_gpu_decoder_create(&dec, 0, NULL, NULL) != XSF_OK) {
            CHECK(0, "%s: a second GPU decoder", name);
            dec = g;
        }
        const xsf_status st = feed_rows(dec, work, cs, len, cut, n, &consumed,
                                        pattern == 1 || pattern == 3 ? &whole : NULL, &released);
        CHECK(st == XSF_OK && xs_gpu_sync(dec) == XSF_OK, "%s (%s): %s", name, what,
              xs_gpu_decoder_error(dec));
        /* Slice by slice, the rows above the last slices are out before the end. */
        if (pattern == 1 && lay.nslices >= 3)
            CHECK(released > 0, "%s (%s): no row released before the end (%zu slices)", name, what,
                  lay.nslices);
        CHECK(consumed == used_c, "%s (%s): consumed %zu, expected %zu", name, what, consumed,
              used_c);
        if (st == XSF_OK) {
            CHECK(download(dec, &inc) && same_picture(&inc, &whole),
                  "%s (%s): differs from xs_gpu_decode", name, what);
            picture_free(&inc);
        }
        if (dec != g)
            xs_gpu_decoder_destroy(dec);
    }

    /* A frame aborted halfway, then the same frame whole: still exact, and
     * the aborted frame leaves no error behind. */
    {
        memset(work, 0xa5, len);
        const size_t half =
            lay.nslices > 1 ? lay.slice_offset[lay.nslices / 2] + 3 : lay.slice_offset[0] + 2;
        memcpy(work, cs, half);
        const xsf_status st = xs_gpu_decode_begin(g, work, half);
        CHECK(st == XSF_OK, "%s: begin of the frame to abort: %s", name, xs_gpu_decoder_error(g));
        size_t dummy;
        CHECK(xs_gpu_decode(g, cs, len, &dummy) == XSF_ERR_ARG,
              "%s: xs_gpu_decode accepted during a frame", name);
        xs_gpu_decode_abort(g);
        CHECK(xs_gpu_sync(g) == XSF_OK, "%s: sync after abort: %s", name, xs_gpu_decoder_error(g));
        CHECK(xs_gpu_decode_more(g, work, half) == XSF_ERR_ARG, "%s: more accepted after abort",
              name);
        size_t consumed = 0;
        cut[0] = lay.slice_offset[0] + 2;
        const xsf_status st2 = feed(g, work, cs, len, cut, 1, &consumed);
        CHECK(st2 == XSF_OK && xs_gpu_sync(g) == XSF_OK, "%s: frame after an abort: %s", name,
              xs_gpu_decoder_error(g));
        if (st2 == XSF_OK) {
            CHECK(download(g, &inc) && same_picture(&inc, &whole),
                  "%s: frame after an abort differs", name);
            picture_free(&inc);
        }
    }

    /* A codestream cut short, ended as if whole: refused like xs_gpu_decode refuses it. */
    if (lay.nslices > 1) {
        const size_t short_len = lay.slice_offset[lay.nslices - 1] + 1;
        size_t consumed;
        cut[0] = lay.slice_offset[0] + 2;
        const xsf_status st = feed(g, work, cs, short_len, cut, 1, &consumed);
        CHECK(st == XSF_ERR_TRUNCATED, "%s: a cut codestream ended with status %d", name, (int)st);
        CHECK(xs_gpu_decode(g, cs, short_len, &consumed) == XSF_ERR_TRUNCATED,
              "%s: whole decode of the cut one", name);
    }

    /* Corrupted data past the header: both paths refuse, or agree. */
    if (len < 200000) {
        uint8_t *bad = host_alloc(len);
        for (int t = 0; bad && t < CORRUPT_TRIALS; t++) {
            memcpy(bad, cs, len);
            for (int f = 0; f < 1 + t % 3; f++)
                bad[lay.header_bytes + rnd() % (len - lay.header_bytes)] ^=
                    (uint8_t)(1u << (rnd() % 8));
            size_t cw = 0, ci = 0;
            xsf_status sw = xs_gpu_decode(g, bad, len, &cw);
            if (sw == XSF_OK)
                sw = xs_gpu_sync(g);
            picture pw = {0}, pi = {0};
            if (sw == XSF_OK)
                download(g, &pw);
            size_t n = 0;
            for (size_t s = 1; s < lay.nslices; s++)
                cut[n++] = lay.slice_offset[s];
            if (!n)
                cut[n++] = lay.header_bytes;
            xsf_status si = feed(g, work, bad, len, cut, n, &ci);
            if (si == XSF_OK)
                si = xs_gpu_sync(g);
            if (si == XSF_OK)
                download(g, &pi);
            CHECK((sw == XSF_OK) == (si == XSF_OK),
                  "%s corrupted (trial %d): whole %d, incremental %d", name, t, (int)sw, (int)si);
            if (sw == XSF_OK && si == XSF_OK)
                CHECK(cw == ci && same_picture(&pw, &pi),
                      "%s corrupted (trial %d): pictures differ", name, t);
            picture_free(&pw);
            picture_free(&pi);
        }
        host_free(bad);
    }
out:
    picture_free(&whole);
    free(cut);
    host_free(work);
    xs_layout_free(&lay);
}

/* Each codestream of the directory's files on its own. */
static int run_dir(xs_decoder *c, xs_gpu_decoder *g, const char *dir)
{
    return vf_check_dir(c, g, dir, check_codestream, "decoded incrementally");
}

int main(int argc, char **argv)
{
    if (xs_gpu_available() != XSF_OK) {
        printf("no GPU: incremental GPU decoder tests skipped\n");
        return XSF_TEST_SKIP;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: %s VECTOR_DIR [UHD_DIR]\n", argv[0]);
        return 2;
    }
    xs_gpu_decoder *g = NULL;
    xs_decoder *c = NULL;
    CHECK(xs_gpu_decoder_create(&g, 0, NULL, NULL) == XSF_OK, "cannot create the GPU decoder");
    CHECK(xs_decoder_create(&c, NULL) == XSF_OK, "cannot create the C decoder");
    if (!g || !c)
        return xsf_test_finish();
    CHECK(run_dir(c, g, argv[1]) > 0, "no vectors in %s", argv[1]);
    for (int i = 2; i < argc; i++)
        run_dir(c, g, argv[i]);
    xs_gpu_decoder_destroy(g);
    xs_decoder_destroy(c);
    return xsf_test_finish();
}
