/* JPEG XS picture segments -> RTP packets (RFC 9134 4).
 *
 * A picture segment is the video support box, the colour specification box,
 * then the codestream (RFC 9134 3.4); the boxes are part of the payload
 * (4.1), so a conforming sender writes them (cfg.boxes = 1).
 * Codestream mode (K=0, 4.1): the whole picture segment is one packetization
 * unit; the P counter numbers its packets and the SEP counter counts P's
 * overruns (packet index = SEP x 2048 + P, 4.3), so a unit holds at most
 * 2^22 packets.
 * Slice mode (K=1, 4.1): the first unit is the header segment (boxes, then
 * the codestream up to its first SLH) with SEP = 0x7ff; then one unit per
 * slice, SEP = slice index modulo 2047 and P from 0 in each, modulo 2048
 * (a unit of more than 2048 packets wraps P); the last slice's unit also
 * carries the EOC marker.
 * In both, L marks the last packet of a unit and the RTP marker the last
 * packet of the segment (frame, or field: 4.2), so L = M in codestream mode.
 * T is 1: packets go out in order.
 * All packets but the last of a unit carry the same payload size (4.1); we
 * round it down to a multiple of 8 bytes, a choice of ours, not an RFC 9134
 * requirement. */
#include <stdlib.h>
#include <string.h>

#include "rtp_internal.h"
#include "xs.h"

struct rtp_packetizer {
    rtp_packetizer_config cfg;
    uint16_t seq;
    size_t chunk; /* payload data bytes per packet (after the RFC 9134 header) */
    uint8_t *pkt;
    uint8_t boxes[RTP_JXS_BOXES_BYTES];
};

xsf_status rtp_packetizer_create(rtp_packetizer **out, const rtp_packetizer_config *cfg,
                                 xsf_error *err)
{
    *out = NULL;
    const size_t bytes = cfg->packet_bytes ? cfg->packet_bytes : 1440;
    const size_t overhead = RTP_HEADER_BYTES + RTP_JXS_HEADER_BYTES;
    if (bytes < overhead + 8 || bytes > 65507)
        return xsf_error_set(err, XSF_ERR_ARG, "packet size %zu: expected %zu to 65507 bytes",
                             bytes, overhead + 8);
    if (cfg->payload_type > 127)
        return xsf_error_set(err, XSF_ERR_ARG, "payload type %u: expected 0 to 127",
                             cfg->payload_type);
    rtp_packetizer *p = calloc(1, sizeof *p);
    if (!p || !(p->pkt = malloc(bytes))) {
        free(p);
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the packetizer");
    }
    p->cfg = *cfg;
    p->cfg.packet_bytes = bytes;
    p->seq = cfg->first_seq;
    p->chunk = (bytes - overhead) / 8 * 8;
    *out = p;
    return XSF_OK;
}

void rtp_packetizer_destroy(rtp_packetizer *p)
{
    if (!p)
        return;
    free(p->pkt);
    free(p);
}

uint16_t rtp_packetizer_next_seq(const rtp_packetizer *p)
{
    return p->seq;
}

/* The units of one segment: [start, end) ranges of the virtual byte string
 * boxes + codestream. */
typedef struct units {
    size_t n;
    size_t *end; /* n entries; unit u spans [u ? end[u-1] : 0, end[u]) */
} units;

static xsf_status make_units(const rtp_packetizer *p, const uint8_t *cs, size_t len, units *u,
                             xsf_error *err)
{
    const size_t prefix = p->cfg.boxes ? RTP_JXS_BOXES_BYTES : 0;
    xs_layout layout;
    memset(&layout, 0, sizeof layout);
    xsf_status st = xs_scan_layout(cs, len, &layout, err);
    if (st != XSF_OK)
        return st;
    if (layout.codestream_bytes != len) {
        xs_layout_free(&layout);
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "byte %zu: the codestream ends here but %zu bytes were given",
                             layout.codestream_bytes, len);
    }
    if (p->cfg.mode == RTP_JXS_CODESTREAM) {
        xs_layout_free(&layout);
        u->n = 1;
        u->end = malloc(sizeof *u->end);
        if (!u->end)
            return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
        u->end[0] = prefix + len;
        return XSF_OK;
    }
    u->n = layout.nslices + 1;
    u->end = malloc(sizeof *u->end * u->n);
    if (!u->end) {
        xs_layout_free(&layout);
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for %zu slices", layout.nslices);
    }
    for (size_t s = 0; s < layout.nslices; s++)
        u->end[s] = prefix + layout.slice_offset[s];
    u->end[layout.nslices] = prefix + len; /* the last slice keeps the EOC */
    xs_layout_free(&layout);
    return XSF_OK;
}

