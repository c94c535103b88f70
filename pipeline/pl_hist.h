/* A latency histogram of fixed size: 1 us steps below 10 ms, 100 us steps
 * up to 1 s, one bucket beyond; the maximum and the mean are exact.
 * Percentiles are the middle of their bucket. Internal to pipeline/. */
#ifndef XSF_PIPELINE_PL_HIST_H
#define XSF_PIPELINE_PL_HIST_H

#include <stdint.h>

#include "pipeline.h"

#define PL_HIST_FINE 10000u  /* 1 us buckets: 0 .. 10 ms */
#define PL_HIST_COARSE 9900u /* 100 us buckets: 10 ms .. 1 s */
#define PL_HIST_BUCKETS (PL_HIST_FINE + PL_HIST_COARSE + 1)

typedef struct pl_hist {
    uint64_t count;
    uint64_t sum_ns, max_ns;
    uint32_t bucket[PL_HIST_BUCKETS];
} pl_hist;

void pl_hist_add(pl_hist *h, uint64_t ns);
/* p in [0, 1]; 0 for an empty histogram. */
double pl_hist_percentile_us(const pl_hist *h, double p);
void pl_hist_summary(const pl_hist *h, pl_latency *out);

#endif
