/* common/: the output pixel formats (xsf_picture.h's containers,
 * xsf_format_convert, xsf_picture_convert, xsf_rgb_fixed_make and
 * xsf_pixfmt_pack.h). Expected bytes are written out by hand from the
 * contract (PIXFMT.md); a property test over random pictures checks that
 * v210, pgroup, P210 and P010 unpack to the depth-converted input, and that
 * the fixed-point RGB is the rounded real conversion. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "xsf_colour.h"
#include "xsf_picture.h"
#include "xsf_pixfmt_pack.h"

static xsf_error err;

/* A planar 16-bit picture of nc components (sizes w x h for component 0,
 * cw x ch for the others), all of `depth` bits, zeroed. */
static void make(xsf_picture *p, int nc, int w, int h, int cw, int ch, int depth)
{
    xsf_picture_init(p);
    p->fmt.container = XSF_PLANAR_U16;
    p->fmt.nc = nc;
    for (int c = 0; c < nc; c++) {
        p->fmt.width[c] = c && c < 3 ? cw : w;
        p->fmt.height[c] = c && c < 3 ? ch : h;
        p->fmt.depth[c] = depth;
    }
    xsf_error_clear(&err);
    if (xsf_picture_alloc(p, NULL, &err) != XSF_OK) {
        fprintf(stderr, "alloc: %s\n", err.msg);
        exit(1);
    }
    for (int c = 0; c < nc; c++)
        for (int y = 0; y < p->fmt.height[c]; y++)
            memset(xsf_picture_row16(p, c, y), 0, (size_t)p->fmt.width[c] * 2);
}

static void set_row(xsf_picture *p, int c, int y, const int *v)
{
    for (int x = 0; x < p->fmt.width[c]; x++)
        xsf_picture_row16(p, c, y)[x] = (uint16_t)v[x];
}

/* src converted to `t` into *d (allocated here, rows filled with 0xAA first
 * so that padding the conversion leaves is seen). XSF_OK or the error. */
static xsf_status convert(const xsf_picture *src, xsf_container t, xsf_picture *d)
{
    xsf_picture_init(d);
    xsf_error_clear(&err);
    xsf_status st = xsf_format_convert(&src->fmt, &src->colour, t, &d->fmt, &err);
    if (st != XSF_OK)
        return st;
    st = xsf_picture_alloc(d, NULL, &err);
    if (st != XSF_OK)
        return st;
    for (int p = 0; p < xsf_format_planes(&d->fmt); p++)
        memset(d->data[p], 0xAA, d->stride[p] * (size_t)xsf_format_plane_rows(&d->fmt, p));
    return xsf_picture_convert(d, src, &err);
}

static const uint8_t *row(const xsf_picture *p, int plane, int y)
{
    return p->data[plane] + (size_t)y * p->stride[plane];
}

static uint32_t le16(const xsf_picture *p, int plane, int y, int i)
{
    return xsf_px_load_le16(row(p, plane, y) + 2 * i);
}

/* The picture of most checks: 4:2:2 10-bit, 7 x 2 (odd width). */
static const int Y[2][7] = {{64, 100, 200, 300, 400, 500, 940}, {1, 2, 3, 1021, 1022, 1023, 512}};
static const int CB[2][4] = {{512, 128, 900, 16}, {0, 1023, 5, 6}};
static const int CR[2][4] = {{512, 256, 960, 33}, {1023, 0, 7, 8}};

static void picture_a(xsf_picture *p)
{
    make(p, 3, 7, 2, 4, 2, 10);
    for (int y = 0; y < 2; y++) {
        set_row(p, 0, y, Y[y]);
        set_row(p, 1, y, CB[y]);
        set_row(p, 2, y, CR[y]);
    }
}

