/* The one walk over a buffer of concatenated JPEG XS codestreams (a .jxs
 * file): each codestream's extent from its own structure (see xs.h). */
#include "xs_internal.h"

xsf_status xs_jxs_next(const uint8_t *data, size_t len, size_t offset, size_t *bytes,
                       xs_header *hdr, xsf_error *err)
{
    *bytes = 0;
    if (offset >= len)
        return xsf_error_set(err, XSF_ERR_TRUNCATED,
                             "byte %zu: no codestream left (the data has %zu bytes)", offset, len);
    const uint8_t *buf = data + offset;
    size_t n = len - offset;
    /* A codestream is at most 4 GiB (xs_walk's bound): a longer buffer is
     * walked in its first 4 GiB, which hold the codestream if it is one. */
    if (n > UINT32_MAX)
        n = UINT32_MAX;
    xs_header h;
    xs_geometry g;
    xsf_status st = xs_parse_header(buf, n, &h, err);
    if (st == XSF_OK)
        st = xs_geometry_init(&g, &h, err);
    size_t total = 0;
    if (st == XSF_OK)
        st = xs_walk(buf, n, &h, &g, NULL, NULL, &total, err);
    if (st != XSF_OK)
        return st;
    if (total == 0 || total > n) /* xs_walk ends at EOC inside the data: never */
        return xsf_error_set(err, XSF_ERR_INVALID, "byte 0: an empty codestream");
    if (hdr)
        *hdr = h;
    *bytes = total;
    return XSF_OK;
}

size_t xs_jxs_count(const uint8_t *data, size_t len, size_t max)
{
    size_t count = 0;
    for (size_t off = 0, n; off < len && count < max; off += n, count++) {
        xsf_error err;
        xsf_error_clear(&err);
        if (xs_jxs_next(data, len, off, &n, NULL, &err) != XSF_OK)
            break;
    }
    return count;
}
