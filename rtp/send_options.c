/* A send session's command line and its report in words (rtp_send_session.h):
 * the knob table of rtp_send_session_config, its defaults and the checks after
 * it is filled, and the lines `xsflow send` prints, on the caller's FILE. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rtp.h"
#include "xsf_parse.h"

void rtp_send_session_config_init(rtp_send_session_config *c)
{
    memset(c, 0, sizeof *c);
    c->rate_num = 25;
    c->rate_den = 1;
    c->packet_bytes = 1440;
    c->payload_type = 112;
    c->ttl = 16;
    c->loops = 1;
    c->boxes = 1;
    c->impair.seed = 1;
}

/* --fps: N, N/D, N:D or a decimal into rate_num and rate_den. */
static xsf_status parse_rate(void *obj, const char *value, xsf_error *err)
{
    rtp_send_session_config *c = obj;
    xsf_rate r;
    const xsf_status st = xsf_parse_rate(value, &r, err);
    if (st == XSF_OK) {
        c->rate_num = r.num;
        c->rate_den = r.den;
    }
    return st;
}

#define AT(field) offsetof(rtp_send_session_config, field)

const xsf_option rtp_send_session_knobs[] = {
    XSF_OPTION("to", XSF_OPTION_STRING, AT(to), "ADDR:PORT",
               "destination, IPv4 or [IPv6], unicast or multicast; two\n"
               "joined by a comma (A:PORT,B:PORT) send the stream on two\n"
               "legs (SMPTE ST 2022-7): the same packets on both, paced\n"
               "together"),
    XSF_OPTION("pcap", XSF_OPTION_STRING, AT(pcap), "OUT.pcap",
               "write the packets to a capture file instead (to --to's\naddress, default "
               "239.0.0.1:5004); A.pcap,B.pcap: one a leg\n(default 239.0.0.2:5004 for the "
               "second)"),
    XSF_OPTION("sdp", XSF_OPTION_STRING, AT(sdp), "OUT.sdp",
               "write the session description (RFC 9134 / ST 2110-22); two\n"
               "legs: two media grouped by a=group:DUP (RFC 7104)"),
    XSF_OPTION("clock", XSF_OPTION_CHOICE, AT(free_clock), "C",
               "tai (default): RTP timestamps and pacing on the frame grid\n"
               "from the TAI epoch (ST 2110-10, CLOCK_TAI: PTP where phc2sys\n"
               "keeps the clock; without a TAI offset set in the kernel it\n"
               "reads as CLOCK_REALTIME), SDP a=ts-refclk; free: a random\n"
               "first timestamp, paced from now, no a=ts-refclk",
               .choices = "tai|free"),
    XSF_OPTION("refclk", XSF_OPTION_STRING, AT(refclk), "CLOCK",
               "the SDP's a=ts-refclk (RFC 7273) with --clock tai (default\n"
               "ptp=IEEE1588-2008:traceable; a grandmaster and domain:\n"
               "ptp=IEEE1588-2008:EC-46-70-FF-FE-00-42-6C:127)"),
    XSF_OPTION("mode", XSF_OPTION_CHOICE, AT(mode), "M",
               "codestream (default) or slice packetization", .choices = "codestream|slice"),
    XSF_OPTION("fps", XSF_OPTION_CALL, AT(rate_num), "RATE",
               "frame rate: N, N/D, N:D or a decimal, e.g. 50, 60000/1001\n"
               "or 59.94 (default 25)",
               .parse = parse_rate),
    XSF_OPTION("pacing", XSF_OPTION_CHOICE, AT(pacing), "P",
               "narrow (default: one packet every TFRAME/NPACKETS, SDP\n"
               "TP=2110TPNL), wide (bursts within the wide CMAX,\n"
               "TP=2110TPW) or none (no TP)",
               .choices = "narrow|wide|none"),
    XSF_OPTION("burst", XSF_OPTION_UINT, AT(burst), "N",
               "packets handed to the network at once, every N x TRS\n"
               "(default: the pacing's CMAX - 1, the largest burst within\n"
               "its ST 2110-21 sender type: 3 for narrow at UHD60, 15 for\n"
               "wide; 1: one packet every TRS)",
               .lo = 1, .hi = RTP_UDP_GSO_MAX),
    XSF_OPTION("no-gso", XSF_OPTION_FLAG, AT(no_gso), NULL,
               "one system call message per packet: no UDP segmentation\n"
               "offload of the bursts (default: GSO where the kernel has it).\n"
               "Packet captures on this host, or on virtual links (lo, veth)\n"
               "that pass bursts unsegmented, show a GSO burst as one\n"
               "oversize datagram: send with --no-gso for those"),
    XSF_OPTION("packet-size", XSF_OPTION_UINT, AT(packet_bytes), "N",
               "largest RTP packet in bytes (default 1440)", .lo = 32, .hi = 65507,
               .size = sizeof(size_t)),
    XSF_OPTION("pt", XSF_OPTION_UINT, AT(payload_type), "N",
               "RTP payload type, 96..127 (default 112)", .lo = 96, .hi = 127),
    XSF_OPTION("ssrc", XSF_OPTION_UINT, AT(ssrc), "N", "RTP SSRC (default: random)", .lo = 0,
               .hi = 0xffffffffu, .size = 4, .flags = XSF_OPTION_GIVEN,
               .given_offset = AT(ssrc_given)),
    XSF_OPTION("seq", XSF_OPTION_UINT, AT(first_seq), "N",
               "first sequence number (default: random)", .lo = 0, .hi = 0xffff, .size = 2,
               .flags = XSF_OPTION_GIVEN, .given_offset = AT(seq_given)),
    XSF_OPTION("loop", XSF_OPTION_UINT, AT(loops), "N", "send the file N times (default 1)",
               .lo = 1, .hi = 1L << 30, .size = 8, .flags = XSF_OPTION_GIVEN,
               .given_offset = AT(loops_given)),
    XSF_OPTION("interlaced", XSF_OPTION_FLAG, AT(interlaced), NULL,
               "the codestreams are fields, two per frame, each with its\n"
               "own RTP timestamp (RFC 9134 erratum 6752)"),
    XSF_OPTION("no-boxes", XSF_OPTION_SET, AT(boxes), NULL,
               "send bare codestreams, without the picture segment boxes:\n"
               "not RFC 9134 (which requires them), for testing receivers",
               .value = 0),
    XSF_OPTION("iface", XSF_OPTION_STRING, AT(iface), "NAME",
               "interface for multicast (IF1,IF2: one a leg)"),
    XSF_OPTION("ttl", XSF_OPTION_UINT, AT(ttl), "N", "multicast TTL / hop limit (default 16)",
               .lo = 1, .hi = 255),
    XSF_OPTION("source", XSF_OPTION_STRING, AT(source), "ADDR",
               "the sender's address: sent from (with --to), for the SDP's\n"
               "source filter and the .pcap (default there: 192.0.2.1 or\n"
               "2001:db8::1); S1,S2: one a leg"),
    XSF_OPTION("loss", XSF_OPTION_DOUBLE, AT(impair.loss), "P",
               "impairments (soak tests): lose each packet with probability", .lo = 0, .hi = 1),
    XSF_OPTION("reorder", XSF_OPTION_DOUBLE, AT(impair.reorder), "P",
               "P, hold it back behind the next packet sent, send it twice;", .lo = 0, .hi = 1),
    XSF_OPTION("duplicate", XSF_OPTION_DOUBLE, AT(impair.duplicate), "P",
               "the first and the last frame go out unimpaired. Counted,", .lo = 0, .hi = 1),
    XSF_OPTION("seed", XSF_OPTION_UINT, AT(impair.seed), "N",
               "printed and in --stats-json (seed: default 1). With two\n"
               "legs each leg is impaired on its own (the second with\n"
               "seed N + 1)",
               .lo = 0, .hi = (double)INT64_MAX - 1, .size = 8),
    XSF_OPTION("loss-burst", XSF_OPTION_UINT, AT(impair.burst_max), "N",
               "a loss takes 1 to N packets (uniform; --loss is then the\n"
               "chance that one begins at a packet; default 1)",
               .lo = 1, .hi = RTP_IMPAIR_BURST_MAX),
    XSF_OPTION("cut", XSF_OPTION_STRING, AT(cut), "F:N",
               "impairment: frames F to F + N - 1 do not go out (a cable\n"
               "pulled and put back), on the second leg with two"),
    XSF_OPTION("exclusive-loss", XSF_OPTION_FLAG, AT(impair_exclusive), NULL,
               "two legs: never the same packet lost on both (the second\n"
               "leg spares what the first lost, the first loses nothing\n"
               "while the second is cut)"),
    XSF_OPTION("stats-json", XSF_OPTION_STRING, AT(stats_json), "FILE",
               "what was sent and what the impairments did, as JSON (with\n"
               "first_timestamp, the RTP timestamp of the first frame)"),
    XSF_OPTION("sampling", XSF_OPTION_STRING, AT(sampling), "S",
               "SDP sampling (default from the codestream, e.g. YCbCr-4:2:2);\n"
               "with a .yuv input 400, 420, 422 (default), 444 or 4444 give\n"
               "its layout instead"),
    XSF_OPTION("colorimetry", XSF_OPTION_STRING, AT(colorimetry), "C",
               "SDP colorimetry (default BT709)"),
    XSF_OPTION("tcs", XSF_OPTION_STRING, AT(tcs), "T",
               "SDP transfer characteristic system (default SDR)"),
    XSF_OPTION("range", XSF_OPTION_STRING, AT(range), "R", "SDP range: NARROW (default) or FULL"),
    XSF_OPTION_TABLE_END};

