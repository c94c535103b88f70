/* Session descriptions (RFC 8866) of ST 2110-22 streams: media type
 * video/jxsv (RFC 9134 7.1, 8.1): rtpmap jxsv/90000 (the required "rate"),
 * the fmtp parameters of RFC 9134 7.1 (packetmode, required; transmode,
 * profile, level, sublevel, depth, width, height, exactframerate, interlace,
 * segmented, sampling, colorimetry, TCS, RANGE), TP (ST 2110-21 compliance,
 * which RFC 9134 5 asks for when the sender shapes its traffic so) and SSN
 * (ST 2110-22's, not RFC 9134's); c= with the TTL for IPv4 multicast, and
 * RFC 4570 source filters for source-specific multicast. */
#define _POSIX_C_SOURCE 200809L /* strtok_r, strcasecmp */

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rtp_internal.h"
#include "xs.h"
#include "xsf_parse.h"

#define SDP_MAX_LINE 1024

void rtp_sdp_init(rtp_sdp *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->session_name, sizeof s->session_name, "xsflow JPEG XS");
    snprintf(s->origin_addr, sizeof s->origin_addr, "127.0.0.1");
    s->transmode = 1;
    s->port = 5004;
    s->payload_type = 112;
    snprintf(s->ssn, sizeof s->ssn, "ST2110-22:2019");
}

const char *rtp_sdp_range(const rtp_sdp *s)
{
    /* RFC 9134 7.1, RANGE: absent, NARROW, but FULL with UNSPECIFIED colorimetry. */
    if (s->range[0])
        return s->range;
    return strcasecmp(s->colorimetry, "UNSPECIFIED") ? "NARROW" : "FULL";
}

uint64_t rtp_sdp_samples(const rtp_sdp *s)
{
    const uint64_t px = (uint64_t)s->width * s->height;
    if (!px)
        return 0;
    /* ST 2110-20 sampling names: the 4:2:x suffix, else RGB / 4:4:4 shapes. */
    const char *smp = s->sampling;
    if (strstr(smp, "4:2:2"))
        return 2 * px + 2 * (uint64_t)s->height; /* odd widths round up */
    if (strstr(smp, "4:2:0"))
        return px + px / 2 + 2 * ((uint64_t)s->width + s->height); /* odd sizes round up */
    if (strstr(smp, "4:4:4") || !strcasecmp(smp, "RGB") || !strcasecmp(smp, "XYZ"))
        return 3 * px;
    if (!strcasecmp(smp, "KEY"))
        return px;
    return 4 * px;
}

/* Copies a 21122-2 name without its spaces (RFC 9134 7.1: "Any white space
 * ... SHALL be omitted"); NULL for the names xs/ gives to unknown codes. */
static const char *sdp_name(const char *name, char *buf, size_t cap)
{
    if (!name || !cap || !strncmp(name, "unknown", 7))
        return NULL;
    size_t n = 0;
    for (const char *c = name; *c && n + 1 < cap; c++)
        if (!isspace((unsigned char)*c))
            buf[n++] = *c;
    buf[n] = '\0';
    return buf;
}

const char *rtp_sdp_level_name(uint16_t plev, char *buf, size_t cap)
{
    return sdp_name(xs_level_name(plev), buf, cap);
}

const char *rtp_sdp_sublevel_name(uint16_t plev, char *buf, size_t cap)
{
    return sdp_name(xs_sublevel_name(plev), buf, cap);
}

const char *rtp_sdp_profile_name(uint16_t ppih, char *buf, size_t cap)
{
    /* RFC 9134 7.1 spells 21122-2's profile names without spaces ("High444.12"). */
    return sdp_name(xs_profile_name(ppih), buf, cap);
}

typedef struct out {
    char *p;
    size_t cap, len;
} out;