static void test_names_and_planes(void)
{
    xsf_container c = XSF_V210;
    CHECK(xsf_container_parse("planar", &c, &err) == XSF_OK && c == XSF_PLANAR_U16, "planar");
    CHECK(xsf_container_parse("PGROUP", &c, &err) == XSF_OK && c == XSF_PGROUP10, "pgroup");
    for (int k = 0; k < XSF_CONTAINERS; k++) {
        xsf_container back;
        CHECK(xsf_container_parse(xsf_container_name((xsf_container)k), &back, &err) == XSF_OK &&
                  back == (xsf_container)k,
              "name %d", k);
    }
    xsf_error_clear(&err);
    CHECK(xsf_container_parse("yuyv", &c, &err) == XSF_ERR_ARG && strstr(err.msg, "yuyv") &&
              strstr(err.msg, "v210") && strstr(err.msg, "rgbf32"),
          "%s", err.msg);
    CHECK(!strcmp(xsf_container_name((xsf_container)99), "?"), "unknown name");
    CHECK(xsf_container_is_rgb(XSF_BGRA8) && !xsf_container_is_rgb(XSF_I420) &&
              xsf_container_is_ycbcr(XSF_I420) && xsf_container_is_ycbcr(XSF_V210) &&
              !xsf_container_is_ycbcr(XSF_PLANAR_U8) && !xsf_container_is_ycbcr(XSF_RGBA8),
          "kinds");

    /* Planes of a 4:2:2 10-bit 1921 x 1081 picture in each format. */
    xsf_picture s;
    make(&s, 3, 1921, 1081, 961, 1081, 10);
    static const struct {
        xsf_container c;
        int planes;
        size_t row[3];
        int rows[3];
    } want[] = {
        {XSF_PLANAR_U16, 3, {3842, 1922, 1922}, {1081, 1081, 1081}},
        {XSF_PLANAR_U8, 3, {1921, 961, 961}, {1081, 1081, 1081}},
        {XSF_V210, 1, {41 * 128}, {1081}},
        {XSF_PGROUP10, 1, {961 * 5}, {1081}},
        {XSF_P210, 2, {3842, 961 * 4}, {1081, 1081}},
        {XSF_P010, 2, {3842, 961 * 4}, {1081, 541}},
        {XSF_UYVY, 1, {961 * 4}, {1081}},
        {XSF_NV12, 2, {1921, 961 * 2}, {1081, 541}},
        {XSF_I420, 3, {1921, 961, 961}, {1081, 541, 541}},
        {XSF_RGBA8, 1, {1921 * 4}, {1081}},
        {XSF_BGRA8, 1, {1921 * 4}, {1081}},
        {XSF_RGB48, 1, {1921 * 6}, {1081}},
        {XSF_RGBF32, 3, {1921 * 4, 1921 * 4, 1921 * 4}, {1081, 1081, 1081}},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        xsf_format f;
        const char *n = xsf_container_name(want[i].c);
        xsf_error_clear(&err);
        CHECK(xsf_format_convert(&s.fmt, &s.colour, want[i].c, &f, &err) == XSF_OK, "%s: %s", n,
              err.msg);
        CHECK(xsf_format_check(&f, &err) == XSF_OK, "%s: %s", n, err.msg);
        CHECK(xsf_format_planes(&f) == want[i].planes, "%s: %d planes", n, xsf_format_planes(&f));
        size_t total = 0;
        for (int p = 0; p < want[i].planes; p++) {
            CHECK(xsf_format_row_bytes(&f, p) == want[i].row[p], "%s plane %d: %zu", n, p,
                  xsf_format_row_bytes(&f, p));
            CHECK(xsf_format_plane_rows(&f, p) == want[i].rows[p], "%s plane %d: %d rows", n, p,
                  xsf_format_plane_rows(&f, p));
            total += want[i].row[p] * (size_t)want[i].rows[p];
        }
        CHECK(xsf_format_bytes(&f) == total, "%s: %zu bytes", n, xsf_format_bytes(&f));
        xsf_picture d;
        xsf_picture_init(&d);
        d.fmt = f;
        CHECK(xsf_picture_alloc(&d, NULL, &err) == XSF_OK, "%s: %s", n, err.msg);
        for (int p = 0; p < XSF_MAX_COMPONENTS; p++)
            CHECK(p < want[i].planes ? d.data[p] && d.stride[p] >= want[i].row[p] : !d.data[p],
                  "%s: plane %d allocated", n, p);
        xsf_picture_unref(&d);
    }
    /* The descriptor. */
    xsf_format f;
    xsf_format_convert(&s.fmt, &s.colour, XSF_V210, &f, &err);
    CHECK(f.nc == 3 && f.width[0] == 1921 && f.width[1] == 961 && f.width[2] == 961 &&
              f.height[1] == 1081 && f.depth[0] == 10 && f.depth[2] == 10,
          "v210 descriptor");
    CHECK(xsf_format_sample_bytes(&f) == 0, "v210 sample bytes");
    xsf_format_convert(&s.fmt, &s.colour, XSF_RGBA8, &f, &err);
    CHECK(f.nc == 4 && f.width[3] == 1921 && f.height[3] == 1081 && f.depth[3] == 8 &&
              !strcmp(xsf_format_sampling(&f), "4:4:4:4"),
          "rgba descriptor");
    xsf_format_convert(&s.fmt, &s.colour, XSF_P010, &f, &err);
    CHECK(!strcmp(xsf_format_sampling(&f), "4:2:0") && f.depth[1] == 10, "p010 descriptor");
    /* A format whose components are not its container's is refused. */
    f.height[1] = f.height[2] = 1081;
    xsf_error_clear(&err);
    CHECK(xsf_format_check(&f, &err) == XSF_ERR_ARG && strstr(err.msg, "p010"), "%s", err.msg);
    f.container = (xsf_container)77;
    CHECK(xsf_format_check(&f, &err) == XSF_ERR_UNSUPPORTED, "unknown container");
    xsf_picture_unref(&s);
}

static void test_v210(void)
{
    xsf_picture s, d;
    picture_a(&s);
    CHECK(convert(&s, XSF_V210, &d) == XSF_OK, "%s", err.msg);
    /* Row 0: w0 = Cb0 | Y0 << 10 | Cr0 << 20 = 512 | 64 << 10 | 512 << 20, ... */
    static const uint32_t w[2][8] = {
        {0x20010200, 0x0c820064, 0x3844b100, 0x1f4f0190, 0x021eb010, 0, 0, 0},
        {0x3ff00400, 0x003ffc02, 0x005ff400, 0x3ff01ffe, 0x00880006, 0, 0, 0},
    };
    for (int y = 0; y < 2; y++) {
        for (int k = 0; k < 8; k++)
            CHECK(xsf_px_load_le32(row(&d, 0, y) + 4 * k) == w[y][k], "row %d word %d: %08x", y, k,
                  xsf_px_load_le32(row(&d, 0, y) + 4 * k));
        int zero = 1;
        for (int b = 32; b < 128; b++)
            zero &= row(&d, 0, y)[b] == 0;
        CHECK(zero, "row %d: bytes past the last group are 0", y);
    }
    /* Little-endian words: the first byte is the low byte of Cb0. */
    CHECK(row(&d, 0, 0)[0] == 0x00 && row(&d, 0, 0)[1] == 0x02 && row(&d, 0, 0)[2] == 0x01 &&
              row(&d, 0, 0)[3] == 0x20,
          "v210 byte order");
    CHECK(d.colour.matrix == s.colour.matrix && d.colour.source == s.colour.source,
          "v210 keeps the colour");
    xsf_picture_unref(&d);
    xsf_picture_unref(&s);
}

