/* xsflow compare: the two wavelet codecs of xsflow, JPEG XS (xs/, precincts,
 * 5/3) and BPC-PaCo (bpc/, bitplanes, 9/7 lossy and 5/3 lossless), side by
 * side on the same pictures at the same bitrates: bits spent, PSNR per
 * component and overall, SSIM and MS-SSIM on luma, and encode and decode
 * throughput (C references, or the CUDA codecs with and without the PCIe
 * transfers). Beside them, where installed, two peers from other projects
 * on the CPU: SVT-JPEG-XS's encoder (a second precinct-path encoder, run as
 * its program SvtJpegxsEncApp) and OpenJPEG (JPEG 2000, the bitplane
 * family's reference, through libopenjp2 loaded at run time), measured by
 * the same metric code. What `xsflow compare` runs; tests and benchmarks
 * call it the same way.
 *
 * Nothing here prints to the terminal or exits: rows go to the caller
 * through cmp_session_row (and an optional progress callback), tables and
 * CSV to a FILE the caller opened, plots to files in a folder the caller
 * names (drawn by gnuplot, run as a subprocess). */
#ifndef XSF_COMPARE_H
#define XSF_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "image_io.h"
#include "xsf.h"
#include "xsf_option.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- what is compared ---- */

/* The codec configurations ("variants") a session may run. */
typedef enum cmp_variant {
    CMP_XS_DEFAULT = 0, /* JPEG XS, the encoder's defaults (xs_encoder_config_init) */
    CMP_XS_QUALITY,     /* JPEG XS tuned for PSNR (see cmp_variant_describe) */
    CMP_BPC_1PASS,      /* BPC-PaCo, one coding pass per bitplane (Bruns) */
    CMP_BPC_2PASS,      /* two passes (Enfedaque's GPU codec) */
    CMP_BPC_3PASS,      /* three passes (JPEG 2000's) */
    /* Peers: other projects' encoders, run on the CPU where installed. */
    CMP_SVT, /* SVT-JPEG-XS's SvtJpegxsEncApp, its defaults (see cmp_variant_describe) */
    CMP_OPJ, /* OpenJPEG's JPEG 2000 encoder and decoder (libopenjp2) */
    CMP_VARIANTS
} cmp_variant;

#define CMP_ALL_VARIANTS ((1u << CMP_VARIANTS) - 1)
#define CMP_PEER_VARIANTS (1u << CMP_SVT | 1u << CMP_OPJ)
#define CMP_OWN_VARIANTS (CMP_ALL_VARIANTS & ~CMP_PEER_VARIANTS) /* xsflow's five */

/* "xs", "bpc", "svt" or "opj". */
const char *cmp_variant_codec(cmp_variant v);
/* "default", "quality", "1pass", "2pass", "3pass" ("default" for the peers). */
const char *cmp_variant_name(cmp_variant v);
/* One sentence: the settings that make the variant (filter, levels, tools). */
const char *cmp_variant_describe(cmp_variant v);
/* 1 for the peers' variants. */
int cmp_variant_is_peer(cmp_variant v);
/* Parses a comma-separated list of "xs", "bpc" (every variant of the codec),
 * "xs-default", "xs-quality", "bpc-1pass", "bpc-2pass", "bpc-3pass" (also
 * "bpc1", "bpc2", "bpc3"), "all" (xsflow's five), and the peers "svt",
 * "opj" (also "openjpeg", "j2k") and "peers" (both) into a mask of
 * 1 << cmp_variant. */
xsf_status cmp_parse_variants(const char *list, unsigned *mask, xsf_error *err);
/* Parses a comma-separated list of bitrates in bits per pixel (each in
 * (0, 64]) and "lossless" into rates[] (ascending order kept as given;
 * lossless as 0). *n receives the count (at most max). */
xsf_status cmp_parse_rates(const char *list, double *rates, size_t max, size_t *n, xsf_error *err);

/* The default rates: 0.5, 1, 2, 3, 4, 6, 8 bpp and lossless (0). */
#define CMP_DEFAULT_RATE_COUNT 8
extern const double cmp_default_rates[CMP_DEFAULT_RATE_COUNT];

