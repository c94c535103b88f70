#include "pl_hist.h"

void pl_hist_add(pl_hist *h, uint64_t ns)
{
    const uint64_t us = ns / 1000u;
    size_t b;
    if (us < PL_HIST_FINE)
        b = (size_t)us;
    else if (us < PL_HIST_FINE + (uint64_t)PL_HIST_COARSE * 100u)
        b = PL_HIST_FINE + (size_t)((us - PL_HIST_FINE) / 100u);
    else
        b = PL_HIST_BUCKETS - 1;
    if (h->bucket[b] < UINT32_MAX)
        h->bucket[b]++;
    h->count++;
    h->sum_ns += ns;
    if (ns > h->max_ns)
        h->max_ns = ns;
}

double pl_hist_percentile_us(const pl_hist *h, double p)
{
    if (!h->count)
        return 0;
    /* The smallest bucket at which the cumulative count reaches p x count. */
    uint64_t want = (uint64_t)(p * (double)h->count + 0.5);
    if (want < 1)
        want = 1;
    uint64_t seen = 0;
    for (size_t b = 0; b < PL_HIST_BUCKETS; b++) {
        seen += h->bucket[b];
        if (seen >= want) {
            double v;
            if (b < PL_HIST_FINE)
                v = (double)b + 0.5;
            else if (b < PL_HIST_BUCKETS - 1)
                v = PL_HIST_FINE + (double)(b - PL_HIST_FINE) * 100.0 + 50.0;
            else
                v = (double)h->max_ns / 1000.0;
            const double max_us = (double)h->max_ns / 1000.0;
            return v < max_us ? v : max_us;
        }
    }
    return (double)h->max_ns / 1000.0;
}

void pl_hist_summary(const pl_hist *h, pl_latency *out)
{
    out->count = h->count;
    out->p50_us = pl_hist_percentile_us(h, 0.50);
    out->p99_us = pl_hist_percentile_us(h, 0.99);
    out->max_us = (double)h->max_ns / 1000.0;
    out->mean_us = h->count ? (double)h->sum_ns / 1000.0 / (double)h->count : 0;
}
