/* xsflow service: a file of codestreams decoded through the pipeline into a
 * picture writer, the work of `xsflow decode` between its options and its
 * messages. The codec is the one the file's first bytes name (xsf_codec_probe;
 * a file no codec claims is read as JPEG XS, whose reader then says what is
 * wrong), with its table file where one is given.
 *
 * Nothing here prints; see service.h for svc_failure. */
#ifndef XSF_SVC_DECODE_H
#define XSF_SVC_DECODE_H

#include <stdint.h>
#include <stdio.h>

#include "image_io.h"
#include "pipeline.h"
#include "service.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct svc_decode_config {
    const char *in;     /* the file of codestreams */
    const char *out;    /* the output (pl_writer_open); NULL: none (md5 alone) */
    const char *tables; /* the codec's table file (BPC-PaCo); NULL: none */
    imgio_format format;
    xsf_colour colour;
    xsf_rate fps;        /* Y4M frame rate; num 0: 25 */
    int md5, interlaced; /* interlaced: the codestreams are fields, woven in pairs */
    uint64_t max_frames; /* 0: all */
    /* The pixel format written: the pipeline's picture request (pl_stream_config.pix_fmt,
     * with `colour`: on the GPU the decoder's last kernel writes it; interlaced frames'
     * fields each converted alone, then woven). */
    xsf_container pix_fmt;
    /* The decoder. One file is one stream, whose frames all go to one GPU: the first of
     * pl.gpus (device 0 where none is named) is the only one used. */
    pl_config pl;
} svc_decode_config;

/* What a decode did. The errors after the set-up do not stop the others from being
 * found: each has its status (XSF_OK: none). After any of them (the file's structure, a
 * frame the decoder refused, a write or the close) the output is removed (pl_writer_discard:
 * the file or every frame file so far; standard output and devices stay), so that a failed
 * decode leaves nothing half-written. */
typedef struct svc_decode_result {
    uint64_t frames, bytes; /* decoded and written (bytes in .yuv layout) */
    char md5[33];           /* with md5 */
    xsf_picture first;      /* the first picture's shape (pl_writer_shape) */
    char last_path[4096];   /* the last file written ("" without out) */
    /* The output as it is left, when nothing failed: `files` files (one, or one per frame
     * for .ppm/.pgm frame files, named from first_path to last_path), file_bytes bytes in
     * all (their sizes; written to standard output or a device: `bytes`). 0 without out. */
    uint64_t files, file_bytes;
    char first_path[4096];
    int removed;              /* after a failure: the output was removed */
    char engine[512];         /* pl_describe */
    double start_ms;          /* from the call to the pipeline ready */
    pl_startup_stats startup; /* where the pipeline's start went, its teardown included */
    double seconds;           /* from the pipeline ready to the writer closed */
    double fps;               /* the stream's steady rate (pl_stream_stats) */
    uint64_t not_decoded;     /* frames the decoder refused, */
    char last_error[256];     /* the last refusal */
    xsf_status source, close; /* the read of the file; the writer's close */
    xsf_error source_err, close_err;
} svc_decode_result;

/* Decodes cfg->in into cfg->out. Fails (XSF_OK otherwise, *r then filled) where nothing
 * can be decoded: the file does not map, the codec takes no tables or they do not
 * load ("--tables" or the table file), the pipeline, the writer or the stream cannot
 * be made (the input, or the output when there is one). */
xsf_status svc_decode_file(const svc_decode_config *cfg, svc_decode_result *r, svc_failure *f);

/* What a decode that succeeded did, in words, on f (`xsflow decode`'s report): with
 * cfg->md5 the line "MD5  IN (N frames, B bytes in .yuv layout)"; with cfg->out and not
 * quiet the line "decoded N frames (WxH, C components, SAMPLING, D bits) from IN into
 * OUT (F files, B bytes) in S s, R frames/s (ENGINE; start T ms[, steady R frames/s])"
 * (OUT: the file, "FIRST to LAST" for frame files, "standard output" for "-") and the
 * pipeline's start-up (pl_startup_format). */
void svc_decode_result_format(FILE *f, const svc_decode_config *cfg, const svc_decode_result *r,
                              int quiet);

#ifdef __cplusplus
}
#endif
#endif