typedef enum cmp_path {
    CMP_PATH_CPU = 0, /* the C reference encoders and decoders, one thread */
    CMP_PATH_GPU = 1, /* the CUDA encoders and decoders */
} cmp_path;
/* CUDA devices: the GPU path runs JPEG XS on device 0 and BPC-PaCo on the
 * caller's current device (make device 0 current for one GPU throughout);
 * it never changes the current device (xsf_cuda_device.h). */

/* XSF_OK where both CUDA codecs are usable (a GPU and a build with kernels). */
xsf_status cmp_gpu_available(void);

/* A row's timing: on the CPU one kind; on the GPU two. */
typedef enum cmp_timing {
    CMP_TIMING_CPU = 0,       /* C reference: picture in memory -> codestream -> picture */
    CMP_TIMING_KERNELS = 1,   /* GPU, data already on the device (see cmp_row) */
    CMP_TIMING_TRANSFERS = 2, /* GPU, host picture / codestream in pinned memory, PCIe included */
} cmp_timing;
const char *cmp_timing_name(cmp_timing t); /* "cpu", "kernels", "transfers" */

typedef struct cmp_row cmp_row;
typedef void (*cmp_progress_fn)(void *ctx, const cmp_row *row);

typedef struct cmp_options {
    const double *rates; /* bpp; 0 = lossless. NULL: cmp_default_rates */
    size_t nrates;
    unsigned variants; /* mask of 1 << cmp_variant; 0 = xsflow's five (CMP_OWN_VARIANTS) */
    cmp_path path;
    double time_ms;           /* each throughput figure: repeat at least this long (and at least
                                 once), report the median; 0 = one run */
    cmp_progress_fn progress; /* called after every row, may be NULL */
    void *progress_ctx;
    /* The peers (CMP_SVT, CMP_OPJ in `variants`), whatever the path: */
    const char *svt_enc; /* SvtJpegxsEncApp: a path, or a name looked up on PATH
                            (NULL: "SvtJpegxsEncApp") */
    const char *svt_dec; /* SvtJpegxsDecApp, which checks SVT's codestreams decode to
                            xsflow's picture and times their decoding (NULL: the one
                            next to svt_enc, else on PATH; "none": not used) */
    const char *opj;     /* libopenjp2 as dlopen takes it, a path or a name (NULL:
                            "libopenjp2.so.7") */
    int peer_threads;    /* the threads each peer runs on (0: every online CPU) */
    int tune;            /* 1: JPEG XS variants with the encoder's tune=visual (xs/enc_tune.h) */
} cmp_options;

/* What `xsflow compare`'s options set: the session's options as given, the outputs,
 * the layout of .yuv inputs and the peers to look for. */
#define CMP_MAX_RATES 64
typedef struct cmp_request {
    double rates[CMP_MAX_RATES]; /* --bpp (the caller parses it: cmp_parse_rates) */
    size_t nrates;               /* 0: cmp_default_rates */
    unsigned variants;           /* --codecs (cmp_parse_variants); 0: all, and the peers found */
    int gpu;                     /* 1 the CUDA codecs, 0 the C references, -1 where usable */
    double time_ms;
    const char *csv, *plot, *gnuplot; /* the outputs beside the table (NULL: none) */
    int size[2];                      /* .yuv input: width, height; sampling; bits */
    const char *sampling;
    int depth;
    const char *peers; /* "auto" or "none", as given (the caller refuses others) */
    const char *svt_enc, *svt_dec, *opj;
    int peer_threads;
    int tune; /* --tune: 0 psnr, 1 visual */
    int codec_help, progress, quiet;
} cmp_request;

/* gpu -1, time_ms 200, .yuv input 444 at 8 bits, peers "auto", the rest 0. */
void cmp_request_init(cmp_request *r);

/* The knobs (xsf_option.h) on a cmp_request, as `xsflow compare` takes them: gpu, cpu,
 * time-ms (0 to 3600000), csv, plot, gnuplot, size (WxH), sampling, depth (1 to 16),
 * peers, svt-enc, svt-dec, opj, peer-threads (0 to 4096), codec-help, progress (-v),
 * quiet (-q). */