xsf_status rtp_send_session_config_finish(rtp_send_session_config *c, rtp_send_failure *f)
{
    memset(f, 0, sizeof *f);
    f->usage = 1;
    if (c->cut) {
        unsigned long long from, n;
        char end;
        f->subject = "--cut";
        if (sscanf(c->cut, "%llu:%llu%c", &from, &n, &end) != 2 || !n)
            return xsf_error_set(&f->err, XSF_ERR_ARG,
                                 "'%s': give F:N, the first frame cut and how many (N > 0)",
                                 c->cut);
        const uint64_t per = c->interlaced ? 2 : 1; /* segments a frame */
        c->impair.cut_from = from * per;
        c->impair.cut_segments = n * per;
    }
    c->impaired = c->impair.loss > 0 || c->impair.reorder > 0 || c->impair.duplicate > 0 ||
                  c->impair.cut_segments > 0;
    f->subject = c->in;
    if (c->in && !c->to && !c->pcap)
        return xsf_error_set(&f->err, XSF_ERR_ARG,
                             "give a destination: --to ADDR:PORT or --pcap OUT.pcap");
    return XSF_OK;
}

void rtp_send_report_format(FILE *f, const rtp_send_session_config *c, const rtp_send_report *r,
                            const char *source, const char *more)
{
    const rtp_sender_stats *st = &r->stats;
    char where[200], second[96], what[160];
    rtp_addr_format(&r->dest, 1, where, sizeof where);
    if (r->legs > 1) {
        rtp_addr_format(&r->dest2, 1, second, sizeof second);
        snprintf(where + strlen(where), sizeof where - strlen(where), " and %s", second);
    }
    if (source)
        snprintf(what, sizeof what, "%s", source);
    else
        snprintf(what, sizeof what, "%zu codestream%s x %" PRIu64, r->codestreams,
                 r->codestreams == 1 ? "" : "s", c->loops);
    fprintf(f, "sent %llu %s%s (%s) as %llu packets, %llu bytes, %s mode, %s pacing, to %s\n",
            (unsigned long long)st->segments, c->interlaced ? "field" : "frame",
            st->segments == 1 ? "" : "s", what, (unsigned long long)st->packets,
            (unsigned long long)st->bytes, c->mode ? "slice" : "codestream",
            c->pacing == RTP_PACING_NARROW ? "narrow"
            : c->pacing == RTP_PACING_WIDE ? "wide"
                                           : "no",
            c->pcap ? c->pcap : where);
    if (more)
        fputs(more, f);
    if (r->legs > 1 && (st->leg_errors[0] || st->leg_errors[1]))
        fprintf(f, "send calls refused: %llu on leg 1, %llu on leg 2 (last: %s)\n",
                (unsigned long long)st->leg_errors[0], (unsigned long long)st->leg_errors[1],
                st->leg_error);
    if (r->socket)
        fprintf(f,
                "%llu send calls (%.1f packets each, %s), %llu of them late (more than one "
                "burst at once)\n",
                (unsigned long long)st->send_calls,
                st->send_calls ? (double)st->packets / (double)st->send_calls : 0.0,
                r->gso           ? "GSO"
                : r->gso_refused ? "GSO refused by the kernel"
                                 : "no GSO",
                (unsigned long long)st->late_sends);
}

