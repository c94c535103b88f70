/* Transport files of two legs (SMPTE ST 2022-7): an SDP whose media
 * descriptions are grouped by `a=group:DUP` (RFC 7104), read into one
 * rtp_sdp per leg and written from them, with the clock each media
 * description is timed on (`a=ts-refclk`, RFC 7273; ST 2110-10).
 *
 * rtp/ reads and writes the groups (rtp_sdp_parse_legs, rtp_sdp_write_legs);
 * what is the node's own here is the clock it names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nmos_internal.h"
#include "rtp_receive.h"

xsf_status nmos_sdp_legs_parse(const char *text, size_t len, nmos_sdp_legs *out, xsf_error *err)
{
    memset(out, 0, sizeof *out);
    return rtp_sdp_parse_legs(text, len, out->leg, NMOS_LEGS, &out->count, err);
}

char *nmos_sdp_legs_write(const rtp_sdp *const *legs, unsigned count, const char *refclk)
{
    rtp_sdp s[NMOS_LEGS];
    if (count > NMOS_LEGS)
        count = NMOS_LEGS;
    for (unsigned k = 0; k < count; k++) {
        s[k] = *legs[k];
        if (refclk && refclk[0]) /* the node's clock: what it stamps with */
            snprintf(s[k].ts_refclk, sizeof s[k].ts_refclk, "%s", refclk);
    }
    const size_t need = rtp_sdp_write_legs(s, count, NULL, 0) + 1;
    char *out = malloc(need);
    if (out)
        rtp_sdp_write_legs(s, count, out, need);
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