static size_t unit_packets(const rtp_packetizer *p, size_t bytes)
{
    return bytes ? (bytes + p->chunk - 1) / p->chunk : 1;
}

xsf_status rtp_packetize_count(rtp_packetizer *p, const uint8_t *cs, size_t len, size_t *packets,
                               xsf_error *err)
{
    units u;
    xsf_status st = make_units(p, cs, len, &u, err);
    if (st != XSF_OK)
        return st;
    size_t n = 0;
    for (size_t i = 0; i < u.n; i++)
        n += unit_packets(p, u.end[i] - (i ? u.end[i - 1] : 0));
    free(u.end);
    *packets = n;
    return XSF_OK;
}

/* Copies bytes [from, from+n) of boxes + codestream into dst. */
static void copy_virtual(const rtp_packetizer *p, const uint8_t *cs, size_t from, size_t n,
                         uint8_t *dst)
{
    const size_t prefix = p->cfg.boxes ? RTP_JXS_BOXES_BYTES : 0;
    if (from < prefix) {
        const size_t k = prefix - from < n ? prefix - from : n;
        memcpy(dst, p->boxes + from, k);
        dst += k;
        from += k;
        n -= k;
    }
    if (n) /* a packet smaller than the boxes may hold none of the codestream */
        memcpy(dst, cs + (from - prefix), n);
}

xsf_status rtp_packetize(rtp_packetizer *p, const uint8_t *cs, size_t len, uint32_t timestamp,
                         unsigned f_counter, rtp_jxs_scan scan, rtp_packet_cb cb, void *ctx,
                         xsf_error *err)
{
    if (scan == 1 || scan > 3)
        return xsf_error_set(err, XSF_ERR_ARG, "interlace value %d is reserved", (int)scan);
    units u;
    xsf_status st = make_units(p, cs, len, &u, err);
    if (st != XSF_OK)
        return st;
    if (p->cfg.boxes) {
        rtp_jxs_boxes b = p->cfg.box_template;
        xs_header hdr;
        xsf_error ignored;
        xsf_error_clear(&ignored);
        if (xs_parse_header(cs, len, &hdr, &ignored) == XSF_OK) {
            b.ppih = hdr.ppih;
            b.plev = hdr.plev;
        }
        rtp_jxs_boxes_write(&b, p->boxes, sizeof p->boxes);
    }
    rtp_header h;
    memset(&h, 0, sizeof h);
    h.payload_type = p->cfg.payload_type;
    h.timestamp = timestamp;
    h.ssrc = p->cfg.ssrc;
    rtp_jxs_header jh = {
        .t = 1, .k = (uint8_t)p->cfg.mode, .i = (uint8_t)scan, .f = (uint8_t)(f_counter & 31)};
    for (size_t unit = 0; unit < u.n; unit++) {
        const size_t start = unit ? u.end[unit - 1] : 0, bytes = u.end[unit] - start;
        const size_t npk = unit_packets(p, bytes);
        if (p->cfg.mode == RTP_JXS_CODESTREAM && npk > (size_t)1 << 22) {
            free(u.end);
            return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                                 "%zu packets for one picture segment: SEP and P count 2^22", npk);
        }
        for (size_t k = 0; k < npk; k++) {
            const size_t off = k * p->chunk, n = bytes - off < p->chunk ? bytes - off : p->chunk;
            const int last_of_unit = k + 1 == npk, last = last_of_unit && unit + 1 == u.n;
            if (p->cfg.mode == RTP_JXS_CODESTREAM) {
                jh.sep = (uint16_t)(k >> 11);
                jh.p = (uint16_t)(k & 0x7ff);
            } else {
                jh.sep = unit == 0 ? RTP_JXS_SEP_HEADER_SEGMENT : (uint16_t)((unit - 1) % 2047);
                jh.p = (uint16_t)(k & 0x7ff);
            }
            jh.l = (uint8_t)last_of_unit;
            h.marker = (uint8_t)last;
            h.seq = p->seq++;
            const size_t hb = rtp_header_write(&h, p->pkt, p->cfg.packet_bytes);
            rtp_jxs_header_write(&jh, p->pkt + hb);
            copy_virtual(p, cs, start + off, n, p->pkt + hb + RTP_JXS_HEADER_BYTES);
            const int rc = cb(ctx, p->pkt, hb + RTP_JXS_HEADER_BYTES + n, last);
            if (rc) {
                free(u.end);
                return xsf_error_set(err, XSF_ERR_IO, "packet output stopped (%d)", rc);
            }
        }
    }
    free(u.end);
    return XSF_OK;
}