static void put(out *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[SDP_MAX_LINE];
    const int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    const size_t k = (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1;
    if (o->len + k < o->cap)
        memcpy(o->p + o->len, tmp, k);
    o->len += k;
}

/* v= o= s= t=: the session's lines. */
static void write_session(out *o, const rtp_sdp *s)
{
    put(o, "v=0\r\n");
    put(o, "o=- 1 1 IN %s %s\r\n", strchr(s->origin_addr, ':') ? "IP6" : "IP4", s->origin_addr);
    put(o, "s=%s\r\n", s->session_name);
    put(o, "t=0 0\r\n");
}

/* The media section of the stream; `mid` (RFC 5888) where it is one of a group. */
static void write_media(out *o, const rtp_sdp *s, const char *mid)
{
    const char *ip = s->ipv6 ? "IP6" : "IP4";
    put(o, "m=video %u RTP/AVP %u\r\n", s->port, s->payload_type);
    if (!s->ipv6 && s->ttl)
        put(o, "c=IN %s %s/%u\r\n", ip, s->dest_addr, s->ttl);
    else
        put(o, "c=IN %s %s\r\n", ip, s->dest_addr);
    if (s->max_bitrate_kbps)
        put(o, "b=AS:%llu\r\n", (unsigned long long)s->max_bitrate_kbps);
    if (s->source_addr[0])
        put(o, "a=source-filter: incl IN %s %s %s\r\n", ip, s->dest_addr, s->source_addr);
    put(o, "a=rtpmap:%u jxsv/90000\r\n", s->payload_type);
    put(o, "a=fmtp:%u packetmode=%d;transmode=%d", s->payload_type, s->packetmode, s->transmode);
    if (s->profile[0])
        put(o, ";profile=%s", s->profile);
    if (s->level[0])
        put(o, ";level=%s", s->level);
    if (s->sublevel[0])
        put(o, ";sublevel=%s", s->sublevel);
    if (s->depth)
        put(o, ";depth=%u", s->depth);
    if (s->width)
        put(o, ";width=%u", s->width);
    if (s->height)
        put(o, ";height=%u", s->height);
    if (s->rate_num) {
        /* RFC 9134 7.1: an integer rate as one number, another as the ratio
         * with the smallest numerator. */
        unsigned num = s->rate_num, den = s->rate_den ? s->rate_den : 1;
        xsf_rate_reduce(&num, &den);
        if (den > 1)
            put(o, ";exactframerate=%u/%u", num, den);
        else
            put(o, ";exactframerate=%u", num);
    }
    if (s->sampling[0])
        put(o, ";sampling=%s", s->sampling);
    if (s->colorimetry[0])
        put(o, ";colorimetry=%s", s->colorimetry);
    if (s->interlace)
        put(o, ";interlace");
    if (s->interlace && s->segmented) /* RFC 9134 7.1: segmented only with interlace */
        put(o, ";segmented");
    if (s->tcs[0])
        put(o, ";TCS=%s", s->tcs);
    if (s->range[0])
        put(o, ";RANGE=%s", s->range);
    if (s->ssn[0])
        put(o, ";SSN=%s", s->ssn);
    if (s->tp[0])
        put(o, ";TP=%s", s->tp);
    put(o, "\r\n");
    /* ST 2110-10: the clock the timestamps are on (RFC 7273), and the media clock: the
     * RTP clock, zero offset from that clock's epoch. */
    if (s->ts_refclk[0])
        put(o, "a=ts-refclk:%s\r\n", s->ts_refclk);
    put(o, "a=mediaclk:%s\r\n", s->mediaclk[0] ? s->mediaclk : "direct=0");
    if (mid)
        put(o, "a=mid:%s\r\n", mid);
}

static size_t finish(out *o)
{
    if (o->len < o->cap)
        o->p[o->len] = '\0';
    else if (o->cap)
        o->p[o->cap - 1] = '\0';
    return o->len;
}

size_t rtp_sdp_write(const rtp_sdp *s, char *buf, size_t cap)
{
    out o = {buf, cap, 0};
    write_session(&o, s);
    write_media(&o, s, NULL);
    return finish(&o);
}

size_t rtp_sdp_write_legs(const rtp_sdp *legs, size_t n, char *buf, size_t cap)
{
    if (n <= 1)
        return rtp_sdp_write(legs, buf, cap);
    static const char *const mids[RTP_SDP_MAX_LEGS] = {"primary", "secondary"};
    if (n > RTP_SDP_MAX_LEGS)
        n = RTP_SDP_MAX_LEGS;
    out o = {buf, cap, 0};
    write_session(&o, &legs[0]);
    /* RFC 7104: the media sections of one stream sent twice, duplication grouping. */
    put(&o, "a=group:DUP");
    for (size_t i = 0; i < n; i++)
        put(&o, " %s", mids[i]);
    put(&o, "\r\n");
    for (size_t i = 0; i < n; i++)
        write_media(&o, &legs[i], mids[i]);
    return finish(&o);
}

int rtp_sdp_refclk_is_ptp(const char *ts_refclk)
{
    return !strncasecmp(ts_refclk, "ptp=", 4);
}

/* ---- parser ---- */

static int parse_uint(const char *s, unsigned long max, unsigned *v)
{
    if (!isdigit((unsigned char)*s))
        return -1;
    char *end;
    const unsigned long x = strtoul(s, &end, 10);
    if (*end || x > max)
        return -1;
    *v = (unsigned)x;
    return 0;
}

/* Copies src, cut to fit (SDP values longer than our fields are not ones we use). */
static void copy_field(char *dst, size_t cap, const char *src)
{
    size_t n = 0;
    while (src[n] && n + 1 < cap) {
        dst[n] = src[n];
        n++;
    }
    dst[n] = '\0';
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

/* One fmtp parameter (RFC 9134 7.1; names are case-insensitive, the ones
 * not defined there are ignored, 8.1). */
static xsf_status fmtp_param(rtp_sdp *s, char *kv, unsigned line, int *have_packetmode,
                             xsf_error *err)
{
    char *eq = strchr(kv, '=');
    const char *val = "";
    if (eq) {
        *eq = '\0';
        val = eq + 1;
    }
    const char *key = kv;
    unsigned v;
    if (!strcasecmp(key, "packetmode") || !strcasecmp(key, "transmode")) {
        if (parse_uint(val, 1, &v))
            return xsf_error_set(err, XSF_ERR_INVALID, "line %u: fmtp %s=%s: expected 0 or 1", line,
                                 key, val);
        if (key[0] == 'p' || key[0] == 'P') {
            s->packetmode = (int)v;
            *have_packetmode = 1;
        } else {
            s->transmode = (int)v;
        }
    } else if (!strcasecmp(key, "depth")) {
        if (parse_uint(val, 16, &v) || !v)
            return xsf_error_set(err, XSF_ERR_INVALID, "line %u: fmtp depth=%s: expected 1 to 16",
                                 line, val);
        s->depth = v;
    } else if (!strcasecmp(key, "width") || !strcasecmp(key, "height")) {
        if (parse_uint(val, 32767, &v) || !v)
            return xsf_error_set(err, XSF_ERR_INVALID, "line %u: fmtp %s=%s: expected 1 to 32767",
                                 line, key, val);
        if (key[0] == 'w' || key[0] == 'W')
            s->width = v;
        else
            s->height = v;
    } else if (!strcasecmp(key, "exactframerate")) {
        char tmp[32];
        copy_field(tmp, sizeof tmp, val);
        char *slash = strchr(tmp, '/');
        unsigned num, den = 1;
        if (slash)
            *slash = '\0';
        if (parse_uint(tmp, 1000000, &num) || !num ||
            (slash && (parse_uint(slash + 1, 1000000, &den) || !den)))
            return xsf_error_set(err, XSF_ERR_INVALID,
                                 "line %u: fmtp exactframerate=%s: expected N or N/D", line, val);
        xsf_rate_reduce(&num, &den);
        s->rate_num = num;
        s->rate_den = den;
    } else if (!strcasecmp(key, "profile")) {
        copy_field(s->profile, sizeof s->profile, val);
    } else if (!strcasecmp(key, "level")) {
        copy_field(s->level, sizeof s->level, val);
    } else if (!strcasecmp(key, "sublevel")) {
        copy_field(s->sublevel, sizeof s->sublevel, val);
    } else if (!strcasecmp(key, "sampling")) {
        copy_field(s->sampling, sizeof s->sampling, val);
    } else if (!strcasecmp(key, "colorimetry")) {
        copy_field(s->colorimetry, sizeof s->colorimetry, val);
    } else if (!strcasecmp(key, "TCS")) {
        copy_field(s->tcs, sizeof s->tcs, val);
    } else if (!strcasecmp(key, "RANGE")) {
        copy_field(s->range, sizeof s->range, val);
    } else if (!strcasecmp(key, "SSN")) {
        copy_field(s->ssn, sizeof s->ssn, val);
    } else if (!strcasecmp(key, "TP")) {
        copy_field(s->tp, sizeof s->tp, val);
    } else if (!strcasecmp(key, "TROFF")) {
        char *end;
        const unsigned long us = strtoul(val, &end, 10);
        s->has_troff = end != val && !*end && us <= 1000000; /* else ignored: the default */
        s->troff_us = s->has_troff ? (unsigned)us : 0;
    } else if (!strcasecmp(key, "interlace")) {
        s->interlace = 1;
    } else if (!strcasecmp(key, "segmented")) {
        s->segmented = 1;
    } /* other parameters (e.g. ST 2110's MAXUDP, CMAX) are not needed to receive */
    return XSF_OK;
}

/* The a=fmtp line of the jxsv payload type: its parameters, then the rules
 * RFC 9134 7.1 sets between them. */
static xsf_status fmtp_line(rtp_sdp *s, const char *params, unsigned line, xsf_error *err)
{
    char list[SDP_MAX_LINE], *save = NULL;
    copy_field(list, sizeof list, params);
    int have_packetmode = 0;
    for (char *t = strtok_r(list, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
        char *kv = trim(t);
        if (!*kv)
            continue;
        xsf_status st = fmtp_param(s, kv, line, &have_packetmode, err);
        if (st != XSF_OK)
            return st;
    }
    if (!have_packetmode)
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "line %u: a=fmtp:%u has no packetmode, which RFC 9134 7.1 requires",
                             line, s->payload_type);
    if (!s->transmode && !s->packetmode)
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "line %u: transmode=0 (out of order) with packetmode=0: RFC 9134 "
                             "allows out-of-order sending in slice mode only (packetmode=1)",
                             line);
    if (s->segmented && !s->interlace)
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "line %u: segmented without interlace, which RFC 9134 7.1 forbids",
                             line);
    return XSF_OK;
}

