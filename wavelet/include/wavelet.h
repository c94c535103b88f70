/* xsflow wavelet core: CDF 5/3 (exact integer lifting of ISO/IEC 15444-1 Annex F
 * and ISO/IEC 21122-1 Annex E) and CDF 9/7 (float lifting, JPEG 2000 irreversible
 * filter), forward and inverse, for JPEG 2000-style symmetric and JPEG XS
 * asymmetric decompositions. The CUDA version of the same plans is in
 * wavelet_cuda.h; this header needs no CUDA headers.
 *
 * Layout: one plane is transformed in place. After the forward transform the
 * plane holds the subbands in Mallat order: at each level the low-pass half of
 * a dimension of n samples occupies the first ceil(n/2) positions and the
 * high-pass half the following floor(n/2). Levels 1..levels_v split both
 * dimensions (vertical then horizontal lifting in the forward direction,
 * horizontal then vertical in the inverse); levels levels_v+1..levels_h split
 * only the horizontal dimension of the remaining low-pass band. A symmetric
 * decomposition has levels_v == levels_h. Boundaries use whole-sample symmetric
 * extension (x[-i] = x[i], x[n-1+i] = x[n-1-i]), right for any size; a 1-sample
 * line is left unchanged (15444-1 F.3.7 / F.4.8), so a level whose band is 1
 * sample wide in a dimension leaves that dimension as it is and an empty
 * high-pass band. Lines start at even coordinates (the first sample is low-pass).
 *
 * Sample types: the 5/3 works on int32 (WAV_INT32); the 5/3 sums two samples, so
 * samples and coefficients must stay within +-2^29 (JPEG XS and JPEG 2000 data
 * use at most ~20 bits). Right shifts of negative values floor, as both
 * standards require. The 9/7 works on float32 (WAV_FLOAT32) with the JPEG 2000
 * normalization (15444-1 F.3.8.2): the low-pass filter has DC gain 1, the
 * high-pass filter gain 2 at the Nyquist frequency (analysis taps 0.6029490182,
 * 0.2668641184, -0.0782232665, -0.0168641184, 0.0267487574 and 1.1150870525,
 * -0.5912717631, -0.0575435262, 0.0912717631).
 */
#ifndef XSF_WAVELET_H
#define XSF_WAVELET_H

#include "xsf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum wav_filter { WAV_FILTER_53 = 0, WAV_FILTER_97 = 1 } wav_filter;
typedef enum wav_sample { WAV_INT32 = 0, WAV_FLOAT32 = 1 } wav_sample;

#define WAV_MAX_LEVELS 15

typedef struct wav_plan_desc {
    size_t width, height; /* samples of one plane, >= 1 */
    size_t pitch;         /* elements between the starts of two rows, >= width */
    size_t planes;        /* planes of this size transformed together (>= 1) */
    size_t plane_stride;  /* elements between the starts of two planes (unused if planes == 1) */
    wav_filter filter;    /* 5/3 works on int32 samples, 9/7 on float32 */
    wav_sample sample;
    int levels_v; /* levels splitting both dimensions, 0..levels_h */
    int levels_h; /* total horizontal levels, 0..WAV_MAX_LEVELS (0: identity) */
} wav_plan_desc;

typedef struct wav_plan wav_plan;

/* Checks a description: sizes, filter/sample pairing, level counts, and that
 * the planes do not overlap and the extent fits in size_t. */
xsf_status wav_plan_validate(const wav_plan_desc *desc, xsf_error *err);

/* Validates the description and allocates the plan's scratch memory (one line
 * of max(width, height) samples and a strip of columns). */
xsf_status wav_plan_create(wav_plan **plan, const wav_plan_desc *desc, xsf_error *err);
void wav_plan_destroy(wav_plan *plan);
const wav_plan_desc *wav_plan_get_desc(const wav_plan *plan);

/* C reference transforms, in place on host memory (data points to the first
 * sample of the first plane). Single-threaded; a plan serves one call at a time. */
xsf_status wav_forward(wav_plan *plan, void *data);
xsf_status wav_inverse(wav_plan *plan, void *data);

/* The forward transform in parts, for callers that spread it over threads of
 * their own (plane 0 of the plan). Level l (1..levels_h) is a vertical step
 * (levels 1..levels_v only) then a horizontal step; a step has
 * wav_forward_part_count parts (vertical: blocks of columns, horizontal:
 * rows), any subset of which may run at once, each part once; every part of
 * a step is done before any of the next step begins, except that the
 * horizontal steps of levels max(levels_v, 1)..levels_h, which keep every
 * row to itself, may go row by row (row r of a level once row r of the one
 * before is done). Done in that order, the result is wav_forward's, bit for
 * bit. `scratch`: wav_part_scratch(desc)
 * 32-bit words of the caller's, one area per concurrent call. The plan is
 * only read. */
