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
    xsf_picture gpu_pic; /* a view of gpu_buf: the last GPU picture in host memory */
    uint16_t *gpu_buf;   /* (owned, gpu_cap samples, planes tightly packed) */
    size_t gpu_cap;
    xs_header gpu_hdr;
    /* Interlaced files (jxs_file_decode_fields): the first field, kept while
     * the second decodes, and the woven frame (owned, sizes in samples). */
    uint16_t *field_buf, *frame_buf;
    size_t field_cap, frame_cap;
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

/* Decodes the codestream at the current offset and moves past it. *pic
 * becomes a view (ref NULL) of host planes owned by the decoder or by `f`
 * (valid until the next call), with the codestream's colour
 * (xs_header_colour). */
xsf_status jxs_file_decode(jxs_file *f, xsf_picture *pic, const xs_header **hdr);

/* Interlaced files, two codestreams per frame (the first field, then the
 * second: how `xsflow recv` writes an interlaced stream to .jxs and what
 * `xsflow send --interlaced` reads): decodes the next two and weaves them
 * (imgio_weave) into planes owned by `f`, valid until the next call. A file
 * that ends after a first field is XSF_ERR_TRUNCATED; fields that do not
 * weave (different shapes) XSF_ERR_INVALID; jxs_file_error() says which. */
xsf_status jxs_file_decode_fields(jxs_file *f, xsf_picture *frame, const xs_header **hdr);

/* The same for codestreams held anywhere in memory (a receiver's): one
 * codestream, or the two fields of one frame woven. Planes as above; the
 * file's data and position are not used. A jxs_file for this alone:
 * jxs_file_init(&f, NULL, 0, engine). */
xsf_status jxs_decode_codestream(jxs_file *f, const uint8_t *cs, size_t len, xsf_picture *pic,
                                 const xs_header **hdr);
xsf_status jxs_decode_field_pair(jxs_file *f, const uint8_t *first_cs, size_t first_len,
                                 const uint8_t *second_cs, size_t second_len, xsf_picture *frame,
                                 const xs_header **hdr);

/* The last error: the decoder's message ("byte N: MARKER: reason", N from
 * the start of the codestream), preceded for frames after the first by
 * "frame K (file byte M): ". */
const char *jxs_file_error(const jxs_file *f);

/* Counts the codestreams from the start of data by their structure alone
 * (no entropy decoding), stopping at the first that does not parse or at
 * `max`. */
unsigned long jxs_count_frames(const uint8_t *data, size_t len, unsigned long max);

#endif