static void test_pgroup_uyvy(void)
{
    xsf_picture s, d;
    picture_a(&s);
    CHECK(convert(&s, XSF_PGROUP10, &d) == XSF_OK, "%s", err.msg);
    /* Cb0 Y0 Cr0 Y1 = 512 64 512 100: 1000000000 0001000000 1000000000 0001100100. */
    static const uint8_t pg[2][20] = {
        {0x80, 0x04, 0x08, 0x00, 0x64, 0x20, 0x0c, 0x84, 0x01, 0x2c,
         0xe1, 0x19, 0x0f, 0x01, 0xf4, 0x04, 0x3a, 0xc0, 0x84, 0x00},
        {0x00, 0x00, 0x1f, 0xfc, 0x02, 0xff, 0xc0, 0x30, 0x03, 0xfd,
         0x01, 0x7f, 0xe0, 0x1f, 0xff, 0x01, 0xa0, 0x00, 0x20, 0x00},
    };
    for (int y = 0; y < 2; y++)
        CHECK(!memcmp(row(&d, 0, y), pg[y], 20), "pgroup row %d", y);
    uint32_t v[4];
    xsf_px_pgroup_unpack(pg[0] + 10, v);
    CHECK(v[0] == 900 && v[1] == 400 && v[2] == 960 && v[3] == 500, "pgroup unpack");
    xsf_picture_unref(&d);

    /* UYVY: 8 bits, rounded (Y 1022 -> 256 saturates to 255, 2 -> 1, 1 -> 0). */
    CHECK(convert(&s, XSF_UYVY, &d) == XSF_OK, "%s", err.msg);
    static const uint8_t u[2][16] = {
        {128, 16, 128, 25, 32, 50, 64, 75, 225, 100, 240, 125, 4, 235, 8, 0},
        {0, 0, 255, 1, 255, 1, 0, 255, 1, 255, 2, 255, 2, 128, 2, 0},
    };
    for (int y = 0; y < 2; y++)
        CHECK(!memcmp(row(&d, 0, y), u[y], 16), "uyvy row %d", y);
    xsf_picture_unref(&d);
    xsf_picture_unref(&s);
}

static void test_semi_planar(void)
{
    xsf_picture s, d;
    picture_a(&s);
    /* P210: value << 6, little-endian; chroma Cb Cr interleaved. */
    CHECK(convert(&s, XSF_P210, &d) == XSF_OK, "%s", err.msg);
    CHECK(le16(&d, 0, 0, 0) == 64 << 6 && le16(&d, 0, 0, 6) == 940 << 6 &&
              le16(&d, 0, 1, 5) == 0xffc0 && row(&d, 0, 0)[0] == 0x00 && row(&d, 0, 0)[1] == 0x10,
          "p210 luma");
    CHECK(le16(&d, 1, 0, 0) == 512 << 6 && le16(&d, 1, 0, 1) == 512 << 6 &&
              le16(&d, 1, 0, 6) == 16 << 6 && le16(&d, 1, 0, 7) == 33 << 6 &&
              le16(&d, 1, 1, 2) == 1023 << 6 && le16(&d, 1, 1, 3) == 0,
          "p210 chroma");
    xsf_picture_unref(&d);
    /* P010: 4:2:2 to 4:2:0 averages the two rows, (a + b + 1) >> 1. */
    CHECK(convert(&s, XSF_P010, &d) == XSF_OK, "%s", err.msg);
    static const int cb[4] = {256, 576, 453, 11}, cr[4] = {768, 128, 484, 21};
    for (int i = 0; i < 4; i++)
        CHECK(le16(&d, 1, 0, 2 * i) == (uint32_t)cb[i] << 6 &&
                  le16(&d, 1, 0, 2 * i + 1) == (uint32_t)cr[i] << 6,
              "p010 chroma %d: %u %u", i, le16(&d, 1, 0, 2 * i) >> 6,
              le16(&d, 1, 0, 2 * i + 1) >> 6);
    CHECK(le16(&d, 0, 1, 3) == 1021 << 6, "p010 luma");
    xsf_picture_unref(&d);
    /* NV12 and I420: the same means, then to 8 bits. */
    static const uint8_t cb8[4] = {64, 144, 113, 3}, cr8[4] = {192, 32, 121, 5};
    static const uint8_t y8[2][7] = {{16, 25, 50, 75, 100, 125, 235},
                                     {0, 1, 1, 255, 255, 255, 128}};
    CHECK(convert(&s, XSF_NV12, &d) == XSF_OK, "%s", err.msg);
    for (int i = 0; i < 4; i++)
        CHECK(row(&d, 1, 0)[2 * i] == cb8[i] && row(&d, 1, 0)[2 * i + 1] == cr8[i], "nv12 %d", i);
    CHECK(!memcmp(row(&d, 0, 0), y8[0], 7) && !memcmp(row(&d, 0, 1), y8[1], 7), "nv12 luma");
    xsf_picture_unref(&d);
    CHECK(convert(&s, XSF_I420, &d) == XSF_OK, "%s", err.msg);
    CHECK(!memcmp(row(&d, 1, 0), cb8, 4) && !memcmp(row(&d, 2, 0), cr8, 4) &&
              !memcmp(row(&d, 0, 1), y8[1], 7),
          "i420");
    xsf_picture_unref(&d);
    /* planar8 keeps the sampling; planar16 is a copy. */
    CHECK(convert(&s, XSF_PLANAR_U8, &d) == XSF_OK, "%s", err.msg);
    CHECK(d.fmt.width[1] == 4 && d.fmt.height[1] == 2 && !memcmp(row(&d, 0, 1), y8[1], 7) &&
              row(&d, 1, 1)[1] == 255 && row(&d, 2, 0)[2] == 240,
          "planar8");
    xsf_picture_unref(&d);
    CHECK(convert(&s, XSF_PLANAR_U16, &d) == XSF_OK, "%s", err.msg);
    CHECK(!memcmp(row(&d, 0, 1), row(&s, 0, 1), 14) && !memcmp(row(&d, 2, 1), row(&s, 2, 1), 8),
          "planar16");
    xsf_picture_unref(&d);
    xsf_picture_unref(&s);
}