/* "IN IP4 239.1.1.1/32" -> family, address, ttl */
static xsf_status parse_conn(const char *v, int *ipv6, char *addr, size_t cap, unsigned *ttl,
                             unsigned line, xsf_error *err)
{
    char nettype[8], addrtype[8], a[80];
    if (sscanf(v, "%7s %7s %79s", nettype, addrtype, a) != 3 || strcmp(nettype, "IN") ||
        (strcmp(addrtype, "IP4") && strcmp(addrtype, "IP6")))
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "line %u: c=%s: expected 'IN IP4|IP6 ADDRESS[/TTL]'", line, v);
    *ipv6 = addrtype[2] == '6';
    char *slash = strchr(a, '/');
    *ttl = 0;
    if (slash) {
        *slash = '\0';
        char *slash2 = strchr(slash + 1, '/'); /* a number of addresses may follow */
        if (slash2)
            *slash2 = '\0';
        if (!*ipv6 && parse_uint(slash + 1, 255, ttl))
            return xsf_error_set(err, XSF_ERR_INVALID, "line %u: c=%s: bad TTL", line, v);
    }
    /* An address cut to fit, or none before the '/', would be another address. */
    if (!a[0] || strlen(a) >= cap)
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "line %u: c=%s: expected an address of 1 to %zu characters", line, v,
                             cap - 1);
    copy_field(addr, cap, a);
    return XSF_OK;
}

