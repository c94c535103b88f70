/* libFuzzer target: the SDP parser (rtp_sdp_parse) on arbitrary text, and
 * what callers derive from a parsed description.
 *
 * Checks: nothing crashes, leaks or reads past the text (the input is
 * copied to an exact-size buffer with no terminating NUL: the parser is
 * given a length, not a C string); every string field of a parsed SDP is
 * terminated inside its array; and a description that parsed survives the
 * round trip through rtp_sdp_write and rtp_sdp_parse with the same numbers
 * (port, payload type, packetmode, transmode, size, depth, reduced frame
 * rate, interlace), since a sender writes what a receiver then reads.
 * Seeds: tests/fuzz/sdp_seeds (RFC 9134 descriptions: unicast, SSM
 * multicast, IPv6, fractional rates, interlaced, every fmtp parameter). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rtp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_terminated(const char *s, size_t cap)
{
    if (!memchr(s, '\0', cap))
        abort(); /* a field filled to its end with no terminator */
}

#define TERMINATED(field) check_terminated((field), sizeof(field))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    char *text = malloc(size ? size : 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    rtp_sdp s;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_sdp_parse(text, size, &s, &err) == XSF_OK) {
        TERMINATED(s.session_name);
        TERMINATED(s.origin_addr);
        TERMINATED(s.dest_addr);
        TERMINATED(s.source_addr);
        TERMINATED(s.profile);
        TERMINATED(s.level);
        TERMINATED(s.sublevel);
        TERMINATED(s.sampling);
        TERMINATED(s.colorimetry);
        TERMINATED(s.tcs);
        TERMINATED(s.range);
        TERMINATED(s.ssn);
        TERMINATED(s.tp);
        (void)rtp_sdp_samples(&s);
        if (!rtp_sdp_range(&s))
            abort();
        char out[4096];
        const size_t n = rtp_sdp_write(&s, out, sizeof out);
        if (n < sizeof out) {
            rtp_sdp again;
            xsf_error_clear(&err);
            if (rtp_sdp_parse(out, n, &again, &err) != XSF_OK)
                abort(); /* what we wrote, we cannot read */
            const unsigned den = s.rate_den ? s.rate_den : 1,
                           den2 = again.rate_den ? again.rate_den : 1;
            if (again.port != s.port || again.payload_type != s.payload_type ||
                again.packetmode != s.packetmode || again.transmode != s.transmode ||
                again.width != s.width || again.height != s.height || again.depth != s.depth ||
                (uint64_t)again.rate_num * den != (uint64_t)s.rate_num * den2 ||
                again.interlace != s.interlace)
                abort(); /* the round trip changed a number */
        }
    }
    free(text);
    return 0;
}
