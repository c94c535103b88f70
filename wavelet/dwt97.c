/* CDF 9/7 irreversible lifting, 15444-1 F.3.8.2 / F.4.8.2, in float32 with the
 * JPEG 2000 normalization (low-pass *= 1/K, high-pass *= K). Each step computes
 * x + c * (a + b) without contraction, the same operations as the CUDA kernels
 * (wavelet/dwt_lifting.cuh), so that both agree to the last bit on the same
 * compiler settings. */
#include "wavelet.h"
#include "wavelet_internal.h"

/* odd[i] += c * (even[i] + even[i+1]), x[n] = x[n-2] */
static void lift_odd(float *x, size_t n, size_t s, float c)
{
    size_t i;
    for (i = 1; i + 1 < n; i += 2)
        x[i * s] += c * (x[(i - 1) * s] + x[(i + 1) * s]);
    if (i < n)
        x[i * s] += c * (x[(i - 1) * s] + x[(i - 1) * s]);
}

/* even[i] += c * (odd[i-1] + odd[i]), x[-1] = x[1], x[n] = x[n-2] */
static void lift_even(float *x, size_t n, size_t s, float c)
{
    size_t i;
    x[0] += c * (x[s] + x[s]);
    for (i = 2; i + 1 < n; i += 2)
        x[i * s] += c * (x[(i - 1) * s] + x[(i + 1) * s]);
    if (i < n)
        x[i * s] += c * (x[(i - 1) * s] + x[(i - 1) * s]);
}

static void scale(float *x, size_t n, size_t s, float even, float odd)
{
    for (size_t i = 0; i < n; i++)
        x[i * s] *= (i & 1) ? odd : even;
}

void wav97_forward_1d(float *x, size_t n, size_t s)
{
    if (n < 2)
        return; /* F.3.7: a single sample passes through, unscaled */
    lift_odd(x, n, s, WAV97_ALPHA);
    lift_even(x, n, s, WAV97_BETA);
    lift_odd(x, n, s, WAV97_GAMMA);
    lift_even(x, n, s, WAV97_DELTA);
    scale(x, n, s, WAV97_INV_K, WAV97_K);
}

void wav97_inverse_1d(float *x, size_t n, size_t s)
{
    if (n < 2)
        return;
    scale(x, n, s, WAV97_K, WAV97_INV_K);
    lift_even(x, n, s, -WAV97_DELTA);
    lift_odd(x, n, s, -WAV97_GAMMA);
    lift_even(x, n, s, -WAV97_BETA);
    lift_odd(x, n, s, -WAV97_ALPHA);
}
