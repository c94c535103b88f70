/* The .jxs file source: one codestream per frame, found by its structure
 * (xs_scan_layout walks the precinct headers; nothing is entropy decoded). */
#include <string.h>

#include "pipeline.h"

xsf_status pl_jxs_source_run(pl_pipeline *p, int stream, const uint8_t *data, size_t len,
                             uint64_t max_frames, uint64_t *frames, xsf_error *err)
{
    *frames = 0;
    if (!len)
        return xsf_error_set(err, XSF_ERR_TRUNCATED, "empty file: no codestream");
    size_t off = 0;
    while (off < len && (!max_frames || *frames < max_frames)) {
        const uint64_t t0 = pl_now_ns();
        xs_layout layout;
        memset(&layout, 0, sizeof layout);
        xsf_error e2;
        xsf_error_clear(&e2);
        const xsf_status st = xs_scan_layout(data + off, len - off, &layout, &e2);
        const size_t bytes = layout.codestream_bytes;
        xs_layout_free(&layout);
        if (st != XSF_OK || bytes == 0 || bytes > len - off)
            return xsf_error_set(err, st != XSF_OK ? st : XSF_ERR_INVALID,
                                 "frame %llu (file byte %zu): %s", (unsigned long long)*frames,
                                 off, st != XSF_OK ? e2.msg : "empty codestream");
        pl_frame *f = pl_frame_acquire(p, stream, bytes);
        if (!f)
            return xsf_error_set(err, XSF_ERR_NOMEM, "no frame for a %zu-byte codestream", bytes);
        memcpy(f->buffer, data + off, bytes);
        f->codestream = f->buffer;
        f->codestream_bytes = bytes;
        f->user = *frames;
        f->t.first_packet = t0;
        f->t.last_packet = pl_now_ns();
        pl_frame_submit(p, f);
        off += bytes;
        (*frames)++;
    }
    return XSF_OK;
}
