/* Rate control, C reference: the same decisions as the CUDA encoder's
 * rate kernel (gpu_kernels.cuh), by the same rules (rate_rules.h):
 *
 *  1. If every pass of every code block fits the budget, all are kept (the
 *     5/3 is then lossless).
 *  2. Else a bisection of the slope threshold lambda (64 halvings of
 *     [0, 2 max slope + 1], stopping when the midpoint equals an end) finds
 *     the smallest lambda whose hull points fit; those are kept.
 *  3. Fill: in rounds, every code block whose next hull point alone fits what
 *     is left is a candidate; candidates are taken in code-block order while
 *     their running sum fits; until a round takes none (at most 64 rounds).
 *
 * The last step brings the size to within one hull segment of the budget. */
#include <stdlib.h>

#include "bpc_internal.h"
#include "rate_rules.h"

static uint64_t total_at(const bpc_rate_cb *cbs, size_t ncb, double lambda)
{
    uint64_t t = 0;
    for (size_t i = 0; i < ncb; i++)
        t += bpc_rr_point_bytes(&cbs[i], bpc_rr_pick(&cbs[i], lambda));
    return t;
}

void bpc_rate_select(const bpc_rate_cb *cbs, size_t ncb, size_t budget, uint8_t *passes)
{
    (void)budget;
    double top = 0;
    for (size_t i = 0; i < ncb; i++)
        if (cbs[i].npoints && cbs[i].slope[0] > top)
            top = cbs[i].slope[0];
    double lo = 0, hi = 2 * top + 1;
    for (int it = 0; it < 64; it++) {
        const double mid = (lo + hi) * 0.5;
        if (!(mid > lo && mid < hi))
            break;
        if (total_at(cbs, ncb, mid) <= budget)
            hi = mid;
        else
            lo = mid;
    }
    int *point = malloc((ncb ? ncb : 1) * sizeof *point);
    uint64_t used = 0;
    for (size_t i = 0; i < ncb; i++) {
        point[i] = bpc_rr_pick(&cbs[i], hi);
        used += bpc_rr_point_bytes(&cbs[i], point[i]);
    }
    uint64_t left = used <= budget ? budget - used : 0;
    for (int round = 0; round < 64 && point; round++) {
        uint64_t run = 0;
        int taken = 0;
        for (size_t i = 0; i < ncb; i++) {
            const int at = point[i];
            uint64_t need;
            if (!bpc_rr_next(&cbs[i], at, &need) || need > left)
                continue; /* not a candidate */
            run += need;
            if (run <= left) {
                point[i] = at + 1;
                taken = 1;
            } else {
                run -= need;
                break; /* the first candidate that does not fit ends the round */
            }
        }
        left -= run;
        if (!taken)
            break;
    }
    for (size_t i = 0; i < ncb; i++)
        passes[i] = point ? (uint8_t)(point[i] < 0 ? 0 : cbs[i].pass[point[i]]) : 0;
    free(point);
}
