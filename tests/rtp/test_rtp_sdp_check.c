/* A stream against its SDP (rtp.h, rtp_sdp_compare): what agrees passes,
 * each parameter that differs is named with both values, what the SDP does
 * not give is not compared, and the frame rate holds within a tick of the
 * 90 kHz clock (60000/1001 steps by 1501 and 1502). */
#include <string.h>

#include "rtp.h"
#include "test.h"

static xsf_format picture(int w, int h, int sx, int sy, int depth)
{
    xsf_format f;
    memset(&f, 0, sizeof f);
    f.container = XSF_PLANAR_U16;
    f.nc = 3;
    for (int c = 0; c < 3; c++) {
        f.width[c] = c ? (w + sx - 1) / sx : w;
        f.height[c] = c ? (h + sy - 1) / sy : h;
        f.depth[c] = depth;
    }
    return f;
}

static rtp_sdp sdp_of(const char *fmtp)
{
    char text[1024];
    snprintf(text, sizeof text,
             "v=0\r\no=- 1 1 IN IP4 10.0.0.1\r\ns=t\r\nc=IN IP4 239.1.1.1/16\r\nt=0 0\r\n"
             "m=video 5004 RTP/AVP 112\r\na=rtpmap:112 jxsv/90000\r\na=fmtp:112 %s\r\n",
             fmtp);
    rtp_sdp s;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(rtp_sdp_parse(text, strlen(text), &s, &err) == XSF_OK, "SDP: %s", err.msg);
    return s;
}

int main(void)
{
    const rtp_sdp s = sdp_of("packetmode=0;sampling=YCbCr-4:2:2;width=1920;height=1080;depth=10;"
                             "exactframerate=60000/1001");
    const xsf_format hd = picture(1920, 1080, 2, 1, 10);
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(rtp_sdp_compare(&s, &hd, 1501, &err) == XSF_OK &&
              rtp_sdp_compare(&s, &hd, 1502, &err) == XSF_OK &&
              rtp_sdp_compare(&s, &hd, 0, &err) == XSF_OK,
          "the same picture at 59.94 (steps 1501, 1502, unknown): '%s'", err.msg);
    const xsf_format small = picture(320, 180, 2, 1, 10);
    xsf_error_clear(&err);
    CHECK(rtp_sdp_compare(&s, &small, 1501, &err) == XSF_ERR_INVALID &&
              strstr(err.msg, "size 1920x1080 in the SDP, 320x180 in the stream") &&
              !strstr(err.msg, "sampling") && !strstr(err.msg, "depth") && !strstr(err.msg, "rate"),
          "the size alone: '%s'", err.msg);
    const xsf_format other = picture(1920, 1080, 2, 2, 8);
    xsf_error_clear(&err);
    CHECK(rtp_sdp_compare(&s, &other, 3600, &err) == XSF_ERR_INVALID &&
              strstr(err.msg, "sampling YCbCr-4:2:2 in the SDP, 4:2:0 in the stream") &&
              strstr(err.msg, "depth 10 bits in the SDP, 8 in the stream") &&
              strstr(err.msg, "frame rate 60000/1001 in the SDP, 25.000 frames/s in the stream") &&
              !strstr(err.msg, "size"),
          "sampling, depth and rate: '%s'", err.msg);
    xsf_error_clear(&err);
    CHECK(rtp_sdp_compare(&s, &hd, 1499, &err) == XSF_ERR_INVALID && strstr(err.msg, "frame rate"),
          "two ticks off: '%s'", err.msg);
    /* RGB is 4:4:4; an SDP without size, depth or rate compares the sampling alone. */
    const rtp_sdp rgb = sdp_of("packetmode=0;sampling=RGB");
    const xsf_format full = picture(64, 32, 1, 1, 12);
    xsf_error_clear(&err);
    CHECK(rtp_sdp_compare(&rgb, &full, 1234, &err) == XSF_OK, "RGB: '%s'", err.msg);
    CHECK(rtp_sdp_compare(&rgb, &small, 1234, &err) == XSF_ERR_INVALID &&
              strstr(err.msg, "sampling RGB in the SDP, 4:2:2 in the stream"),
          "RGB against 4:2:2: '%s'", err.msg);
    return xsf_test_finish();
}