void rtp_send_impairments_format(FILE *f, const rtp_send_session_config *c,
                                 const rtp_send_report *r)
{
    const rtp_impair_counts *const leg[2] = {r->impair, r->impair2};
    for (unsigned k = 0; k < 2 && leg[k]; k++) {
        const rtp_impair_counts *n = leg[k];
        char which[32] = "";
        if (leg[1])
            snprintf(which, sizeof which, " of leg %u", k + 1);
        fprintf(f,
                "send: impairments%s (seed %llu): of %llu packets, lost %llu (%llu losses begun, "
                "%llu in %llu frames cut), reordered %llu, duplicated %llu; %llu of %llu frames "
                "lost a packet\n",
                which, (unsigned long long)(c->impair.seed + k), (unsigned long long)n->packets,
                (unsigned long long)n->lost, (unsigned long long)n->bursts,
                (unsigned long long)n->cut_packets, (unsigned long long)n->cut_segments,
                (unsigned long long)n->reordered, (unsigned long long)n->duplicated,
                (unsigned long long)n->segments_with_loss, (unsigned long long)n->segments);
    }
    if (leg[1])
        fprintf(f, "send: lost on both legs: %llu packets, in %llu frames\n",
                (unsigned long long)r->stats.lost_all_legs,
                (unsigned long long)r->stats.segments_lost_all_legs);
}
