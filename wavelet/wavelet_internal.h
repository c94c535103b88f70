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

#endif
