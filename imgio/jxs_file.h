/* A .jxs file: JPEG XS codestreams one after the other, decoded frame by
 * frame. This is where the program picks the decoder (C reference or GPU). */
#ifndef XSF_IMGIO_JXS_FILE_H
#define XSF_IMGIO_JXS_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "image_io.h"
#include "xs.h"

/* AUTO: the GPU decoder where a GPU is usable, else the C reference. */
typedef enum jxs_engine { JXS_ENGINE_AUTO = 0, JXS_ENGINE_CPU, JXS_ENGINE_GPU } jxs_engine;

typedef struct jxs_file {
    const uint8_t *data;
    size_t len;
    size_t offset;       /* where the next codestream starts */
    unsigned long frame; /* index of the next codestream */
    xs_decoder *dec;     /* C reference decoder, or */
    xs_gpu_decoder *gpu; /* the GPU decoder, whose pictures are downloaded to: */
    xs_image gpu_img;    /* host planes of the last GPU picture (owned) */
    xs_header gpu_hdr;
    char msg[XSF_ERRMSG_LEN + 64];
} jxs_file;

/* Prepares decoding of data[0..len). The GPU engine fails with
 * XSF_ERR_NODEVICE where no GPU is usable (or CUDA was not built);
 * jxs_file_error() says why. */
xsf_status jxs_file_init(jxs_file *f, const uint8_t *data, size_t len, jxs_engine engine);
void jxs_file_free(jxs_file *f);

/* Which decoder runs: "GPU" or "CPU". */
const char *jxs_file_engine_name(const jxs_file *f);

/* Whether every byte has been decoded. */
int jxs_file_done(const jxs_file *f);

/* Decodes the codestream at the current offset into planes owned by the
 * decoder (valid until the next call) and moves past it. */
xsf_status jxs_file_decode(jxs_file *f, imgio_picture *pic, const xs_header **hdr);

/* The last error: the decoder's message ("byte N: MARKER: reason", N from
 * the start of the codestream), preceded for frames after the first by
 * "frame K (file byte M): ". */
const char *jxs_file_error(const jxs_file *f);

/* Counts the codestreams from the start of data by their structure alone
 * (no entropy decoding), stopping at the first that does not parse or at
 * `max`. */
unsigned long jxs_count_frames(const uint8_t *data, size_t len, unsigned long max);

/* A view of a decoded image as a picture (no copy). */
void jxs_picture_from_image(imgio_picture *pic, const xs_image *img);

#endif