/* Chroma averaging and replication, odd sizes, other depths. */
static void test_resampling(void)
{
    xsf_picture s, d;
    /* 4:4:4 12-bit, 3 x 3: to 4:2:0 the means of up to 4 (the last column
     * and row have 2, the corner 1), then 12 -> 10 bits rounded. */
    make(&s, 3, 3, 3, 3, 3, 12);
    static const int c1[3][3] = {{100, 201, 4095}, {302, 403, 4000}, {7, 9, 3}};
    static const int c2[3][3] = {{0, 1, 2}, {1, 1, 1}, {4093, 4094, 4095}};
    static const int y12[3] = {4095, 4094, 2};
    for (int y = 0; y < 3; y++) {
        set_row(&s, 0, y, y12);
        set_row(&s, 1, y, c1[y]);
        set_row(&s, 2, y, c2[y]);
    }
    CHECK(convert(&s, XSF_P010, &d) == XSF_OK, "%s", err.msg);
    /* Cb (0,0): (100+201+302+403+2)/4 = 252 -> (252+2)>>2 = 63; (1,0): (4095+4000+1)/2 = 4048
     * -> 1012; (0,1): (7+9+1)/2 = 8 -> 2; (1,1): 3 -> 1. Cr (0,0): (0+1+1+1+2)/4 = 1 -> 0;
     * (1,0): (2+1+1)/2 = 2 -> 1; (0,1): (4093+4094+1)/2 = 4094 -> 1024 saturates to 1023. */
    CHECK(le16(&d, 1, 0, 0) >> 6 == 63 && le16(&d, 1, 0, 2) >> 6 == 1012 &&
              le16(&d, 1, 1, 0) >> 6 == 2 && le16(&d, 1, 1, 2) >> 6 == 1,
          "cb %u %u %u %u", le16(&d, 1, 0, 0) >> 6, le16(&d, 1, 0, 2) >> 6, le16(&d, 1, 1, 0) >> 6,
          le16(&d, 1, 1, 2) >> 6);
    CHECK(le16(&d, 1, 0, 1) >> 6 == 0 && le16(&d, 1, 0, 3) >> 6 == 1 &&
              le16(&d, 1, 1, 1) >> 6 == 1023 && le16(&d, 1, 1, 3) >> 6 == 1023,
          "cr %u %u %u %u", le16(&d, 1, 0, 1) >> 6, le16(&d, 1, 0, 3) >> 6, le16(&d, 1, 1, 1) >> 6,
          le16(&d, 1, 1, 3) >> 6);
    /* Luma 4095 -> 1023 (saturated), 4094 -> 1023 (rounded up and saturated), 2 -> 1. */
    CHECK(le16(&d, 0, 2, 0) == 1023u << 6 && le16(&d, 0, 2, 1) == 1023u << 6 &&
              le16(&d, 0, 2, 2) == 1u << 6,
          "luma 12 -> 10");
    xsf_picture_unref(&d);
    /* 4:4:4 to v210: across only, (a + b + 1) >> 1, the odd last column alone. */
    CHECK(convert(&s, XSF_V210, &d) == XSF_OK, "%s", err.msg);
    uint32_t w4[4], yy[6], cb[3], cr[3];
    for (int k = 0; k < 4; k++)
        w4[k] = xsf_px_load_le32(row(&d, 0, 1) + 4 * k);
    xsf_px_v210_unpack(w4, yy, cb, cr);
    /* Row 1: Cb (302+403+1)/2 = 353 -> 88 (353+2 = 355 >> 2); 4000 -> 1000. */
    CHECK(cb[0] == 88 && cb[1] == 1000 && cb[2] == 0 && cr[0] == 0 && cr[1] == 0 && cr[2] == 0,
          "v210 from 4:4:4: %u %u %u / %u %u %u", cb[0], cb[1], cb[2], cr[0], cr[1], cr[2]);
    CHECK(yy[0] == 1023 && yy[2] == 1 && yy[3] == 0 && yy[5] == 0, "v210 luma");
    xsf_picture_unref(&d);
    xsf_picture_unref(&s);

    /* 4:2:0 8-bit, 5 x 3 (chroma 3 x 2), to v210: rows replicate (y >> 1), 8 -> 10 bits << 2. */
    make(&s, 3, 5, 3, 3, 2, 8);
    static const int cb0[3] = {10, 20, 30}, cb1[3] = {40, 50, 60};
    static const int cr0[3] = {1, 2, 3}, cr1[3] = {4, 5, 255};
    static const int luma[5] = {16, 17, 18, 19, 235};
    for (int y = 0; y < 3; y++)
        set_row(&s, 0, y, luma);
    set_row(&s, 1, 0, cb0);
    set_row(&s, 1, 1, cb1);
    set_row(&s, 2, 0, cr0);
    set_row(&s, 2, 1, cr1);
    CHECK(convert(&s, XSF_V210, &d) == XSF_OK, "4:2:0 to v210: %s", err.msg);
    for (int y = 0; y < 3; y++) {
        for (int k = 0; k < 4; k++)
            w4[k] = xsf_px_load_le32(row(&d, 0, y) + 4 * k);
        xsf_px_v210_unpack(w4, yy, cb, cr);
        const int *b = y < 2 ? cb0 : cb1, *r = y < 2 ? cr0 : cr1;
        CHECK(cb[0] == (uint32_t)b[0] << 2 && cb[2] == (uint32_t)b[2] << 2 &&
                  cr[2] == (uint32_t)r[2] << 2 && yy[4] == 235 << 2 && yy[5] == 0,
              "4:2:0 to v210 row %d", y);
    }
    xsf_picture_unref(&d);
    /* 4:2:0 to UYVY: the odd last pixel's Y1 is 0. */
    CHECK(convert(&s, XSF_UYVY, &d) == XSF_OK, "%s", err.msg);
    CHECK(d.fmt.width[1] == 3 && row(&d, 0, 2)[8] == 40 + 20 && row(&d, 0, 2)[9] == 235 &&
              row(&d, 0, 2)[10] == 255 && row(&d, 0, 2)[11] == 0,
          "uyvy edge: %u %u %u %u", row(&d, 0, 2)[8], row(&d, 0, 2)[9], row(&d, 0, 2)[10],
          row(&d, 0, 2)[11]);
    xsf_picture_unref(&d);
    xsf_picture_unref(&s);

    /* 1 x 1 4:2:0 to every format that takes Y'CbCr. */
    make(&s, 3, 1, 1, 1, 1, 10);
    for (int t = XSF_V210; t <= XSF_I420; t++) {
        CHECK(convert(&s, (xsf_container)t, &d) == XSF_OK, "1x1 %s: %s",
              xsf_container_name((xsf_container)t), err.msg);
        xsf_picture_unref(&d);
    }
    xsf_picture_unref(&s);
}

