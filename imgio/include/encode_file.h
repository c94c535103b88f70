/* Encoding a picture file: every frame of a .yuv, .y4m, .ppm or .pgm file
 * (image_io.h's readers) coded by a codec's encoder (common/include/xsf_codec.h)
 * into one file of codestreams, one after the other: what `xsflow encode`
 * runs, for any codec of the table. The first frame fixes the pictures'
 * format; the encoder is made for it.
 *
 * Nothing here prints or exits: a failure comes back as an xsf_status, the
 * message in err (without the file's name) and, in the report, the file it
 * is about and whether the encoder refused the settings or the picture. */
#ifndef XSF_IMGIO_ENCODE_FILE_H
#define XSF_IMGIO_ENCODE_FILE_H

#include <stdint.h>

#include "image_io.h"
#include "xsf_codec.h"

typedef struct imgio_encode_job {
    const char *in, *out;         /* paths; "-": standard input, standard output */
    imgio_format format;          /* of `in` (imgio_format_from_path) */
    imgio_raw_layout raw;         /* a .yuv input's layout */
    const xsf_codec *codec;       /* with an encoder */
    xsf_encode_settings settings; /* its format comes from the first frame, and rgb
                                     is set for a .ppm input */
    int device;                   /* -1: the C encoder; else the GPU encoder on this GPU */
    long max_frames;              /* -1: every frame */
} imgio_encode_job;

typedef struct imgio_encode_report {
    unsigned long frames; /* coded and written */
    uint64_t bytes;       /* written */
    double seconds;       /* in the encoder's calls */
    xsf_format format;    /* the pictures' (nc 0 before the first frame) */
    /* On failure: the path the error is about (job->in or job->out), and 1
     * when the encoder refused the settings or the picture (XSF_ERR_ARG,
     * XSF_ERR_UNSUPPORTED: a usage error) rather than a file failing. */
    const char *failed;
    int refused;
} imgio_encode_report;

/* Reads every frame of job->in (up to max_frames), codes it and appends the
 * codestream to job->out, created once the first frame is coded. A file
 * without a frame is XSF_ERR_INVALID ("no frame to encode"); an encode that
 * fails says at which frame ("frame 3: ..."), and removes job->out where it
 * created it as a regular file (xsf_output_remove: nothing half-written). */
xsf_status imgio_encode_file(const imgio_encode_job *job, imgio_encode_report *rep, xsf_error *err);

/* A codec's parameters from a file (BPC-PaCo's table file): the bytes of
 * `path` ("-": standard input) given to codec->params_set under `key`, into
 * *params (created by the first call; codec->params_free frees it).
 * Failures: the file's (imgio_read_file), or the codec's refusal of the key
 * or the bytes (XSF_ERR_ARG where the codec takes no parameters). */
xsf_status imgio_codec_params_read(const xsf_codec *codec, void **params, const char *key,
                                   const char *path, xsf_error *err);

#endif
