/* xsflow wavelet core on CUDA GPUs: the plans of wavelet.h (same description,
 * same layout, same results: the 5/3 bit for bit, the 9/7 to float rounding)
 * run by register-based kernels (wavelet/README.md). Usable from C; needs no
 * CUDA header: `struct CUstream_st *` is cudaStream_t.
 *
 * Memory: every buffer is device memory. All scratch is allocated by
 * wav_cuda_plan_create on the current device; the transforms allocate nothing,
 * only enqueue work on the given stream and never synchronize (they return
 * before the GPU finishes; errors of the enqueueing are returned, those of the
 * kernels show at the caller's next synchronization). A plan serves one stream
 * at a time: its scratch is shared by the calls enqueued on it.
 *
 * CUDA devices: a plan belongs to the device that was current at its
 * creation; the caller makes that device current for every call on it
 * (its stream belongs to it too). No call changes the current device
 * (xsf_cuda_device.h).
 *
 * Speed: the out-of-place calls (_to) move the least data: each level reads its
 * input once and writes its output once, the horizontal-only levels of JPEG XS
 * all in one pass. The in-place calls first copy the part of the picture that
 * the last (inverse) or first (forward) 2D level would overwrite before reading
 * it: one extra pass over 3/4 (inverse) or all (forward) of the plane. With
 * levels_v == 0 both run in place at no extra cost. */
#ifndef XSF_WAVELET_CUDA_H
#define XSF_WAVELET_CUDA_H

#include "wavelet.h"

#ifdef __cplusplus
extern "C" {
#endif

struct CUstream_st;
typedef struct wav_cuda_plan wav_cuda_plan;

/* Validates the description (wav_plan_validate; plus width and height below
 * 2^30 and at most 65535 planes), builds the schedule of kernels and allocates
 * the scratch (cudaMalloc: blocks until the allocation is done). If err is not
 * NULL it receives the message of a failure, at creation and in later calls on
 * this plan, and must outlive the plan. */
xsf_status wav_cuda_plan_create(wav_cuda_plan **plan, const wav_plan_desc *desc, xsf_error *err);
void wav_cuda_plan_destroy(wav_cuda_plan *plan); /* cudaFree: synchronizes the device */
const wav_plan_desc *wav_cuda_plan_get_desc(const wav_cuda_plan *plan);
size_t wav_cuda_plan_scratch_bytes(const wav_cuda_plan *plan);
/* The message of the last failure on this plan ("" if none). */
const char *wav_cuda_plan_error(const wav_cuda_plan *plan);

/* In place on `data` (device memory laid out as the description says). */
xsf_status wav_cuda_forward(wav_cuda_plan *plan, void *data, struct CUstream_st *stream);
xsf_status wav_cuda_inverse(wav_cuda_plan *plan, void *data, struct CUstream_st *stream);

/* Out of place: src is read only, dst receives the result; both laid out as the
 * description says and not overlapping (XSF_ERR_ARG otherwise). */
xsf_status wav_cuda_forward_to(wav_cuda_plan *plan, const void *src, void *dst,
                               struct CUstream_st *stream);
xsf_status wav_cuda_inverse_to(wav_cuda_plan *plan, const void *src, void *dst,
                               struct CUstream_st *stream);

/* Out of place, a band of rows at a time, for a picture whose coefficients
 * arrive from the top down (see wav_inverse_rows_final in wavelet.h for
 * what rows_in means): writes the output rows that become final between
 * rows_before and rows_in, [wav_inverse_rows_final(rows_before),
 * wav_inverse_rows_final(rows_in)), and no other row of dst; reads only
 * the final rows of src's bands. Calls on one picture with rows_before =
 * the previous call's rows_in (0 at first) and rows_in growing to the
 * height give the picture of wav_cuda_inverse_to, bit for bit. The levels
 * in between are kept in the plan's scratch from one call to the next: no
 * other transform on the plan until the picture's last call. */
xsf_status wav_cuda_inverse_rows_to(wav_cuda_plan *plan, const void *src, void *dst,
                                    size_t rows_before, size_t rows_in, struct CUstream_st *stream);

/* ---- the inverse's picture as unsigned 16-bit samples ----
 * The last level of the inverse writes the picture straight into 16-bit
 * planes instead of dst's int32: a decoder's output stage (level shift,
 * rounding, clamping) done as the picture's rows leave the registers, so the
 * picture is written once, half as wide, and never read back. Sample v of
 * plane k becomes
 *   min(max((min(max(v, -2^30), 2^30) + offset[k]) >> shift[k], 0), max[k])
 * (arithmetic shift), at plane[k] + y * pitch[k] + x. For WAV_FILTER_53 plans
 * with levels_h >= 1 and at most WAV_U16_PLANES planes; offset within
 * +-(2^30 - 1), shift 0..30, max 0..65535 (XSF_ERR_ARG otherwise). */
#define WAV_U16_PLANES 4
typedef struct wav_u16_output {
    uint16_t *plane[WAV_U16_PLANES]; /* device memory, 2-byte aligned; the plan's planes */
    size_t pitch[WAV_U16_PLANES];    /* samples from one row to the next */
    int32_t offset[WAV_U16_PLANES];
    int shift[WAV_U16_PLANES];
    int32_t max[WAV_U16_PLANES];
} wav_u16_output;

/* wav_cuda_inverse_to and wav_cuda_inverse_rows_to with the picture written
 * as `out` says (same rows, same contracts; dst's int32 rows are not written). */
xsf_status wav_cuda_inverse_to_u16(wav_cuda_plan *plan, const void *src, const wav_u16_output *out,
                                   struct CUstream_st *stream);
xsf_status wav_cuda_inverse_rows_to_u16(wav_cuda_plan *plan, const void *src,
                                        const wav_u16_output *out, size_t rows_before,
                                        size_t rows_in, struct CUstream_st *stream);

/* ---- introspection for benchmarks and tuning ---- */

/* One kernel launch (or copy) of the out-of-place schedule. */
typedef struct wav_cuda_step_info {
    int first_level, last_level; /* levels done by the step, in execution order */
    int two_d;                   /* 1: both dimensions split; 0: horizontal only */
    size_t width, height;        /* region the step reads (per plane) */
    size_t bytes;                /* device memory the step must move: reads + writes */
    int chunk_pairs;             /* 2D steps: pairs of rows per warp; 0 otherwise */
} wav_cuda_step_info;

int wav_cuda_step_count(const wav_cuda_plan *plan, int inverse);
xsf_status wav_cuda_step_get(const wav_cuda_plan *plan, int inverse, int index,
                             wav_cuda_step_info *info);
/* Runs step `index` of the out-of-place schedule alone; the earlier steps must
 * have run (their results sit in the plan's scratch). */
xsf_status wav_cuda_step_run(wav_cuda_plan *plan, int inverse, int index, const void *src,
                             void *dst, struct CUstream_st *stream);
/* Pair rows per warp of the 2D kernels (4..256), 0 for the automatic choice. */
xsf_status wav_cuda_plan_tune(wav_cuda_plan *plan, int chunk_pairs);

#ifdef __cplusplus
}
#endif
#endif
