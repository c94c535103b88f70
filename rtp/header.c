/* RTP fixed header (RFC 3550 5.1), sequence number extension (RFC 3550 A.1)
 * and the RFC 9134 payload header. */
#include <string.h>

#include "rtp_internal.h"

xsf_status rtp_header_parse(const uint8_t *pkt, size_t len, rtp_header *h, xsf_error *err)
{
    if (len < RTP_HEADER_BYTES)
        return xsf_error_set(err, XSF_ERR_TRUNCATED,
                             "byte 0: RTP: %zu bytes, the fixed header needs 12", len);
    h->version = (uint8_t)(pkt[0] >> 6);
    if (h->version != 2)
        return xsf_error_set(err, XSF_ERR_INVALID, "byte 0: RTP: version %u, expected 2",
                             h->version);
    h->padding = (uint8_t)(pkt[0] >> 5 & 1);
    h->extension = (uint8_t)(pkt[0] >> 4 & 1);
    h->csrc_count = (uint8_t)(pkt[0] & 0x0f);
    h->marker = (uint8_t)(pkt[1] >> 7);
    h->payload_type = (uint8_t)(pkt[1] & 0x7f);
    h->seq = rtp_rd16(pkt + 2);
    h->timestamp = rtp_rd32(pkt + 4);
    h->ssrc = rtp_rd32(pkt + 8);
    size_t off = RTP_HEADER_BYTES;
    if ((size_t)h->csrc_count * 4 > len - off)
        return xsf_error_set(err, XSF_ERR_TRUNCATED,
                             "byte 0: RTP: CC=%u CSRCs run past the %zu-byte packet", h->csrc_count,
                             len);
    for (unsigned i = 0; i < h->csrc_count; i++, off += 4)
        h->csrc[i] = rtp_rd32(pkt + off);
    h->ext_profile = 0;
    h->ext_bytes = 0;
    h->ext_data = NULL;
    if (h->extension) {
        if (len - off < 4)
            return xsf_error_set(err, XSF_ERR_TRUNCATED,
                                 "byte %zu: RTP: packet ends inside the extension header", off);
        h->ext_profile = rtp_rd16(pkt + off);
        h->ext_bytes = (size_t)rtp_rd16(pkt + off + 2) * 4;
        off += 4;
        if (h->ext_bytes > len - off)
            return xsf_error_set(
                err, XSF_ERR_TRUNCATED,
                "byte %zu: RTP: extension of %zu bytes runs past the %zu-byte packet", off - 2,
                h->ext_bytes, len);
        h->ext_data = pkt + off;
        off += h->ext_bytes;
    }
    h->padding_bytes = 0;
    size_t end = len;
    if (h->padding) {
        /* RFC 3550 5.1: the last octet counts the padding octets, itself included. */
        h->padding_bytes = pkt[len - 1];
        if (h->padding_bytes == 0 || h->padding_bytes > len - off)
            return xsf_error_set(
                err, XSF_ERR_INVALID,
                "byte %zu: RTP: padding count %zu, but %zu bytes follow the header", len - 1,
                h->padding_bytes, len - off);
        end -= h->padding_bytes;
    }
    h->payload = pkt + off;
    h->payload_bytes = end - off;
    return XSF_OK;
}

size_t rtp_header_write(const rtp_header *h, uint8_t *out, size_t cap)
{
    const size_t n = RTP_HEADER_BYTES + (size_t)(h->csrc_count & 0x0f) * 4;
    if (cap < n)
        return 0;
    out[0] = (uint8_t)(2u << 6 | (h->csrc_count & 0x0f));
    out[1] = (uint8_t)((h->marker ? 0x80 : 0) | (h->payload_type & 0x7f));
    rtp_wr16(out + 2, h->seq);
    rtp_wr32(out + 4, h->timestamp);
    rtp_wr32(out + 8, h->ssrc);
    for (unsigned i = 0; i < (h->csrc_count & 0x0fu); i++)
        rtp_wr32(out + 12 + 4 * i, h->csrc[i]);
    return n;
}

uint64_t rtp_seq_extend(rtp_seq_extender *x, uint16_t seq)
{
    if (!x->started) {
        x->started = 1;
        /* Start one cycle up, so that packets just before the first one
         * (reordered) still get a positive extended number. */
        x->highest = (uint64_t)1 << 16 | seq;
        return x->highest;
    }
    const int16_t delta = (int16_t)(uint16_t)(seq - (uint16_t)x->highest);
    const uint64_t ext = (uint64_t)((int64_t)x->highest + delta);
    if (delta > 0)
        x->highest = ext;
    return ext;
}

xsf_status rtp_jxs_header_parse(const uint8_t *p, size_t len, rtp_jxs_header *h, xsf_error *err)
{
    if (len < RTP_JXS_HEADER_BYTES)
        return xsf_error_set(err, XSF_ERR_TRUNCATED, "RFC 9134 payload header: %zu bytes, needs 4",
                             len);
    rtp_jxs_header_read(p, h);
    if (h->i == 1)
        return xsf_error_set(err, XSF_ERR_INVALID, "RFC 9134 payload header: reserved I value 01");
    /* RFC 9134 4.3: only slice mode allows out-of-order transmission. */
    if (!h->t && !h->k)
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "RFC 9134 payload header: T=0 (out of order) with K=0, expected K=1");
    return XSF_OK;
}

void rtp_jxs_header_write(const rtp_jxs_header *h, uint8_t out[RTP_JXS_HEADER_BYTES])
{
    out[0] = (uint8_t)((h->t & 1) << 7 | (h->k & 1) << 6 | (h->l & 1) << 5 | (h->i & 3) << 3 |
                       (h->f >> 2 & 7));
    out[1] = (uint8_t)((h->f & 3) << 6 | (h->sep >> 5 & 0x3f));
    out[2] = (uint8_t)((h->sep & 0x1f) << 3 | (h->p >> 8 & 7));
    out[3] = (uint8_t)(h->p & 0xff);
}
