/* Internal to wavelet/: lifting constants shared by the C reference and the
 * CUDA kernels, so that both compute the same float operations. */
#ifndef XSF_WAVELET_INTERNAL_H
#define XSF_WAVELET_INTERNAL_H

/* CDF 9/7 lifting coefficients, 15444-1 Table F.4 (alpha, beta, gamma, delta, K). */
#define WAV97_ALPHA (-1.586134342059924f)
#define WAV97_BETA (-0.052980118572961f)
#define WAV97_GAMMA (0.882911075530934f)
#define WAV97_DELTA (0.443506852043971f)
#define WAV97_K (1.230174104914001f)
#define WAV97_INV_K (0.812893066115961f) /* 1/K, rounded once */

#include <stddef.h>

#include "wavelet.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The 2D levels that split rows: levels_v, less the levels whose band is
 * already 1 row high (those split only the horizontal dimension). */
int wav_row_splitting_levels(const wav_plan_desc *desc);

/* The incremental inverse (wav_inverse_rows_final) level by level: ll[l] for
 * l = V..0 (V = wav_row_splitting_levels) is how many rows of the low band
 * left by level l are final when the coefficients of image rows
 * [0, rows_in) are; ll[V] after the horizontal-only levels, ll[0] the
 * picture. */
void wav_inverse_final_levels(const wav_plan_desc *desc, size_t rows_in,
                              size_t ll[WAV_MAX_LEVELS + 1]);

#ifdef __cplusplus
}
#endif

#endif
