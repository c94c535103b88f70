/* The receive transports' table (rtp_receive.h), and a receiver's
 * configuration from a session description. */
#include <string.h>

#include "rtp_internal.h"
#include "xsf_clock.h"

/* One line a transport: its ops live in its own file. */
static const rtp_transport_ops *const transports[] = {
    &rtp_transport_udp,     &rtp_transport_pcap,     &rtp_transport_capture,
    &rtp_transport_dup_udp, &rtp_transport_dup_pcap, &rtp_transport_dup_capture,
};

const rtp_transport_ops *rtp_transport_at(size_t i)
{
    return i < sizeof transports / sizeof transports[0] ? transports[i] : NULL;
}

const rtp_transport_ops *rtp_transport_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof transports / sizeof transports[0]; i++)
        if (!strcmp(transports[i]->name, name))
            return transports[i];
    return NULL;
}

xsf_status rtp_transport_open(rtp_transport *t, const char *name, const rtp_transport_config *cfg,
                              xsf_error *err)
{
    memset(t, 0, sizeof *t);
    const rtp_transport_ops *ops = rtp_transport_find(name);
    if (!ops)
        return xsf_error_set(err, XSF_ERR_ARG, "no receive transport named '%s'", name ? name : "");
    const xsf_status st = ops->open(&t->priv, cfg, err);
    if (st == XSF_OK)
        t->ops = ops;
    return st;
}

void rtp_transport_close(rtp_transport *t)
{
    if (t->ops)
        t->ops->close(t->priv);
    memset(t, 0, sizeof *t);
}

/* ---- a receiver's configuration from an SDP ---- */

void rtp_receiver_options_init(rtp_receiver_options *o)
{
    memset(o, 0, sizeof *o);
    o->payload_type = -1;
    o->reorder_packets = 512;
    o->reorder_ms = 20;
}

xsf_status rtp_receiver_setup_from_sdp(const rtp_sdp *sdp, const rtp_receiver_options *o,
                                       rtp_receiver_setup *out, xsf_error *err)
{
    memset(out, 0, sizeof *out);
    if (o->payload_type != -1 && (o->payload_type < 0 || o->payload_type > 127))
        return xsf_error_set(err, XSF_ERR_ARG, "payload type %d is not 0..127", o->payload_type);
    if (o->reorder_packets < 1 || o->reorder_packets > 65536)
        return xsf_error_set(err, XSF_ERR_ARG, "a reorder window of %u packets is not 1..65536",
                             o->reorder_packets);
    if (o->reorder_ms > 10000)
        return xsf_error_set(err, XSF_ERR_ARG, "a reorder time of %u ms is not 0..10000",
                             o->reorder_ms);
    if (o->max_frame_bytes &&
        (o->max_frame_bytes < 4096 || (uint64_t)o->max_frame_bytes > (1ull << 32)))
        return xsf_error_set(err, XSF_ERR_ARG, "a frame bound of %zu bytes is not 4096..4 GiB",
                             o->max_frame_bytes);
    rtp_depacketizer_config *dc = &out->depacketizer;
    int pt = o->payload_type;
    size_t segment = 0;
    if (sdp) {
        xsf_error e;
        xsf_error_clear(&e);
        if (rtp_addr_parse(sdp->dest_addr, 0, &out->dest, &e) != XSF_OK)
            return xsf_error_set(err, XSF_ERR_INVALID, "c= %s", e.msg);
        out->dest.port = (uint16_t)sdp->port;
        out->has_dest = 1;
        if (sdp->source_addr[0] && rtp_addr_parse(sdp->source_addr, 0, &out->source, &e) == XSF_OK)
            out->has_source = 1;
        if (pt < 0)
            pt = (int)sdp->payload_type;
        out->interlaced = sdp->interlace;
        out->mode = sdp->packetmode ? RTP_JXS_SLICE : RTP_JXS_CODESTREAM;
        out->transmode = sdp->transmode;
        out->rate_num = sdp->rate_num;
        out->rate_den = sdp->rate_den;
        /* The picture the SDP describes bounds every segment: a field has half
         * the frame's lines, so the frame's samples bound both. */
        out->samples = rtp_sdp_samples(sdp);
        if (out->samples)
            segment = rtp_jxs_codestream_bound(out->samples);
        dc->max_picture_samples = out->samples;
        /* ST 2110-21 as a receiver sees it: the type declared (TP), the raster, TROFF; the
         * timestamps on the arrival clock's TAI where the SDP says they are on PTP. */
        rtp_tr21_config *t = &dc->tr21;
        t->rate_num = sdp->rate_num;
        t->rate_den = sdp->rate_den;
        t->type = rtp_tr21_type_of_tp(sdp->tp);
        t->interlaced = sdp->interlace;
        t->height = sdp->height;
        t->has_troffset = sdp->has_troff;
        t->troffset_ns = (uint64_t)sdp->troff_us * 1000u;
        t->clock_known = rtp_sdp_refclk_is_ptp(sdp->ts_refclk);
        t->tai_offset_ns = xsf_clock_tai_offset_ns();
    }
    if (o->max_frame_bytes)
        segment = o->max_frame_bytes;
    else if (!segment)
        segment = (size_t)64 << 20;
    dc->payload_type = pt;
    dc->reorder_packets = o->reorder_packets;
    dc->reorder_ns = (uint64_t)o->reorder_ms * 1000000u;
    dc->max_frame_bytes = segment;
    out->max_frame_bytes = out->interlaced && segment <= SIZE_MAX / 2 ? 2 * segment : segment;
    out->legs = 1;
    out->leg_dest[0] = out->dest;
    out->leg_has_source[0] = out->has_source;
    out->leg_source[0] = out->source;
    return XSF_OK;
}

void rtp_receiver_cover_skew(rtp_depacketizer_config *dc, const rtp_merger_config *mc)
{
    const uint64_t window_ns =
        (uint64_t)(mc->window_ms ? mc->window_ms : RTP_MERGE_WINDOW_MS_DEFAULT) * 1000000u;
    if (dc->reorder_ns < window_ns)
        dc->reorder_ns = window_ns;
    const unsigned packets = rtp_merger_reorder_packets(mc, RTP_MERGE_REORDER_RATE);
    if ((dc->reorder_packets ? dc->reorder_packets : 512) < packets)
        dc->reorder_packets = packets;
    dc->seq_given = 1; /* the merge's numbers: a window past the 16-bit numbers' quarter */
}

xsf_status rtp_receiver_setup_legs(const rtp_sdp *legs, unsigned n, const rtp_receiver_options *o,
                                   rtp_receiver_setup *out, xsf_error *err)
{
    if (n < 1 || n > RTP_LEGS_MAX)
        return xsf_error_set(err, XSF_ERR_ARG, "%u legs: a stream has 1 to %d", n, RTP_LEGS_MAX);
    const xsf_status st = rtp_receiver_setup_from_sdp(&legs[0], o, out, err);
    for (unsigned k = 1; st == XSF_OK && k < n; k++) {
        xsf_error e;
        xsf_error_clear(&e);
        if (rtp_addr_parse(legs[k].dest_addr, 0, &out->leg_dest[k], &e) != XSF_OK)
            return xsf_error_set(err, XSF_ERR_INVALID, "leg %u: c= %s", k + 1, e.msg);
        out->leg_dest[k].port = (uint16_t)legs[k].port;
        out->leg_has_source[k] =
            legs[k].source_addr[0] &&
            rtp_addr_parse(legs[k].source_addr, 0, &out->leg_source[k], &e) == XSF_OK;
        out->legs = k + 1;
    }
    return st;
}
