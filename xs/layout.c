/* Walks a codestream's slices and precincts by their length fields alone, to
 * find where it ends and where each slice starts (no entropy decoding). */
#include <stdlib.h>

#include "xs_internal.h"

xsf_status xs_walk_slice(const uint8_t *buf, size_t len, const xs_header *h, const xs_geometry *g,
                         int s, size_t *offset, size_t *slice_offset, uint32_t *precinct_offset,
                         xsf_error *err)
{
    if (len > UINT32_MAX)
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                             "codestream buffer of %zu bytes exceeds 4 GiB", len);
    size_t off = *offset;
    if (off > len || len - off < 6)
        return xsf_error_set(err, XSF_ERR_TRUNCATED,
                             "byte %zu: SLH: codestream ends before slice %d of %d", off, s,
                             g->slices);
    const uint8_t *p = buf + off;
    const unsigned marker = (unsigned)(p[0] << 8 | p[1]), lslh = (unsigned)(p[2] << 8 | p[3]);
    const unsigned yslh = (unsigned)(p[4] << 8 | p[5]);
    if (marker != XS_MARKER_SLH)
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "byte %zu: expected SLH marker ff20 for slice %d, found %04x", off, s,
                             marker);
    if (lslh != 4)
        return xsf_error_set(err, XSF_ERR_INVALID, "byte %zu: SLH: length %u, expected 4", off,
                             lslh);
    if (yslh != (unsigned)s)
        return xsf_error_set(err, XSF_ERR_INVALID, "byte %zu: SLH: slice index %u, expected %d",
                             off, yslh, s);
    if (slice_offset)
        slice_offset[s] = off;
    off += 6;
    const int row_end = (s + 1) * h->hsl < g->rows ? (s + 1) * h->hsl : g->rows;
    for (int row = s * h->hsl; row < row_end; row++) {
        for (int col = 0; col < g->cols; col++) {
            if (len - off < g->precinct_header_bytes)
                return xsf_error_set(
                    err, XSF_ERR_TRUNCATED,
                    "byte %zu: precinct (%d,%d): codestream ends inside the precinct header", off,
                    row, col);
            const size_t lprc = (size_t)buf[off] << 16 | (size_t)buf[off + 1] << 8 | buf[off + 2];
            if (lprc > len - off - g->precinct_header_bytes)
                return xsf_error_set(
                    err, XSF_ERR_TRUNCATED,
                    "byte %zu: precinct (%d,%d): Lprc=%zu runs past the end (%zu bytes left)", off,
                    row, col, lprc, len - off - g->precinct_header_bytes);
            if (precinct_offset)
                precinct_offset[(size_t)row * g->cols + col] = (uint32_t)off;
            off += g->precinct_header_bytes + lprc;
        }
    }
    *offset = off;
    return XSF_OK;
}

xsf_status xs_walk_end(const uint8_t *buf, size_t len, const xs_header *h, size_t offset,
                       size_t *total, xsf_error *err)
{
    size_t off = offset;
    if (off > len || len - off < 2)
        return xsf_error_set(err, XSF_ERR_TRUNCATED,
                             "byte %zu: EOC: codestream ends before its EOC marker", off);
    if (buf[off] != 0xff || buf[off + 1] != 0x11)
        return xsf_error_set(
            err, XSF_ERR_INVALID,
            "byte %zu: expected EOC marker ff11 after the last slice, found %02x%02x", off,
            buf[off], buf[off + 1]);
    off += 2;
    if (h->lcod && h->lcod != off)
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "byte %zu: PIH: Lcod=%u but the codestream has %zu bytes", (size_t)4,
                             h->lcod, off);
    *total = off;
    return XSF_OK;
}

xsf_status xs_walk(const uint8_t *buf, size_t len, const xs_header *h, const xs_geometry *g,
                   size_t *slice_offset, uint32_t *precinct_offset, size_t *total, xsf_error *err)
{
    if (len > UINT32_MAX)
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                             "codestream buffer of %zu bytes exceeds 4 GiB", len);
    size_t off = h->header_bytes;
    for (int s = 0; s < g->slices; s++) {
        const xsf_status st =
            xs_walk_slice(buf, len, h, g, s, &off, slice_offset, precinct_offset, err);
        if (st != XSF_OK)
            return st;
    }
    return xs_walk_end(buf, len, h, off, total, err);
}

xsf_status xs_scan_layout(const uint8_t *buf, size_t len, xs_layout *layout, xsf_error *err)
{
    layout->nslices = 0;
    layout->slice_offset = NULL;
    xs_header h;
    xs_geometry g;
    xsf_status st = xs_parse_header(buf, len, &h, err);
    if (st != XSF_OK)
        return st;
    st = xs_geometry_init(&g, &h, err);
    if (st != XSF_OK)
        return st;
    /* Every slice needs at least its 6-byte header: bound the allocation by the input. */
    if ((size_t)g.slices > len / 6)
        return xsf_error_set(err, XSF_ERR_TRUNCATED, "byte %zu: %d slices cannot fit in %zu bytes",
                             h.header_bytes, g.slices, len);
    layout->slice_offset = malloc(sizeof(size_t) * (size_t)g.slices);
    if (!layout->slice_offset)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for %d slice offsets", g.slices);
    st = xs_walk(buf, len, &h, &g, layout->slice_offset, NULL, &layout->codestream_bytes, err);
    if (st != XSF_OK) {
        xs_layout_free(layout);
        return st;
    }
    layout->nslices = (size_t)g.slices;
    layout->header_bytes = h.header_bytes;
    return XSF_OK;
}

void xs_layout_free(xs_layout *layout)
{
    free(layout->slice_offset);
    layout->slice_offset = NULL;
    layout->nslices = 0;
}