size_t wav_part_scratch(const wav_plan_desc *desc);
size_t wav_forward_part_count(const wav_plan *plan, int level, int vertical);
void wav_forward_part(const wav_plan *plan, void *data, int level, int vertical, size_t first,
                      size_t count, void *scratch);

/* The inverse transform in parts, the same way (plane 0 of the plan): level
 * l from levels_h down to 1 is a horizontal step (parts: rows) then, for
 * levels 1..levels_v, a vertical step (parts: blocks of columns); any
 * subset of a step's parts may run at once, each part once, every part of
 * a step done before any of the next begins. Done in that order, the
 * result is wav_inverse's, bit for bit. `scratch`: wav_part_scratch(desc)
 * 32-bit words of the caller's, one area per concurrent call. The plan is
 * only read. */
size_t wav_inverse_part_count(const wav_plan *plan, int level, int vertical);
void wav_inverse_part(const wav_plan *plan, void *data, int level, int vertical, size_t first,
                      size_t count, void *scratch);

/* A level of the 5/3 that splits both dimensions (1 <= level <=
 * levels_v), over pairs of rows, from a source of its input rows: its
 * vertical and horizontal steps fused, one pair of rows at a time, for
 * callers that make the samples as they go or run the levels of a band of
 * rows while it is in cache. src(src_ctx, y, buf) returns row y of the
 * level's input (wav_level_input_size: the plane's samples at level 1, the
 * low band left by the level before above it): a pointer that stays valid
 * until the call returns, into buf (scratch words) or to memory of the
 * caller's. Pair k (0 <= k < wav_forward_level_pairs, 0 where the plan is
 * not a 5/3 or the level does not split rows) reads input rows 2k .. 2k + 2
 * and makes the level's low row k and high row k (where k < h / 2, h the
 * level's input height), both lifted across: the high row at high + (k -
 * first) * pitch, the low row's high half at low + (k - first) * pitch +
 * (w + 1) / 2 (w the level's input width), its low half (the next level's
 * input row k) at ll + (k - first) * ll_pitch below levels_v; at levels_v it stays
 * at the start of the low row, which goes on through the horizontal steps
 * of every level after. In the plane's own layout, low = data + first *
 * pitch and high = data + ((h + 1) / 2 + first) * pitch. Each row is then
 * final, bit for bit wav_forward's (with the level's input made by this
 * call of the level before, where level > 1); then done(ctx, k) is
 * called, when not NULL, while they are in cache. Pairs [first, first +
 * count): any parts at once, each once (a part reads rows 2 first - 2 .. 2
 * (first + count)), from a source that the outputs do not overlap.
 * `scratch`: wav_part_scratch words. The plan is only read. */
typedef const int32_t *(*wav_row_source)(void *src_ctx, size_t y, int32_t *buf);
size_t wav_forward_level_pairs(const wav_plan *plan, int level);
void wav_forward_level_part(const wav_plan *plan, int level, wav_row_source src, void *src_ctx,
                            int32_t *low, int32_t *high, size_t pitch, int32_t *ll, size_t ll_pitch,
                            size_t first, size_t count, void *scratch,
                            void (*done)(void *ctx, size_t k), void *ctx);

/* Size of the low-pass half of n samples at level `level` (level 0 is n itself). */
static inline size_t wav_low_len(size_t n, int level)
{
    for (int i = 0; i < level; i++)
        n = (n + 1) / 2;
    return n;
}

/* Incremental inverse (sub-frame latency: a picture whose coefficients
 * arrive from the top down). The coefficients of image rows [0, rows_in)
 * are final when every band of vertical level l (1..levels_v) holds its
 * rows [0, rows_in >> l) and the bands of the horizontal-only levels their
 * rows [0, rows_in >> levels_v) (JPEG XS: rows_in = precinct rows received
 * x 2^levels_v); all of them when rows_in >= height. Returns how many rows
 * [0, n) of the inverse transform's output depend on those coefficients
 * alone: n = height when rows_in >= height; otherwise the 5/3 gives up one
 * pair of rows and the 9/7 two at each vertical level, for the lifting's
 * look-ahead. */
size_t wav_inverse_rows_final(const wav_plan_desc *desc, size_t rows_in);

/* Size of the region that level `level` (1..levels_h) splits, that is the
 * low-pass band left by level `level` - 1: width and height. */
void wav_level_input_size(const wav_plan_desc *desc, int level, size_t *width, size_t *height);

/* One-dimensional lifting on a strided line (the building blocks the codecs may
 * call directly). `x` holds n interleaved samples (even = low, odd = high) on
 * input to the inverse and on output of the forward. */
void wav53_forward_1d(int32_t *x, size_t n, size_t stride);
void wav53_inverse_1d(int32_t *x, size_t n, size_t stride);
void wav97_forward_1d(float *x, size_t n, size_t stride);
void wav97_inverse_1d(float *x, size_t n, size_t stride);

#ifdef __cplusplus
}
#endif
#endif
