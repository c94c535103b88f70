/* The legs of a stream in an SDP: media descriptions grouped by
 * `a=group:DUP` (RFC 7104, the grouping SMPTE ST 2022-7 senders write), each
 * read as the session part with that one description (rtp_receive.h,
 * rtp_sdp_parse_legs). */
#define _POSIX_C_SOURCE 200809L /* strtok_r */

#include <stdlib.h>
#include <string.h>

#include "rtp_internal.h"

/* The value of line [p, e) after `prefix`, into out (NUL-terminated); 0 when the line
 * does not start with it. */
static int line_value(const char *p, const char *e, const char *prefix, char *out, size_t cap)
{
    const size_t n = strlen(prefix);
    if ((size_t)(e - p) < n || strncmp(p, prefix, n))
        return 0;
    p += n;
    while (e > p && (e[-1] == '\r' || e[-1] == ' '))
        e--;
    const size_t len = (size_t)(e - p) < cap - 1 ? (size_t)(e - p) : cap - 1;
    memcpy(out, p, len);
    out[len] = '\0';
    return 1;
}

enum { MAX_SECTIONS = 16, SDP_LEGS_MAX_BYTES = 65536 };

/* Whether two legs describe the same stream. */
static int same_stream(const rtp_sdp *a, const rtp_sdp *b)
{
    return a->payload_type == b->payload_type && a->packetmode == b->packetmode &&
           a->transmode == b->transmode && a->width == b->width && a->height == b->height &&
           a->rate_num == b->rate_num && a->rate_den == b->rate_den && a->interlace == b->interlace;
}

xsf_status rtp_sdp_parse_legs(const char *text, size_t len, rtp_sdp *legs, unsigned cap,
                              unsigned *n, xsf_error *err)
{
    *n = 0;
    if (len > SDP_LEGS_MAX_BYTES)
        return xsf_error_set(err, XSF_ERR_INVALID, "larger than 64 KiB");
    /* The session part ends at the first m=; each section runs to the next. */
    size_t session_end = len, nsec = 0;
    size_t sec_start[MAX_SECTIONS], sec_end[MAX_SECTIONS];
    char sec_mid[MAX_SECTIONS][64];
    char group[512] = "";
    int have_group = 0;
    for (size_t pos = 0; pos < len;) {
        const char *p = text + pos;
        const char *nl = memchr(p, '\n', len - pos);
        const char *e = nl ? nl : text + len;
        const size_t next = (size_t)(e - text) + (nl ? 1 : 0);
        if (e - p >= 2 && p[0] == 'm' && p[1] == '=') {
            if (nsec == MAX_SECTIONS)
                return xsf_error_set(err, XSF_ERR_INVALID, "more than %d media descriptions",
                                     MAX_SECTIONS);
            if (!nsec)
                session_end = pos;
            else
                sec_end[nsec - 1] = pos;
            sec_start[nsec] = pos;
            sec_end[nsec] = len;
            sec_mid[nsec][0] = '\0';
            nsec++;
        } else if (nsec) {
            line_value(p, e, "a=mid:", sec_mid[nsec - 1], sizeof sec_mid[nsec - 1]);
        } else if (line_value(p, e, "a=group:DUP ", group, sizeof group)) {
            have_group = 1;
        }
        pos = next;
    }
    if (!have_group) {
        if (!cap)
            return xsf_error_set(err, XSF_ERR_ARG, "no room for a leg");
        const xsf_status st = rtp_sdp_parse(text, len, &legs[0], err);
        *n = st == XSF_OK;
        return st;
    }
    /* RFC 7104: the identification tags of the group, in order; each a media description. */
    char *scratch = malloc(len ? len : 1);
    if (!scratch)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    xsf_status st = XSF_OK;
    unsigned count = 0;
    char *save = NULL;
    for (char *mid = strtok_r(group, " ", &save); mid && st == XSF_OK;
         mid = strtok_r(NULL, " ", &save)) {
        if (count == cap) {
            st = xsf_error_set(err, XSF_ERR_INVALID, "a=group:DUP of more than %u legs", cap);
            break;
        }
        size_t k = 0;
        while (k < nsec && strcmp(sec_mid[k], mid))
            k++;
        if (k == nsec) {
            st = xsf_error_set(err, XSF_ERR_INVALID,
                               "a=group:DUP names '%s', which no media description has "
                               "(a=mid:%s)",
                               mid, mid);
            break;
        }
        const size_t sec = sec_end[k] - sec_start[k];
        memcpy(scratch, text, session_end);
        memcpy(scratch + session_end, text + sec_start[k], sec);
        xsf_error e;
        xsf_error_clear(&e);
        if (rtp_sdp_parse(scratch, session_end + sec, &legs[count], &e) != XSF_OK)
            st = xsf_error_set(err, e.status, "a=mid:%s: %s", mid, e.msg);
        else if (count && !same_stream(&legs[0], &legs[count]))
            st = xsf_error_set(err, XSF_ERR_INVALID,
                               "a=group:DUP: a=mid:%s describes another stream than the "
                               "group's first (payload type or format parameters differ)",
                               mid);
        count++;
    }
    free(scratch);
    if (st == XSF_OK && !count)
        st = xsf_error_set(err, XSF_ERR_INVALID, "a=group:DUP names no media description");
    if (st == XSF_OK)
        *n = count;
    return st;
}