/* The real conversion, rounded, for the property test. */
static double rgb_real(const xsf_colour *c, int depth, int nc, const uint32_t s[3], int k, int bits)
{
    xsf_rgb_transform t;
    xsf_rgb_transform_make(&t, c, depth, nc);
    double v = 0;
    for (int j = 0; j < 3; j++)
        v += t.m[k][j] * (s[j] * t.in_scale[j] + t.in_bias[j]);
    v = v < 0 ? 0 : v > 1 ? 1 : v;
    return v * (ldexp(1, bits) - 1);
}

static void test_rgb(void)
{
    xsf_picture s, d;
    /* BT.709 narrow (the default), 10-bit 4:4:4, 4 x 1. */
    make(&s, 3, 4, 1, 4, 1, 10);
    static const int y[4] = {64, 940, 500, 500}, cb[4] = {512, 512, 512, 300},
                     cr[4] = {512, 512, 736, 736};
    set_row(&s, 0, 0, y);
    set_row(&s, 1, 0, cb);
    set_row(&s, 2, 0, cr);
    /* By hand: Y' = (500-64)/876, Pr = (736-512)/896 = 0.25: R' = Y' + 1.5748 Pr = 0.8914 ->
     * 227.31; B' = Y' -> 126.92; G' = Y' - 0.4681 Pr -> 97.08. With Pb = (300-512)/896:
     * G' -> 108.38, B' -> 14.96. In 16 bits: 58419.006, 24948.25, 32617.88; 27852.90, 3844.85. */
    static const uint8_t rgba[16] = {0,   0,  0,   255, 255, 255, 255, 255,
                                     227, 97, 127, 255, 227, 108, 15,  255};
    CHECK(convert(&s, XSF_RGBA8, &d) == XSF_OK, "%s", err.msg);
    CHECK(!memcmp(row(&d, 0, 0), rgba, 16), "rgba 709 narrow: %u %u %u / %u %u %u",
          row(&d, 0, 0)[8], row(&d, 0, 0)[9], row(&d, 0, 0)[10], row(&d, 0, 0)[12],
          row(&d, 0, 0)[13], row(&d, 0, 0)[14]);
    CHECK(d.colour.matrix == XSF_MATRIX_IDENTITY && d.colour.range == XSF_RANGE_FULL &&
              d.colour.rgb_order == 1 && d.colour.source == XSF_COLOUR_CODESTREAM,
          "rgba colour");
    xsf_picture_unref(&d);
    CHECK(convert(&s, XSF_BGRA8, &d) == XSF_OK, "%s", err.msg);
    CHECK(row(&d, 0, 0)[8] == 127 && row(&d, 0, 0)[9] == 97 && row(&d, 0, 0)[10] == 227 &&
              row(&d, 0, 0)[11] == 255,
          "bgra");
    xsf_picture_unref(&d);
    CHECK(convert(&s, XSF_RGB48, &d) == XSF_OK, "%s", err.msg);
    CHECK(le16(&d, 0, 0, 3) == 65535 && le16(&d, 0, 0, 6) == 58419 && le16(&d, 0, 0, 7) == 24948 &&
              le16(&d, 0, 0, 8) == 32618 && le16(&d, 0, 0, 10) == 27853 &&
              le16(&d, 0, 0, 11) == 3845 && le16(&d, 0, 0, 0) == 0,
          "rgb48: %u %u %u %u %u", le16(&d, 0, 0, 6), le16(&d, 0, 0, 7), le16(&d, 0, 0, 8),
          le16(&d, 0, 0, 10), le16(&d, 0, 0, 11));
    xsf_picture_unref(&d);
    CHECK(convert(&s, XSF_RGBF32, &d) == XSF_OK, "%s", err.msg);
    float f[3];
    for (int k = 0; k < 3; k++)
        memcpy(&f[k], row(&d, k, 0) + 8, 4);
    CHECK(f[0] == 58419.0f / 65535.0f && f[1] == 24948.0f / 65535.0f && f[2] == 32618.0f / 65535.0f,
          "rgbf32 %.9g %.9g %.9g", f[0], f[1], f[2]);
    memcpy(&f[0], row(&d, 0, 0) + 4, 4);
    CHECK(f[0] == 1.0f, "rgbf32 white");
    xsf_picture_unref(&d);

    /* BT.709 full range: Y' = 700/1023, Pb = (200-512)/1023, Pr = (800-512)/1023:
     * R' > 1 -> 255; G' -> 155.45; B' -> 30.17; 16 bits 39950.43, 7754.83. */
    static const int yf[4] = {700, 1023, 0, 0}, cbf[4] = {200, 512, 512, 512},
                     crf[4] = {800, 512, 512, 512};
    set_row(&s, 0, 0, yf);
    set_row(&s, 1, 0, cbf);
    set_row(&s, 2, 0, crf);
    CHECK(xsf_colour_parse("709,full", &s.colour, &err) == XSF_OK, "%s", err.msg);
    CHECK(convert(&s, XSF_RGBA8, &d) == XSF_OK, "%s", err.msg);
    static const uint8_t full[8] = {255, 155, 30, 255, 255, 255, 255, 255};
    CHECK(!memcmp(row(&d, 0, 0), full, 8), "rgba 709 full: %u %u %u", row(&d, 0, 0)[0],
          row(&d, 0, 0)[1], row(&d, 0, 0)[2]);
    xsf_picture_unref(&d);
    CHECK(convert(&s, XSF_RGB48, &d) == XSF_OK, "%s", err.msg);
    CHECK(le16(&d, 0, 0, 0) == 65535 && le16(&d, 0, 0, 1) == 39950 && le16(&d, 0, 0, 2) == 7755,
          "rgb48 full %u %u", le16(&d, 0, 0, 1), le16(&d, 0, 0, 2));
    xsf_picture_unref(&d);

    /* An R'G'B' source in ST 2110's G B R order: R is component 2.
     * 512 * 255 / 1023 = 127.62 -> 128; 600 -> 149.56 -> 150, 38436.95 -> 38437. */
    CHECK(xsf_colour_parse("gbr", &s.colour, &err) == XSF_OK, "%s", err.msg);
    static const int g[4] = {0, 1023, 512, 600}, b[4] = {1023, 0, 0, 0}, r[4] = {512, 0, 0, 0};
    set_row(&s, 0, 0, g);
    set_row(&s, 1, 0, b);
    set_row(&s, 2, 0, r);
    CHECK(convert(&s, XSF_RGBA8, &d) == XSF_OK, "%s", err.msg);
    static const uint8_t ident[16] = {128, 0,   255, 255, 0, 255, 0, 255,
                                      0,   128, 0,   255, 0, 150, 0, 255};
    CHECK(!memcmp(row(&d, 0, 0), ident, 16), "rgba from gbr: %u %u %u", row(&d, 0, 0)[0],
          row(&d, 0, 0)[1], row(&d, 0, 0)[2]);
    xsf_picture_unref(&d);
    CHECK(convert(&s, XSF_RGB48, &d) == XSF_OK, "%s", err.msg);
    CHECK(le16(&d, 0, 0, 10) == 38437 && le16(&d, 0, 0, 0) == 32800 && le16(&d, 0, 0, 2) == 65535,
          "rgb48 from gbr: %u %u", le16(&d, 0, 0, 10), le16(&d, 0, 0, 0));
    xsf_picture_unref(&d);
    /* An R'G'B' source is not Y'CbCr. */
    CHECK(convert(&s, XSF_V210, &d) == XSF_ERR_UNSUPPORTED && strstr(err.msg, "v210") &&
              strstr(err.msg, "R'G'B'"),
          "RGB to v210: %s", err.msg);
    xsf_picture_unref(&d);
    CHECK(convert(&s, XSF_PLANAR_U8, &d) == XSF_OK, "RGB to planar8: %s", err.msg);
    xsf_picture_unref(&d);
    xsf_picture_unref(&s);

    /* 4:2:2 to RGB replicates chroma: pixels 2i and 2i+1 take chroma i. */
    picture_a(&s);
    CHECK(convert(&s, XSF_RGB48, &d) == XSF_OK, "%s", err.msg);
    xsf_rgb_fixed fx;
    CHECK(xsf_rgb_fixed_make(&fx, &s.fmt, &s.colour, XSF_RGB48, &err) == XSF_OK, "%s", err.msg);
    int same = 1;
    for (int yy = 0; yy < 2; yy++)
        for (int x = 0; x < 7; x++) {
            uint32_t o[3];
            xsf_px_rgb(&fx, (uint32_t)Y[yy][x], (uint32_t)CB[yy][x / 2], (uint32_t)CR[yy][x / 2],
                       o);
            for (int k = 0; k < 3; k++)
                same &= le16(&d, 0, yy, 3 * x + k) == o[k];
        }
    CHECK(same, "4:2:2 to rgb48 replicates chroma");
    CHECK(xsf_rgb_fixed_make(&fx, &s.fmt, &s.colour, XSF_V210, &err) == XSF_ERR_ARG, "not RGB");
    xsf_picture_unref(&d);
    xsf_picture_unref(&s);
}