xsf_status rtp_sdp_parse(const char *text, size_t len, rtp_sdp *s, xsf_error *err)
{
    rtp_sdp_init(s);
    s->ssn[0] = s->tp[0] = '\0';
    s->session_name[0] = '\0';
    int session_ipv6 = 0, have_session_c = 0;
    char session_addr[64] = "";
    unsigned session_ttl = 0;
    int in_media = 0, found = 0, done = 0, have_media_c = 0;
    unsigned media_port = 0;
    char media_pts[256] = "";
    size_t pos = 0;
    unsigned line = 0;
    rtp_sdp cand = *s;
    /* The a=fmtp lines of the media section, applied once its rtpmap is
     * known (RFC 8866 puts no order on a= lines). */
    enum { MAX_FMTP = 8 };
    struct {
        unsigned pt, line;
        char params[SDP_MAX_LINE];
    } fmtp[MAX_FMTP];
    size_t nfmtp = 0;
    while (pos < len && !done) {
        size_t e = pos;
        while (e < len && text[e] != '\n')
            e++;
        line++;
        if (e - pos >= SDP_MAX_LINE)
            return xsf_error_set(err, XSF_ERR_INVALID, "line %u: longer than %d bytes", line,
                                 SDP_MAX_LINE);
        char buf[SDP_MAX_LINE];
        memcpy(buf, text + pos, e - pos);
        buf[e - pos] = '\0';
        pos = e + 1;
        size_t n = strlen(buf);
        if (n && buf[n - 1] == '\r')
            buf[--n] = '\0';
        if (!n)
            continue;
        if (n < 2 || buf[1] != '=')
            return xsf_error_set(err, XSF_ERR_INVALID, "line %u: '%.40s': expected TYPE=VALUE",
                                 line, buf);
        const char type = buf[0];
        char *v = buf + 2;
        if (type == 'm') {
            if (in_media && found) {
                done = 1;
                break;
            }
            in_media = 1;
            have_media_c = 0;
            nfmtp = 0;
            char media[16], proto[32];
            unsigned port;
            int used = 0;
            char portstr[32];
            if (sscanf(v, "%15s %31s %31s %n", media, portstr, proto, &used) < 3)
                return xsf_error_set(err, XSF_ERR_INVALID,
                                     "line %u: m=%s: expected 'MEDIA PORT PROTO FORMATS'", line, v);
            char *slash = strchr(portstr, '/');
            if (slash)
                *slash = '\0';
            if (parse_uint(portstr, 65535, &port) || !port)
                return xsf_error_set(err, XSF_ERR_INVALID,
                                     "line %u: m= port '%s': expected 1 to 65535", line, portstr);
            media_port = strcmp(media, "video") ? 0 : port;
            copy_field(media_pts, sizeof media_pts, v + used);
            cand = *s;
        } else if (type == 'c') {
            int ip6 = 0;
            char addr[64] = "";
            unsigned ttl = 0;
            xsf_status st = parse_conn(v, &ip6, addr, sizeof addr, &ttl, line, err);
            if (st != XSF_OK)
                return st;
            if (in_media) {
                have_media_c = 1;
                cand.ipv6 = ip6;
                copy_field(cand.dest_addr, sizeof cand.dest_addr, addr);
                cand.ttl = ttl;
            } else {
                have_session_c = 1;
                session_ipv6 = ip6;
                copy_field(session_addr, sizeof session_addr, addr);
                session_ttl = ttl;
            }
        } else if (type == 's' && !in_media) {
            copy_field(s->session_name, sizeof s->session_name, v);
        } else if (type == 'o' && !in_media) {
            char user[64], id[32], ver[32], nt[8], at[8], addr[64];
            if (sscanf(v, "%63s %31s %31s %7s %7s %63s", user, id, ver, nt, at, addr) == 6)
                copy_field(s->origin_addr, sizeof s->origin_addr, addr);
        } else if (type == 'b' && in_media && media_port) {
            unsigned long long kbps;
            if (sscanf(v, "AS:%llu", &kbps) == 1)
                cand.max_bitrate_kbps = kbps;
        } else if (type == 'a' && (!in_media || media_port) &&
                   (!strncmp(v, "ts-refclk:", 10) || !strncmp(v, "mediaclk:", 9))) {
            /* ST 2110-10 / RFC 7273: the session's apply to each media without its own. */
            rtp_sdp *to = !in_media ? s : found ? s : &cand;
            if (v[0] == 't')
                copy_field(to->ts_refclk, sizeof to->ts_refclk, trim(v + 10));
            else
                copy_field(to->mediaclk, sizeof to->mediaclk, trim(v + 9));
        } else if (type == 'a' && in_media && media_port) {
            unsigned pt;
            char name[64];
            unsigned clock;
            if (!strncmp(v, "rtpmap:", 7)) {
                if (sscanf(v + 7, "%u %63[^/]/%u", &pt, name, &clock) == 3 &&
                    !strcasecmp(name, "jxsv")) {
                    /* The payload type must be one of the m= line's formats. */
                    char pts[256], *save = NULL;
                    copy_field(pts, sizeof pts, media_pts);
                    int listed = 0;
                    for (char *t = strtok_r(pts, " ", &save); t; t = strtok_r(NULL, " ", &save))
                        listed |= (unsigned)atoi(t) == pt;
                    if (!listed)
                        return xsf_error_set(
                            err, XSF_ERR_INVALID,
                            "line %u: rtpmap payload type %u is not in the m= line's formats '%s'",
                            line, pt, media_pts);
                    if (clock != RTP_CLOCK_HZ)
                        return xsf_error_set(
                            err, XSF_ERR_INVALID,
                            "line %u: rtpmap jxsv clock rate %u, RFC 9134 requires 90000", line,
                            clock);
                    if (pt > 127)
                        return xsf_error_set(err, XSF_ERR_INVALID,
                                             "line %u: payload type %u above 127", line, pt);
                    found = 1;
                    cand.payload_type = pt;
                    cand.port = media_port;
                    *s = cand;
                }
            } else if (!strncmp(v, "fmtp:", 5)) {
                if (sscanf(v + 5, "%u", &pt) == 1 && nfmtp < MAX_FMTP) {
                    const char *params = strchr(v + 5, ' ');
                    fmtp[nfmtp].pt = pt;
                    fmtp[nfmtp].line = line;
                    copy_field(fmtp[nfmtp].params, sizeof fmtp[nfmtp].params,
                               params ? params + 1 : "");
                    nfmtp++;
                }
            } else if (!strncmp(v, "source-filter:", 14)) {
                char mode[8], nt[8], at[8], dest[64], src[64];
                if (sscanf(v + 14, "%7s %7s %7s %63s %63s", mode, nt, at, dest, src) == 5 &&
                    !strcmp(mode, "incl"))
                    copy_field(found ? s->source_addr : cand.source_addr, sizeof s->source_addr,
                               src);
            }
        }
        if (found && in_media && type == 'c') {
            s->ipv6 = cand.ipv6;
            copy_field(s->dest_addr, sizeof s->dest_addr, cand.dest_addr);
            s->ttl = cand.ttl;
        }
        if (found && type == 'b')
            s->max_bitrate_kbps = cand.max_bitrate_kbps;
    }
    if (!found)
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "no video m= section with an 'a=rtpmap:PT jxsv/90000' line");
    size_t f = 0;
    while (f < nfmtp && fmtp[f].pt != s->payload_type)
        f++;
    if (f == nfmtp)
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "no a=fmtp:%u line: RFC 9134 7.1 and 8.2 require one, with packetmode",
                             s->payload_type);
    xsf_status st = fmtp_line(s, fmtp[f].params, fmtp[f].line, err);
    if (st != XSF_OK)
        return st;
    if (!have_media_c && !s->dest_addr[0]) {
        if (!have_session_c)
            return xsf_error_set(err, XSF_ERR_INVALID, "no c= line for the jxsv media");
        s->ipv6 = session_ipv6;
        copy_field(s->dest_addr, sizeof s->dest_addr, session_addr);
        s->ttl = session_ttl;
    }
    return XSF_OK;
}
