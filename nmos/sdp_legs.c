/* Transport files of two legs (SMPTE ST 2022-7): an SDP whose media
 * descriptions are grouped by `a=group:DUP` (RFC 7104), read into one
 * rtp_sdp per leg and written from them, with the clock each media
 * description is timed on (`a=ts-refclk`, RFC 7273; ST 2110-10).
 *
 * Each leg is read and written by rtp/'s one-stream parser and writer: a leg
 * is the session part followed by that leg's media description. When rtp/
 * reads and writes DUP groups itself, this file becomes calls into it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nmos_internal.h"

static const char *const mids[NMOS_LEGS] = {"PRIMARY", "SECONDARY"};

/* The next line of [p, end): its length without the line break; *next after it. */
static size_t line_len(const char *p, const char *end, const char **next)
{
    const char *e = p;
    while (e < end && *e != '\n')
        e++;
    *next = e < end ? e + 1 : end;
    return (size_t)(e - p - (e > p && e[-1] == '\r'));
}

/* Where the media description with a=mid:MID starts and ends; 0 when none. */
static int find_mid(const char *text, const char *end, const char *mid, const char **start,
                    const char **stop)
{
    const char *m = NULL, *next;
    const size_t ml = strlen(mid);
    *start = NULL;
    for (const char *p = text; p < end; p = next) {
        const size_t n = line_len(p, end, &next);
        if (n >= 2 && !strncmp(p, "m=", 2)) {
            if (*start)
                return *stop = p, 1;
            m = p;
        } else if (m && n == 6 + ml && !strncmp(p, "a=mid:", 6) && !strncmp(p + 6, mid, ml)) {
            *start = m;
        }
    }
    return *start ? (*stop = end, 1) : 0;
}

xsf_status nmos_sdp_legs_parse(const char *text, size_t len, nmos_sdp_legs *out, xsf_error *err)
{
    memset(out, 0, sizeof *out);
    const char *end = text + len, *next, *session_end = end;
    char group[256] = "";
    for (const char *p = text; p < end; p = next) {
        const size_t n = line_len(p, end, &next);
        if (n >= 2 && !strncmp(p, "m=", 2)) {
            session_end = p;
            break;
        }
        if (n > 12 && !strncmp(p, "a=group:DUP ", 12) && n - 12 < sizeof group)
            snprintf(group, sizeof group, "%.*s", (int)(n - 12), p + 12);
    }
    if (!group[0]) {
        out->count = 1;
        return rtp_sdp_parse(text, len, &out->leg[0], err);
    }
    char *save = NULL;
    for (char *mid = strtok_r(group, " \t", &save); mid; mid = strtok_r(NULL, " \t", &save)) {
        if (out->count == NMOS_LEGS)
            return xsf_error_set(err, XSF_ERR_INVALID,
                                 "a=group:DUP of more than %d streams (ST 2022-7 has %d legs)",
                                 NMOS_LEGS, NMOS_LEGS);
        const char *start = NULL, *stop = NULL;
        if (!find_mid(text, end, mid, &start, &stop))
            return xsf_error_set(err, XSF_ERR_INVALID,
                                 "a=group:DUP names '%s', which no media description is "
                                 "(a=mid:%s)",
                                 mid, mid);
        const size_t head = (size_t)(session_end - text), body = (size_t)(stop - start);
        char *one = malloc(head + body + 1);
        if (!one)
            return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
        memcpy(one, text, head);
        memcpy(one + head, start, body);
        one[head + body] = 0;
        xsf_error e;
        xsf_error_clear(&e);
        const xsf_status st = rtp_sdp_parse(one, head + body, &out->leg[out->count], &e);
        free(one);
        if (st != XSF_OK)
            return xsf_error_set(err, st, "leg %u (a=mid:%s): %s", out->count + 1, mid, e.msg);
        out->count++;
    }
    if (!out->count)
        return xsf_error_set(err, XSF_ERR_INVALID, "a=group:DUP names no stream");
    return XSF_OK;
}

/* Appends [p, p+n) to the growing text *o (len *ol); -1 when out of memory. */
static int append(char **o, size_t *ol, const char *p, size_t n)
{
    char *b = realloc(*o, *ol + n + 1);
    if (!b)
        return -1;
    memcpy(b + *ol, p, n);
    *ol += n;
    b[*ol] = 0;
    *o = b;
    return 0;
}

char *nmos_sdp_legs_write(const rtp_sdp *const *legs, unsigned count, const char *refclk)
{
    char *out = NULL;
    size_t ol = 0;
    int bad = 0;
    for (unsigned k = 0; k < count && !bad; k++) {
        const size_t need = rtp_sdp_write(legs[k], NULL, 0) + 1;
        char *one = malloc(need);
        if (!one) {
            bad = 1;
            break;
        }
        rtp_sdp_write(legs[k], one, need);
        const char *m = strstr(one, "\r\nm=");
        m = m ? m + 2 : one + strlen(one);
        if (k == 0) {
            bad |= append(&out, &ol, one, (size_t)(m - one));
            if (count > 1) {
                char g[64];
                const int gn = snprintf(g, sizeof g, "a=group:DUP %s %s\r\n", mids[0], mids[1]);
                bad |= append(&out, &ol, g, (size_t)gn);
            }
        }
        bad |= append(&out, &ol, m, strlen(m));
        char a[160];
        if (refclk && refclk[0] && !strstr(m, "a=ts-refclk:")) {
            const int an = snprintf(a, sizeof a, "a=ts-refclk:%s\r\n", refclk);
            bad |= append(&out, &ol, a, (size_t)an);
        }
        if (count > 1) {
            const int an = snprintf(a, sizeof a, "a=mid:%s\r\n", mids[k]);
            bad |= append(&out, &ol, a, (size_t)an);
        }
        free(one);
    }
    if (bad) {
        free(out);
        return NULL;
    }
    return out;
}

/* An EUI-64 or MAC as RFC 7273 writes them: upper-case hex, '-' between bytes. */
static void upper_id(char *dst, size_t cap, const char *src)
{
    size_t k = 0;
    for (; src[k] && k + 1 < cap; k++)
        dst[k] = src[k] >= 'a' && src[k] <= 'f' ? (char)(src[k] - 'a' + 'A') : src[k];
    dst[k] = 0;
}

void nmos_ts_refclk(const nmos_clock *c, const char *port_id, char *out, size_t cap)
{
    char id[32];
    if (c->ptp && c->traceable) {
        snprintf(out, cap, "ptp=IEEE1588-2008:traceable");
    } else if (c->ptp) {
        upper_id(id, sizeof id, c->gmid);
        snprintf(out, cap, "ptp=IEEE1588-2008:%s:%u", id, c->domain);
    } else {
        upper_id(id, sizeof id, port_id);
        snprintf(out, cap, "localmac=%s", id);
    }
}