static void test_gray_and_alpha(void)
{
    xsf_picture s, d;
    make(&s, 1, 3, 1, 0, 0, 8);
    static const int y[3] = {16, 235, 126};
    set_row(&s, 0, 0, y);
    /* Gray as Y'CbCr: Cb = Cr = the middle of the target depth. */
    CHECK(convert(&s, XSF_V210, &d) == XSF_OK, "%s", err.msg);
    CHECK(xsf_px_load_le32(row(&d, 0, 0)) == (512u | 64u << 10 | 512u << 20), "gray v210 %08x",
          xsf_px_load_le32(row(&d, 0, 0)));
    xsf_picture_unref(&d);
    CHECK(convert(&s, XSF_NV12, &d) == XSF_OK, "%s", err.msg);
    CHECK(row(&d, 1, 0)[0] == 128 && row(&d, 1, 0)[1] == 128 && row(&d, 1, 0)[3] == 128 &&
              row(&d, 0, 0)[2] == 126,
          "gray nv12");
    xsf_picture_unref(&d);
    /* Gray as RGB (BT.709 narrow by default): (126-16)/219 -> 128.08, 32917.12. */
    CHECK(convert(&s, XSF_RGBA8, &d) == XSF_OK, "%s", err.msg);
    static const uint8_t g8[12] = {0, 0, 0, 255, 255, 255, 255, 255, 128, 128, 128, 255};
    CHECK(!memcmp(row(&d, 0, 0), g8, 12), "gray rgba");
    xsf_picture_unref(&d);
    CHECK(convert(&s, XSF_RGB48, &d) == XSF_OK, "%s", err.msg);
    CHECK(le16(&d, 0, 0, 6) == 32917 && le16(&d, 0, 0, 8) == 32917, "gray rgb48");
    xsf_picture_unref(&d);
    /* A gray R'G'B' (full range) picture as Y'CbCr says BT.709, full range. */
    xsf_colour_rgb(&s.colour, XSF_COLOUR_CODESTREAM);
    CHECK(convert(&s, XSF_I420, &d) == XSF_OK, "%s", err.msg);
    CHECK(d.colour.matrix == XSF_MATRIX_BT709 && d.colour.range == XSF_RANGE_FULL, "gray colour");
    xsf_picture_unref(&d);
    xsf_picture_unref(&s);

    /* 4:4:4:4 10-bit: the fourth component is alpha, to 8 bits. */
    make(&s, 4, 2, 1, 2, 1, 10);
    static const int a[2] = {1023, 513}, mid[2] = {512, 512}, ya[2] = {64, 940};
    set_row(&s, 0, 0, ya);
    set_row(&s, 1, 0, mid);
    set_row(&s, 2, 0, mid);
    set_row(&s, 3, 0, a);
    CHECK(convert(&s, XSF_RGBA8, &d) == XSF_OK, "%s", err.msg);
    static const uint8_t ra[8] = {0, 0, 0, 255, 255, 255, 255, 128};
    CHECK(!memcmp(row(&d, 0, 0), ra, 8), "rgba alpha: %u %u", row(&d, 0, 0)[3], row(&d, 0, 0)[7]);
    xsf_picture_unref(&d);
    CHECK(convert(&s, XSF_V210, &d) == XSF_ERR_UNSUPPORTED && strstr(err.msg, "components"),
          "4 components to v210: %s", err.msg);
    xsf_picture_unref(&d);
    xsf_picture_unref(&s);
}