extern const xsf_option cmp_knobs[];

/* The session's options the request gives (rates, variants, path: the GPU where gpu > 0,
 * time, peers' programs and threads); no progress callback. */
void cmp_request_options(const cmp_request *r, cmp_options *opt);

/* Whether peer v (CMP_SVT or CMP_OPJ) can run as `opt` says: runs it once on
 * a small picture. XSF_OK with one line in `about` naming it, its version and
 * how it runs; else XSF_ERR_UNSUPPORTED (XSF_ERR_ARG for a variant that is
 * no peer) with one line in err saying what is missing. */
xsf_status cmp_peer_probe(cmp_variant v, const cmp_options *opt, char *about, size_t len,
                          xsf_error *err);

/* ---- one measurement ---- */

#define CMP_MAX_COMPONENTS 4
#define CMP_NAME_LEN 64

struct cmp_row {
    char picture[CMP_NAME_LEN];
    int width, height, nc, depth; /* component 0's size, components, the largest depth */
    cmp_variant variant;
    double bpp_target; /* 0: lossless */
    /* How the codec coded it. */
    char filter[8];         /* "5/3" or "9/7" */
    int levels_h, levels_v; /* horizontal and vertical DWT levels */
    double qstep;           /* BPC-PaCo 9/7: quantization step in 8-bit units; else 0 */
    const char *colour;     /* "none", "RCT", "ICT" */
    /* Coded: 0 when the codec refused the configuration (note says why). */
    int coded;
    char note[XSF_ERRMSG_LEN];
    size_t bytes;                    /* the codestream, headers included */
    double bpp;                      /* bytes * 8 / (width * height) */
    double psnr[CMP_MAX_COMPONENTS]; /* per component, peak 2^depth - 1; INFINITY when exact */
    double psnr_all;                 /* over every sample of every component (errors scaled to each
                                        component's peak) */
    double ssim;                     /* luma, 8x8 windows (see metrics.c) */
    double ms_ssim;                  /* luma, 5 scales (cmp_msssim_luma); NAN for small pictures */
    int exact;                       /* decoded picture == input picture */
    int checked;                     /* GPU: the GPU-decoded picture equals the C reference
                                        decoder's (always 1 on the CPU path: it is that decoder) */
    /* Throughput: median seconds per frame and what follows from it. A
     * peer's row: the CPU path whatever the session's, on `threads` threads,
     * its encoder's (and decoder's) own figure over enc_runs (dec_runs)
     * frames where it reports one (SVT-JPEG-XS), else the median of calls;
     * dec_fps NAN where the peer's decoder was not timed. */
    cmp_path path;
    cmp_timing timing;
    int threads; /* CPU threads the codecs ran on (the C references: 1; GPU: 0) */
    int enc_runs, dec_runs;
    double enc_s, dec_s;
    double enc_fps, dec_fps;
    double enc_gsamples, dec_gsamples; /* samples of every component, 1e9 per second */
    char device[96];
};

/* ---- a session: options, then pictures, then the rows ---- */

typedef struct cmp_session cmp_session;

/* Validates the options; with CMP_PATH_GPU fails with XSF_ERR_NODEVICE
 * when cmp_gpu_available says no; with a peer in `variants` that cannot run
 * fails as cmp_peer_probe does. Blocks (GPU start-up, the peers' probes). */
xsf_status cmp_session_create(cmp_session **s, const cmp_options *opt, xsf_error *err);
void cmp_session_destroy(cmp_session *s);

/* Codes `pic` with every variant at every rate, decodes, measures, and
 * appends the rows (one per variant and rate on the CPU, two on the GPU:
 * kernels and transfers). `rgb`: components 0..2 are R, G, B (a .ppm), so
 * the codecs apply their colour transforms and SSIM takes BT.709 luma;
 * otherwise component 0 is luma and nothing is transformed. The picture is
 * read, not kept. A configuration a codec refuses gives a row with coded = 0
 * and a note; a GPU picture that differs from the C reference decoder's
 * fails the call (XSF_ERR_INVALID). Blocks; may take long. */
xsf_status cmp_session_add_picture(cmp_session *s, const char *name, const xsf_picture *pic,
                                   int rgb);
