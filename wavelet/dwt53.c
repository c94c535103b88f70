/* CDF 5/3 reversible lifting, 15444-1 F.3.8.1 / F.4.8.1 and 21122-1 Annex E:
 * the exact integer filter both standards share. One line of n interleaved
 * samples, even positions low-pass, odd high-pass, whole-sample symmetric
 * extension x[-1] = x[1], x[n] = x[n-2]. */
#include "wavelet.h"

/* Both standards floor the lifting terms; C leaves >> of negative values to the
 * implementation, and every compiler we build with shifts arithmetically. */
_Static_assert((-3 >> 1) == -2, "arithmetic right shift required");

void wav53_forward_1d(int32_t *x, size_t n, size_t s)
{
    if (n < 2)
        return; /* F.3.7: a single sample passes through */
    /* predict: odd[i] -= (even[i] + even[i+1]) >> 1 */
    size_t i;
    for (i = 1; i + 1 < n; i += 2)
        x[i * s] -= (x[(i - 1) * s] + x[(i + 1) * s]) >> 1;
    if (i < n) /* n even: the last odd sample mirrors x[n] = x[n-2] */
        x[i * s] -= (x[(i - 1) * s] + x[(i - 1) * s]) >> 1;
    /* update: even[i] += (odd[i-1] + odd[i] + 2) >> 2 */
    x[0] += (x[s] + x[s] + 2) >> 2;
    for (i = 2; i + 1 < n; i += 2)
        x[i * s] += (x[(i - 1) * s] + x[(i + 1) * s] + 2) >> 2;
    if (i < n) /* n odd: the last even sample mirrors x[n] = x[n-2] */
        x[i * s] += (x[(i - 1) * s] + x[(i - 1) * s] + 2) >> 2;
}

void wav53_inverse_1d(int32_t *x, size_t n, size_t s)
{
    if (n < 2)
        return;
    size_t i;
    x[0] -= (x[s] + x[s] + 2) >> 2;
    for (i = 2; i + 1 < n; i += 2)
        x[i * s] -= (x[(i - 1) * s] + x[(i + 1) * s] + 2) >> 2;
    if (i < n)
        x[i * s] -= (x[(i - 1) * s] + x[(i - 1) * s] + 2) >> 2;
    for (i = 1; i + 1 < n; i += 2)
        x[i * s] += (x[(i - 1) * s] + x[(i + 1) * s]) >> 1;
    if (i < n)
        x[i * s] += (x[(i - 1) * s] + x[(i - 1) * s]) >> 1;
}