static void test_refusals(void)
{
    xsf_picture s, d;
    xsf_format f;
    /* Chroma 3 across 16 (neither 8, half of it nor twice it): no rule. */
    make(&s, 3, 16, 2, 3, 2, 10);
    xsf_error_clear(&err);
    CHECK(xsf_format_convert(&s.fmt, &s.colour, XSF_V210, &f, &err) == XSF_ERR_UNSUPPORTED &&
              strstr(err.msg, "chroma"),
          "ratio: %s", err.msg);
    xsf_error_clear(&err);
    CHECK(xsf_format_convert(&s.fmt, &s.colour, XSF_RGBA8, &f, &err) == XSF_ERR_UNSUPPORTED,
          "ratio to rgba");
    xsf_error_clear(&err);
    CHECK(xsf_format_convert(&s.fmt, &s.colour, XSF_PLANAR_U8, &f, &err) == XSF_OK,
          "ratio to planar8: %s", err.msg);
    xsf_picture_unref(&s);
    /* Two components; mixed depths for RGB. */
    make(&s, 2, 4, 2, 4, 2, 10);
    xsf_error_clear(&err);
    CHECK(xsf_format_convert(&s.fmt, &s.colour, XSF_NV12, &f, &err) == XSF_ERR_UNSUPPORTED,
          "2 components to nv12");
    xsf_error_clear(&err);
    CHECK(xsf_format_convert(&s.fmt, &s.colour, XSF_RGB48, &f, &err) == XSF_ERR_UNSUPPORTED,
          "2 components to rgb48");
    xsf_picture_unref(&s);
    make(&s, 3, 4, 2, 4, 2, 10);
    s.fmt.depth[2] = 12;
    xsf_error_clear(&err);
    CHECK(xsf_format_convert(&s.fmt, &s.colour, XSF_RGBA8, &f, &err) == XSF_ERR_UNSUPPORTED &&
              strstr(err.msg, "depths"),
          "mixed depths: %s", err.msg);
    s.fmt.depth[2] = 10;
    /* Not a decoded picture; not a container. */
    xsf_error_clear(&err);
    CHECK(xsf_format_convert(&s.fmt, &s.colour, (xsf_container)40, &f, &err) == XSF_ERR_ARG,
          "unknown target");
    xsf_format v;
    xsf_format_convert(&s.fmt, &s.colour, XSF_P210, &v, &err);
    CHECK(xsf_format_convert(&v, &s.colour, XSF_V210, &f, &err) == XSF_ERR_ARG, "p210 source");
    /* The destination must be the converted format. */
    xsf_picture_init(&d);
    xsf_format_convert(&s.fmt, &s.colour, XSF_V210, &d.fmt, &err);
    d.fmt.container = XSF_PGROUP10;
    d.fmt.width[0] = 6;
    d.fmt.width[1] = d.fmt.width[2] = 3;
    CHECK(xsf_picture_alloc(&d, NULL, &err) == XSF_OK, "%s", err.msg);
    xsf_error_clear(&err);
    xsf_status st = xsf_picture_convert(&d, &s, &err);
    CHECK(st == XSF_ERR_ARG && strstr(err.msg, "pgroup"), "%d %s", st, err.msg);
    xsf_picture_unref(&d);
    xsf_picture_unref(&s);
}

/* A copy of a packed picture copies its plane rows. */
static void test_copy(void)
{
    xsf_picture s, d, c;
    picture_a(&s);
    CHECK(convert(&s, XSF_NV12, &d) == XSF_OK, "%s", err.msg);
    xsf_picture_init(&c);
    c.fmt = d.fmt;
    CHECK(xsf_picture_alloc(&c, NULL, &err) == XSF_OK, "%s", err.msg);
    CHECK(xsf_picture_copy(&c, &d, &err) == XSF_OK, "%s", err.msg);
    CHECK(!memcmp(row(&c, 0, 1), row(&d, 0, 1), 7) && !memcmp(row(&c, 1, 0), row(&d, 1, 0), 8),
          "nv12 copy");
    xsf_picture_unref(&c);
    xsf_picture_unref(&d);
    xsf_picture_unref(&s);
}

static uint32_t rnd_state = 12345;
static uint32_t rnd(uint32_t n)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return (rnd_state >> 8) % n;
}

/* Random 4:2:2 and 4:2:0 pictures of depths 1..16: v210, pgroup and P210
 * (4:2:2) and P010 (4:2:0) unpack to the input converted to 10 bits, with
 * an independent depth conversion (rounded real division, saturated). */
