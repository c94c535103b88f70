/* The file source: codestreams one after the other, one frame each (two
 * per frame for interlaced files: the fields), found by their structure
 * (the stream's codec's codestream_size: JPEG XS walks the precinct
 * headers; nothing is entropy decoded). */
#include <string.h>

#include "pipeline.h"
#include "xsf_codecs.h"

xsf_status pl_jxs_source_run(pl_pipeline *p, int stream, const uint8_t *data, size_t len,
                             int interlaced, uint64_t max_frames, uint64_t *frames, xsf_error *err)
{
    *frames = 0;
    if (!len)
        return xsf_error_set(err, XSF_ERR_TRUNCATED, "empty file: no codestream");
    const xsf_codec *codec = pl_stream_codec(p, stream);
    if (!codec) /* the file's first bytes say; a file no codec claims is read as the default's */
        codec = xsf_codec_probe(data, len);
    if (!codec) {
        unsigned it = 0;
        codec = xsf_codec_iterate(&it);
    }
    size_t off = 0;
    while (off < len && (!max_frames || *frames < max_frames)) {
        const uint64_t t0 = pl_now_ns();
        size_t bytes[2] = {0, 0}, at = off;
        const int fields = interlaced ? 2 : 1;
        for (int i = 0; i < fields; i++) {
            xsf_error e2;
            xsf_error_clear(&e2);
            if (at == len)
                return xsf_error_set(err, XSF_ERR_TRUNCATED,
                                     "frame %llu (file byte %zu): the file ends after its first "
                                     "field",
                                     (unsigned long long)*frames, off);
            const xsf_status st = codec->codestream_size(data + at, len - at, &bytes[i], &e2);
            if (st != XSF_OK)
                return xsf_error_set(err, st, "frame %llu (file byte %zu): %s",
                                     (unsigned long long)*frames, at, e2.msg);
            at += bytes[i];
        }
        const size_t total = at - off;
        pl_frame *f = pl_frame_acquire(p, stream, total);
        if (!f)
            return xsf_error_set(err, XSF_ERR_NOMEM, "no frame for a %zu-byte codestream", total);
        memcpy(f->buffer, data + off, total);
        f->codestream = f->buffer;
        f->codestream_bytes = total;
        f->fields = fields;
        f->field_bytes[0] = bytes[0];
        f->field_bytes[1] = bytes[1];
        f->user = *frames;
        f->t.first_packet = t0;
        f->t.last_packet = pl_now_ns();
        pl_frame_submit(p, f);
        off = at;
        (*frames)++;
    }
    return XSF_OK;
}