size_t cmp_session_rows(const cmp_session *s);
const cmp_row *cmp_session_row(const cmp_session *s, size_t i);
const char *cmp_session_error(const cmp_session *s);
/* The line cmp_peer_probe gave for peer v in the session, NULL when it has none. */
const char *cmp_session_peer(const cmp_session *s, cmp_variant v);

/* ---- output ---- */

/* The readable table, one line per row, grouped by picture; the peers of
 * the session (their versions) in each picture's heading. */
xsf_status cmp_write_table(const cmp_session *s, FILE *f);
/* CSV with a header line; columns (cmp_csv_columns): picture, width, height,
 * components, depth, codec, variant, filter, levels_h, levels_v, qstep,
 * colour, bpp_target ("lossless" or the number), bytes, bpp, psnr_db,
 * psnr_c0..psnr_c3 (empty where absent; "inf" when exact), ssim, ms_ssim,
 * exact, checked, path, timing, threads, enc_fps, dec_fps, enc_gsamples,
 * dec_gsamples, enc_ms, dec_ms, runs, device, note. */
xsf_status cmp_write_csv(const cmp_session *s, FILE *f);
extern const char cmp_csv_columns[];

/* Writes, for every picture, NAME-rd.{svg,png} (PSNR over bpp) and
 * NAME-speed.{svg,png} (encode and decode Gsamples/s over bpp), every
 * variant of both codecs on the same axes, plus the gnuplot script
 * (NAME.gp) and data (NAME.dat) they are drawn from, into `dir` (created
 * if missing). Runs `gnuplot` (a program name or path; NULL: "gnuplot"
 * from PATH) as a subprocess in `dir`; XSF_ERR_UNSUPPORTED with a clear
 * message when it cannot be run. "none": write the data and scripts only
 * (draw them later with `gnuplot NAME.gp` in that folder). */
xsf_status cmp_write_plots(const cmp_session *s, const char *dir, const char *gnuplot,
                           xsf_error *err);

/* ---- pictures ---- */

/* A deterministic synthetic picture (smooth gradients, edges, a zone plate,
 * texture from a fixed pseudo-random sequence): nc 1 or 3 (RGB), depth 8..16,
 * width and height 16..16384. The planes are allocated in *pic (tightly
 * packed); free them with cmp_picture_free. */
xsf_status cmp_synthetic_picture(xsf_picture *pic, int width, int height, int nc, int depth,
                                 xsf_error *err);
/* A copy of `src` with its own tightly packed planes. */
xsf_status cmp_picture_copy(xsf_picture *dst, const xsf_picture *src, xsf_error *err);
void cmp_picture_free(xsf_picture *pic);

/* ---- metrics (also used by the tests) ---- */

/* Mean squared error of component c, and PSNR in dB with peak 2^depth - 1
 * (INFINITY when the component is identical). */
double cmp_psnr_component(const xsf_picture *ref, const xsf_picture *dec, int c);
/* PSNR over every sample of every component, each error scaled to its
 * component's peak. */
double cmp_psnr_all(const xsf_picture *ref, const xsf_picture *dec);
/* SSIM of the luma (component 0, or BT.709 luma of components 0..2 when
 * rgb) over every 8x8 window (stride 1), K1 = 0.01, K2 = 0.03, L = 2^depth - 1.
 * 1 for identical pictures. */
double cmp_ssim_luma(const xsf_picture *ref, const xsf_picture *dec, int rgb);
/* MS-SSIM (Wang, Simoncelli, Bovik 2003) of the same luma: 5 scales, weights
 * 0.0448, 0.2856, 0.3001, 0.2363, 0.1333, 11x11 Gaussian windows (sigma 1.5)
 * where they fit, K1 = 0.01, K2 = 0.03, L = 2^depth - 1, 2x2 means between
 * scales (metrics.c has the details). 1 for identical pictures; NAN for
 * pictures smaller than 161x161 (the 5th scale needs 11x11 samples). */
double cmp_msssim_luma(const xsf_picture *ref, const xsf_picture *dec, int rgb);

#ifdef __cplusplus
}
#endif
#endif