static void test_property(void)
{
    int bad = 0;
    for (int it = 0; it < 300 && !bad; it++) {
        const int w = 1 + (int)rnd(40), h = 1 + (int)rnd(6), depth = 1 + (int)rnd(16);
        const int p420 = (int)rnd(2);
        xsf_picture s, d;
        make(&s, 3, w, h, (w + 1) / 2, p420 ? (h + 1) / 2 : h, depth);
        for (int c = 0; c < 3; c++)
            for (int y = 0; y < s.fmt.height[c]; y++)
                for (int x = 0; x < s.fmt.width[c]; x++)
                    xsf_picture_row16(&s, c, y)[x] = (uint16_t)rnd(1u << depth);
                    /* What a sample must become at 10 bits. */
#define TEN(c, x, y)                                                                               \
    (depth > 10 ? (uint32_t)fmin(                                                                  \
                      floor(xsf_picture_row16(&s, c, y)[x] / ldexp(1, depth - 10) + 0.5), 1023)    \
                : (uint32_t)xsf_picture_row16(&s, c, y)[x] << (10 - depth))
        const xsf_container targets[2][3] = {{XSF_V210, XSF_PGROUP10, XSF_P210},
                                             {XSF_P010, XSF_P010, XSF_P010}};
        for (int t = 0; t < 3 && !bad; t++) {
            const xsf_container tc = targets[p420][t];
            if (convert(&s, tc, &d) != XSF_OK) {
                CHECK(0, "%s: %s", xsf_container_name(tc), err.msg);
                bad = 1;
                break;
            }
            for (int y = 0; y < h; y++) {
                const uint8_t *o = row(&d, 0, y);
                for (int x = 0; x < w; x++) {
                    uint32_t got = 0, cbv = 0, crv = 0;
                    const int i = x / 2;
                    if (tc == XSF_V210) {
                        uint32_t wd[4], yy[6], cb[3], cr[3];
                        for (int k = 0; k < 4; k++)
                            wd[k] = xsf_px_load_le32(o + 16 * (x / 6) + 4 * k);
                        xsf_px_v210_unpack(wd, yy, cb, cr);
                        got = yy[x % 6], cbv = cb[i % 3], crv = cr[i % 3];
                    } else if (tc == XSF_PGROUP10) {
                        uint32_t v[4];
                        xsf_px_pgroup_unpack(o + 5 * i, v);
                        got = v[1 + 2 * (x % 2)], cbv = v[0], crv = v[2];
                    } else {
                        const int cy = tc == XSF_P010 ? y / 2 : y;
                        got = le16(&d, 0, y, x) >> 6;
                        cbv = le16(&d, 1, cy, 2 * i) >> 6, crv = le16(&d, 1, cy, 2 * i + 1) >> 6;
                        bad |= (le16(&d, 0, y, x) & 63) != 0;
                    }
                    const int cy = p420 ? y / 2 : y;
                    bad |= got != TEN(0, x, y) || cbv != TEN(1, i, cy) || crv != TEN(2, i, cy);
                }
            }
            if (bad)
                CHECK(0, "%s of %dx%d %s %d-bit does not unpack to the input",
                      xsf_container_name(tc), w, h, p420 ? "4:2:0" : "4:2:2", depth);
            xsf_picture_unref(&d);
        }
#undef TEN
        xsf_picture_unref(&s);
    }
    CHECK(!bad, "packed formats unpack to the input");

    /* Fixed-point RGB against the real conversion, where that is not within
     * the fixed point's precision of a rounding boundary. */
    int rgb_bad = 0, tested = 0;
    static const char *colours[] = {"709", "709,full", "601", "2020,full", "rgb", "gbr"};
    for (int it = 0; it < 2000; it++) {
        const int depth = 8 + (int)rnd(9), bits = rnd(2) ? 8 : 16;
        xsf_picture s;
        make(&s, 3, 1, 1, 1, 1, depth);
        xsf_colour_parse(colours[rnd(6)], &s.colour, &err);
        uint32_t v[3];
        for (int c = 0; c < 3; c++)
            xsf_picture_row16(&s, c, 0)[0] = (uint16_t)(v[c] = rnd(1u << depth));
        xsf_rgb_fixed fx;
        if (xsf_rgb_fixed_make(&fx, &s.fmt, &s.colour, bits == 8 ? XSF_RGBA8 : XSF_RGB48, &err)) {
            rgb_bad++;
            continue;
        }
        uint32_t o[3];
        xsf_px_rgb(&fx, v[0], v[1], v[2], o);
        for (int k = 0; k < 3; k++) {
            const double r = rgb_real(&s.colour, depth, 3, v, k, bits);
            /* Each coefficient is within 1/2 of its real value, in units of 2^-16. */
            const double bound = 0.5 * (v[0] + v[1] + v[2] + 1) / 65536.0 + 1e-9;
            if (fabs(r - floor(r) - 0.5) < bound)
                continue;
            tested++;
            rgb_bad += o[k] != (uint32_t)floor(r + 0.5);
        }
        xsf_picture_unref(&s);
    }
    CHECK(!rgb_bad && tested > 4000, "fixed-point RGB: %d of %d differ", rgb_bad, tested);
}

static void test_pack_helpers(void)
{
    CHECK(xsf_px_depth(1023, 10, 8) == 255 && xsf_px_depth(1022, 10, 8) == 255 &&
              xsf_px_depth(513, 10, 8) == 128 && xsf_px_depth(514, 10, 8) == 129 &&
              xsf_px_depth(255, 8, 10) == 1020 && xsf_px_depth(77, 10, 10) == 77 &&
              xsf_px_depth(65535, 16, 8) == 255 && xsf_px_depth(1, 1, 16) == 32768,
          "depth");
    CHECK(xsf_px_mean(3, 2) == 2 && xsf_px_mean(5, 4) == 1 && xsf_px_mean(6, 4) == 2 &&
              xsf_px_mean(7, 1) == 7,
          "mean");
    CHECK(xsf_px_axis(4, 4) == XSF_PX_AXIS_COPY && xsf_px_axis(8, 4) == XSF_PX_AXIS_DOWN &&
              xsf_px_axis(7, 4) == XSF_PX_AXIS_DOWN && xsf_px_axis(4, 8) == XSF_PX_AXIS_UP &&
              xsf_px_axis(4, 7) == XSF_PX_AXIS_UP && xsf_px_axis(4, 16) == XSF_PX_AXIS_NONE &&
              xsf_px_axis(9, 4) == XSF_PX_AXIS_NONE,
          "axis");
    int first;
    CHECK(xsf_px_axis_src(XSF_PX_AXIS_DOWN, 3, 7, &first) == 1 && first == 6 &&
              xsf_px_axis_src(XSF_PX_AXIS_DOWN, 2, 7, &first) == 2 && first == 4 &&
              xsf_px_axis_src(XSF_PX_AXIS_UP, 5, 3, &first) == 1 && first == 2,
          "axis sources");
    CHECK(xsf_px_msb16(1023, 10) == 0xffc0 && xsf_px_unit_float(65535) == 1.0f, "msb16, float");
}

int main(void)
{
    test_pack_helpers();
    test_names_and_planes();
    test_v210();
    test_pgroup_uyvy();
    test_semi_planar();
    test_resampling();
    test_rgb();
    test_gray_and_alpha();
    test_refusals();
    test_copy();
    test_property();
    return xsf_test_finish();
}
