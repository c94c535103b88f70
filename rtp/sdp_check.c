/* A stream against its SDP (rtp.h, rtp_sdp_compare): RFC 9134 7.1, the
 * SDP's values SHALL agree with the payload's. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rtp.h"

/* xsf_format_sampling's name for an ST 2110-20 sampling ("YCbCr-4:2:2",
 * "CLYCbCr-4:2:0", "RGB", "KEY"...); NULL for one it cannot be compared with. */
static const char *sampling_shape(const char *smp)
{
    static const char *const shapes[] = {"4:2:2", "4:2:0", "4:4:4"};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        if (strstr(smp, shapes[i]))
            return shapes[i];
    if (!strcasecmp(smp, "RGB") || !strcasecmp(smp, "XYZ"))
        return "4:4:4";
    if (!strcasecmp(smp, "KEY"))
        return "4:0:0";
    return NULL;
}

/* "; " between the parts of a message that has some already. */
static void append(char *buf, size_t cap, const char *part)
{
    const size_t n = strlen(buf);
    if (n < cap)
        snprintf(buf + n, cap - n, "%s%s", n ? "; " : "", part);
}

xsf_status rtp_sdp_compare(const rtp_sdp *s, const xsf_format *picture, uint32_t step_ticks,
                           xsf_error *err)
{
    char msg[XSF_ERRMSG_LEN] = "", part[128];
    const int w = picture->width[0], h = picture->height[0];
    if ((s->width && (unsigned)w != s->width) || (s->height && (unsigned)h != s->height)) {
        snprintf(part, sizeof part, "size %ux%u in the SDP, %dx%d in the stream", s->width,
                 s->height, w, h);
        append(msg, sizeof msg, part);
    }
    const char *want = sampling_shape(s->sampling), *got = xsf_format_sampling(picture);
    if (want && strcmp(want, got)) {
        snprintf(part, sizeof part, "sampling %s in the SDP, %s in the stream", s->sampling, got);
        append(msg, sizeof msg, part);
    }
    if (s->depth && (unsigned)picture->depth[0] != s->depth) {
        snprintf(part, sizeof part, "depth %u bits in the SDP, %d in the stream", s->depth,
                 picture->depth[0]);
        append(msg, sizeof msg, part);
    }
    /* 90 kHz ticks a frame: 3600 at 25 frames/s, 1501.5 at 60000/1001 (steps of 1501 and
     * 1502): within a tick of the SDP's rate. */
    if (s->rate_num && s->rate_den && step_ticks) {
        const double ticks = (double)RTP_CLOCK_HZ * s->rate_den / s->rate_num;
        if (step_ticks + 1.0 < ticks || step_ticks > ticks + 1.0) {
            snprintf(part, sizeof part,
                     "frame rate %u/%u in the SDP, %.3f frames/s in the stream (RTP "
                     "timestamps %u apart)",
                     s->rate_num, s->rate_den, (double)RTP_CLOCK_HZ / step_ticks, step_ticks);
            append(msg, sizeof msg, part);
        }
    }
    if (!msg[0])
        return XSF_OK;
    return xsf_error_set(err, XSF_ERR_INVALID, "%s", msg);
}
