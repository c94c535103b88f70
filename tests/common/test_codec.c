/* common/xsf_codec.c: what every codec's table functions share (passing a
 * library's message on, a frame description started from a parsed header
 * and the header found again, a decoder's picture copied out). */
#include <string.h>

#include "test.h"
#include "xsf_codec.h"
#include "xsf_colour.h"

static const xsf_codec codec_a = {.name = "a"}, codec_b = {.name = "b"};

typedef struct parsed {
    int nc;
    uint32_t bytes[7];
} parsed;

static void fail(void)
{
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(xsf_codec_fail(&err, XSF_ERR_INVALID, "byte 3: bad") == XSF_ERR_INVALID &&
              err.status == XSF_ERR_INVALID && !strcmp(err.msg, "byte 3: bad"),
          "the library's message: %s", err.msg);
    xsf_error_clear(&err);
    CHECK(xsf_codec_fail(&err, XSF_ERR_NOMEM, "") == XSF_ERR_NOMEM &&
              !strcmp(err.msg, xsf_status_name(XSF_ERR_NOMEM)),
          "an empty message gives the status's name: %s", err.msg);
    xsf_error_clear(&err);
    xsf_codec_fail(&err, XSF_ERR_CUDA, NULL);
    CHECK(!strcmp(err.msg, xsf_status_name(XSF_ERR_CUDA)), "no message: %s", err.msg);
    CHECK(xsf_codec_fail(NULL, XSF_ERR_ARG, "x") == XSF_ERR_ARG, "without an error record");
}

static void frame(void)
{
    const parsed h = {.nc = 3, .bytes = {1, 2, 3, 4, 5, 6, 7}};
    xsf_codec_frame f;
    memset(&f, 0x5a, sizeof f);
    xsf_error err;
    xsf_error_clear(&err);
    xsf_status st = xsf_codec_frame_start(&f, &codec_a, &h, sizeof h, sizeof(parsed), &err);
    CHECK(st == XSF_OK && f.codec == &codec_a && f.format.container == XSF_PLANAR_U16 &&
              f.format.nc == 0 && f.format.width[0] == 0 && f.codestream_bytes == 0 &&
              f.header_bytes == 0 && f.field == XSF_FIELD_NONE && f.colour.matrix == 0,
          "a cleared description of codec a");
    CHECK(!memcmp(f.header.bytes, &h, sizeof h), "the parsed header kept");
    const parsed *back = xsf_codec_frame_header(&f, &codec_a);
    CHECK(back && back->nc == 3 && back->bytes[6] == 7, "the header found again");
    CHECK(!xsf_codec_frame_header(&f, &codec_b), "not another codec's header");
    CHECK(!xsf_codec_frame_header(NULL, &codec_a), "no frame, no header");

    st = xsf_codec_frame_start(&f, &codec_b, &h, sizeof h - 4, sizeof(parsed), &err);
    CHECK(st == XSF_ERR_ARG && strstr(err.msg, "b header"), "a header of the wrong size: %s",
          err.msg);
    xsf_error_clear(&err);
    static unsigned char big[XSF_CODEC_HEADER_MAX + 1];
    st = xsf_codec_frame_start(&f, &codec_b, big, sizeof big, sizeof big, &err);
    CHECK(st == XSF_ERR_ARG, "a header larger than the frame holds");
}

static void copy(void)
{
    xsf_format fmt = {.container = XSF_PLANAR_U16, .nc = 2};
    for (int c = 0; c < 2; c++) {
        fmt.width[c] = 5 - c;
        fmt.height[c] = 3;
        fmt.depth[c] = 10;
    }
    xsf_picture img, out;
    xsf_picture_init(&img);
    xsf_picture_init(&out);
    img.fmt = out.fmt = fmt;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(xsf_picture_alloc(&img, NULL, &err) == XSF_OK &&
              xsf_picture_alloc(&out, NULL, &err) == XSF_OK,
          "pictures: %s", err.msg);
    for (int c = 0; c < 2; c++)
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < fmt.width[c]; x++)
                xsf_picture_row16(&img, c, y)[x] = (uint16_t)(100 * c + 10 * y + x);
    xsf_colour_rgb(&img.colour, XSF_COLOUR_CODESTREAM);
    img.props.rtp_timestamp = 1;
    out.props.rtp_timestamp = 77;
    xsf_status st = xsf_codec_copy_picture(&out, &img, &err);
    int same = st == XSF_OK;
    for (int c = 0; c < 2 && same; c++)
        for (int y = 0; y < 3; y++)
            same &= !memcmp(xsf_picture_row16(&out, c, y), xsf_picture_row16(&img, c, y),
                            2 * (size_t)fmt.width[c]);
    CHECK(same, "the samples copied");
    CHECK(out.props.rtp_timestamp == 77 && out.colour.source == XSF_COLOUR_DEFAULT,
          "the caller's description kept");

    xsf_picture other = out;
    other.fmt.depth[1] = 12;
    CHECK(xsf_codec_copy_picture(&other, &img, &err) == XSF_ERR_ARG, "another format refused");
    other = out;
    other.memory = XSF_MEMORY_DEVICE;
    CHECK(xsf_codec_copy_picture(&other, &img, &err) == XSF_ERR_ARG, "device memory refused");
    xsf_picture_unref(&img);
    xsf_picture_unref(&out);
}

int main(void)
{
    fail();
    frame();
    copy();
    return xsf_test_finish();
}
