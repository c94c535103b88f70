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

/* ---- peers: other projects' encoders (peers.c, peer_svt.c, peer_opj.c) ---- */

#define CMP_PATH_MAX 4096

/* Where the peers are and how they run, resolved from cmp_options. */
typedef struct cmp_peers {
    char svt_enc[CMP_PATH_MAX];    /* SvtJpegxsEncApp, a path */
    char svt_dec[CMP_PATH_MAX];    /* SvtJpegxsDecApp, a path; "" when none */
    char opj[CMP_PATH_MAX];        /* libopenjp2 as dlopen takes it */
    int threads;                   /* the threads each peer is given */
    char cpu[96];                  /* the CPU's name (the peers' rows' device) */
    char about[CMP_VARIANTS][512]; /* each peer in the session: name, version, how it runs */
} cmp_peers;

/* Fills p from the options (paths found on PATH, threads counted). */
void cmp_peers_init(cmp_peers *p, const cmp_options *opt);
/* Runs peer v once on a small picture: XSF_OK with p->about[v] filled, or
 * XSF_ERR_UNSUPPORTED and one line in err saying what is missing. */
xsf_status cmp_peer_check(cmp_peers *p, cmp_variant v, xsf_error *err);
xsf_status cmp_svt_check(cmp_peers *p, xsf_error *err);
xsf_status cmp_opj_check(cmp_peers *p, xsf_error *err);

/* One variant at one rate on one path. The codec fills everything from
 * `filter` down; compare.c computes the metrics from `decoded`. */
typedef struct cmp_job {
    const cmp_source *src;
    cmp_variant variant;
    double bpp; /* 0: lossless */
    cmp_path path;
    double time_ms;
    double qstep_hint; /* a variant with a step: the step the previous rate settled on (0: none) */
    int tune;          /* cmp_options.tune */
    const cmp_peers *peers; /* a peer's job: where it is */
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

/* Runs one job through the codec table (run.c), or a peer's job (peers.c). */
xsf_status cmp_run(cmp_job *job);
xsf_status cmp_run_peer(cmp_job *job);
/* The peers' jobs: on the CPU, timings in enc_s[0] and dec_s[0] (dec_s[0]
 * 0 where the peer has no decoder to time), `decoded` by the decoder the
 * row names. */
xsf_status cmp_svt_run(cmp_job *job);
xsf_status cmp_opj_run(cmp_job *job);

/* Runs argv (argv[0] found on PATH when it has no '/') in `dir` (NULL: here)
 * with stdout and stderr to `log` (NULL: /dev/null); returns the exit
 * status, 127 when it could not be run, 128 when a signal ended it, -1 when
 * it could not be started. */
int cmp_spawn(const char *dir, const char *log, char *const argv[]);
/* A new private folder for a job's files (under $TMPDIR or /tmp), and its
 * removal with the files in it. */
xsf_status cmp_temp_dir(char *dir, size_t len, xsf_error *err);
void cmp_temp_remove(const char *dir);
/* The last line of a log file that says something (a peer's complaint). */
void cmp_log_tail(const char *log, char *buf, size_t len);
/* Writes a picture's planes one after the other, 8-bit samples as bytes and
 * deeper ones as 16-bit little-endian (what .yuv files hold), and compares a
 * file of that layout with a picture (1: the same samples). */
xsf_status cmp_write_planes(const char *path, const xsf_picture *pic, xsf_error *err);
int cmp_planes_equal(const char *path, const xsf_picture *pic);

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
