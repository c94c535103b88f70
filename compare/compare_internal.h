/* Internal to compare/: one codec run (a job) and the GPU helpers. */
#ifndef XSF_COMPARE_INTERNAL_H
#define XSF_COMPARE_INTERNAL_H

#include "compare.h"

/* The picture as the session holds it: host copy, and on the GPU path a
 * pinned host copy and a device copy (tightly packed planes). */
typedef struct cmp_source {
    xsf_picture host;   /* owned (one reference) */
    xsf_picture pinned; /* GPU path: a view of the same planes in pinned host memory */
    xsf_picture device; /* GPU path: a view of the same planes in device memory */
    int rgb;
    size_t samples; /* over every component */
} cmp_source;

/* One variant at one rate on one path. The codec fills everything from
 * `filter` down; compare.c computes the metrics from `decoded`. */
typedef struct cmp_job {
    const cmp_source *src;
    cmp_variant variant;
    double bpp; /* 0: lossless */
    cmp_path path;
    double time_ms;
    double qstep_hint; /* a variant with a step: the step the previous rate settled on (0: none) */
    /* results */
    char filter[8];
    int levels_h, levels_v;
    double qstep;
    const char *colour;
    int refused; /* the codec refused the configuration: note says why */
    char note[XSF_ERRMSG_LEN];
    size_t bytes;
    xsf_picture decoded; /* owned (cmp_picture_free): the C reference decoder's output */
    int checked;         /* GPU: GPU decoder output == `decoded` */
    /* [0]: cpu or kernels, [1]: transfers (GPU only) */
    double enc_s[2], dec_s[2];
    int enc_runs[2], dec_runs[2];
    xsf_error err;
} cmp_job;

/* What makes a variant, beyond the common settings (the rate, lossless, the
 * colour transform for RGB): the codec's own knobs (xsf_codec.h), by name. */
typedef struct cmp_variant_spec {
    const char *codec; /* the registry's name of the codec, and the rows' label ("xs") */
    const char *name, *describe;
    /* The codec's knobs, tried in order for each picture: the first the codec
     * takes is used, the last one whatever the codec says of it. */
    const char *knobs[4];
    const char *lossy; /* knobs added at a target rate ("filter=97"), or NULL */
    const char *step;  /* at a target rate: the knob of a quantization step searched for
                          the coarsest that does not cap the rate (run.c), or NULL */
} cmp_variant_spec;

const cmp_variant_spec *cmp_variant_spec_of(cmp_variant v);

/* Runs one job through the codec table (run.c). */
xsf_status cmp_run(cmp_job *job);

/* Repeats fn(ctx) until `min_ms` have passed (at least once, at most
 * 100000 times) and returns the median seconds of one call; *runs gets the
 * count. A failing call stops the loop and its status is returned. */
typedef xsf_status (*cmp_timed_fn)(void *ctx);
xsf_status cmp_time_median(cmp_timed_fn fn, void *ctx, double min_ms, double *seconds, int *runs);

/* True when both pictures have the same shape and samples. */
int cmp_pictures_equal(const xsf_picture *a, const xsf_picture *b);

/* ---- GPU helpers (gpu.c with CUDA, gpu_stub.c without) ---- */
void *cmp_gpu_host_alloc(size_t bytes); /* pinned */
void cmp_gpu_host_free(void *p);
void *cmp_gpu_device_alloc(size_t bytes);
void cmp_gpu_device_free(void *p);
xsf_status cmp_gpu_upload(void *dst, const void *src, size_t bytes);
/* The name of the current device, or of the CPU (from /proc/cpuinfo). */
void cmp_gpu_device_name(char *buf, size_t len);
void cmp_cpu_name(char *buf, size_t len);

#endif
