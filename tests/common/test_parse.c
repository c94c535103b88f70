/* The value parsers every command shares (common/include/xsf_parse.h) and the colour
 * vocabulary with its conversion (common/include/xsf_colour.h). */
#include <math.h>
#include <string.h>

#include "test.h"
#include "xsf_colour.h"
#include "xsf_parse.h"

static int rate_is(const char *text, unsigned num, unsigned den)
{
    xsf_rate r = {0, 0};
    xsf_error err;
    xsf_error_clear(&err);
    if (xsf_parse_rate(text, &r, &err) != XSF_OK) {
        fprintf(stderr, "%s: %s\n", text, err.msg);
        return 0;
    }
    if (r.num != num || r.den != den)
        fprintf(stderr, "%s: %u/%u, expected %u/%u\n", text, r.num, r.den, num, den);
    return r.num == num && r.den == den;
}

/* Refused, with a message that names the text; *out untouched. */
static int rate_refused(const char *text)
{
    xsf_rate r = {7, 3};
    xsf_error err;
    xsf_error_clear(&err);
    return xsf_parse_rate(text, &r, &err) == XSF_ERR_ARG && strstr(err.msg, text) && r.num == 7 &&
           r.den == 3;
}

static void test_rates(void)
{
    /* Every syntax of every command: N, N/D (send, recv), N:D (decode, y4m), a decimal (play). */
    CHECK(rate_is("25", 25, 1), "N");
    CHECK(rate_is("30000/1001", 30000, 1001), "N/D");
    CHECK(rate_is("30000:1001", 30000, 1001), "N:D");
    CHECK(rate_is("50/2", 25, 1), "reduced");
    CHECK(rate_is("29.97", 30000, 1001), "29.97 is NTSC");
    CHECK(rate_is("23.976", 24000, 1001), "23.976");
    CHECK(rate_is("23.98", 24000, 1001), "23.98");
    CHECK(rate_is("59.94", 60000, 1001), "59.94");
    CHECK(rate_is("119.88", 120000, 1001), "119.88");
    CHECK(rate_is("47.952", 48000, 1001), "47.952");
    CHECK(rate_is("29.970", 30000, 1001), "29.970");
    CHECK(rate_is("30.0", 30, 1), "30.0 is 30, not NTSC");
    CHECK(rate_is("29.96", 749, 25), "29.96 is exact, not NTSC");
    CHECK(rate_is("12.5", 25, 2), "12.5");
    CHECK(rate_is("0.1", 1, 10), "0.1");
    CHECK(rate_is("1000000", 1000000, 1), "the largest N");
    /* More digits than a term holds: the nearest fraction within the bound. */
    xsf_rate r;
    CHECK(xsf_parse_rate("3.141592653", &r, NULL) == XSF_OK && r.den <= XSF_RATE_MAX &&
              fabs(xsf_rate_value(r) - 3.141592653) < 1e-9,
          "pi: %u/%u", r.num, r.den);
    const char *bad[] = {
        "",         "0",   "0/1",    "1/0",       "0.0",          "-25",        "25x", "x",
        "25/",      "/25", "25/1/1", "25:1001:1", "1000001",      "1/1000001",  "2.",  ".5",
        "29.97fps", "1e3", " 25",    "25 ",       "1.0000000001", "30000/1001/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(rate_refused(bad[i]), "'%s' accepted", bad[i]);
    xsf_error err;
    xsf_error_clear(&err);
    xsf_parse_rate("25x", &r, &err);
    CHECK(strstr(err.msg, "N/D") && strstr(err.msg, "N:D") && strstr(err.msg, "decimal"),
          "the message names the syntaxes: %s", err.msg);
}

static int reduced_is(unsigned num, unsigned den, unsigned want_num, unsigned want_den)
{
    xsf_rate_reduce(&num, &den);
    return num == want_num && den == want_den;
}

static void test_rate_reduce(void)
{
    CHECK(reduced_is(50, 2, 25, 1), "50/2");
    CHECK(reduced_is(60000, 2002, 30000, 1001), "60000/2002");
    CHECK(reduced_is(30000, 1001, 30000, 1001), "30000/1001 stays");
    CHECK(reduced_is(25, 1, 25, 1), "25/1 stays");
    CHECK(reduced_is(12, 18, 2, 3), "12/18");
    CHECK(reduced_is(4000000000u, 2000000000u, 2, 1), "large terms");
    CHECK(reduced_is(0, 5, 0, 1), "0/5");
    CHECK(reduced_is(7, 0, 1, 0), "7/0");
    CHECK(reduced_is(0, 0, 0, 0), "0/0 stays");
}

static void test_sizes_numbers(void)
{
    int w = 0, h = 0;
    xsf_error err;
    CHECK(xsf_parse_size("1920x1080", 65535, &w, &h, NULL) == XSF_OK && w == 1920 && h == 1080,
          "size");
    CHECK(xsf_parse_size("1x1", 65535, &w, &h, NULL) == XSF_OK && w == 1 && h == 1, "1x1");
    const char *bad[] = {"0x10",   "10x0",  "10",      "x10",   "10x",
                         "10x10x", "-1x10", "65536x1", "10*10", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        xsf_error_clear(&err);
        w = h = 5;
        CHECK(xsf_parse_size(bad[i], 65535, &w, &h, &err) == XSF_ERR_ARG && w == 5 &&
                  strstr(err.msg, "WxH"),
              "size '%s' accepted", bad[i]);
    }

    int64_t v = 0;
    CHECK(xsf_parse_integer("42", 0, 100, &v, NULL) == XSF_OK && v == 42, "42");
    CHECK(xsf_parse_integer("0x1f", 0, 100, &v, NULL) == XSF_OK && v == 31, "hex");
    CHECK(xsf_parse_integer("010", 0, 100, &v, NULL) == XSF_OK && v == 10, "decimal, not octal");
    CHECK(xsf_parse_integer("-1", -5, 5, &v, NULL) == XSF_OK && v == -1, "negative");
    CHECK(xsf_parse_integer("0xffffffff", 0, 0xffffffffLL, &v, NULL) == XSF_OK && v == 0xffffffffLL,
          "32 bits");
    xsf_error_clear(&err);
    CHECK(xsf_parse_integer("101", 0, 100, &v, &err) == XSF_ERR_ARG &&
              strstr(err.msg, "from 0 to 100"),
          "range: %s", err.msg);
    CHECK(xsf_parse_integer("-1", 0, 100, &v, NULL) == XSF_ERR_ARG, "below");
    CHECK(xsf_parse_integer("99999999999999999999", 0, 100, &v, NULL) == XSF_ERR_ARG, "overflow");
    CHECK(xsf_parse_integer("1x", 0, 100, &v, NULL) == XSF_ERR_ARG, "junk");
    CHECK(xsf_parse_integer("", 0, 100, &v, NULL) == XSF_ERR_ARG, "empty");
    CHECK(xsf_parse_integer("0x", 0, 100, &v, NULL) == XSF_ERR_ARG, "0x");

    uint64_t b = 0;
    CHECK(xsf_parse_bytes("4096", 0, UINT64_MAX, &b, NULL) == XSF_OK && b == 4096, "bytes");
    CHECK(xsf_parse_bytes("32M", 0, UINT64_MAX, &b, NULL) == XSF_OK && b == 32u << 20, "32M");
    CHECK(xsf_parse_bytes("32MiB", 0, UINT64_MAX, &b, NULL) == XSF_OK && b == 32u << 20, "32MiB");
    CHECK(xsf_parse_bytes("64k", 0, UINT64_MAX, &b, NULL) == XSF_OK && b == 65536, "64k");
    CHECK(xsf_parse_bytes("2G", 0, UINT64_MAX, &b, NULL) == XSF_OK && b == 2ull << 30, "2G");
    CHECK(xsf_parse_bytes("100B", 0, UINT64_MAX, &b, NULL) == XSF_OK && b == 100, "100B");
    CHECK(xsf_parse_bytes("1k", 4096, UINT64_MAX, &b, NULL) == XSF_ERR_ARG, "below the minimum");
    CHECK(xsf_parse_bytes("3G", 0, 1ull << 31, &b, NULL) == XSF_ERR_ARG, "above the maximum");
    CHECK(xsf_parse_bytes("32m", 0, UINT64_MAX, &b, NULL) == XSF_ERR_ARG, "m is not M");
    CHECK(xsf_parse_bytes("32MB5", 0, UINT64_MAX, &b, NULL) == XSF_ERR_ARG, "junk");
    CHECK(xsf_parse_bytes("-1", 0, UINT64_MAX, &b, NULL) == XSF_ERR_ARG, "negative");

    int items[4], n = 0;
    CHECK(xsf_parse_int_list("0,1", 0, 255, items, 4, &n, NULL) == XSF_OK && n == 2 &&
              items[1] == 1,
          "list");
    CHECK(xsf_parse_int_list("7", 0, 255, items, 4, &n, NULL) == XSF_OK && n == 1 && items[0] == 7,
          "one");
    const char *badl[] = {"", ",", "0,", ",0", "0,,1", "256", "0,1,2,3,4", "a"};
    for (size_t i = 0; i < sizeof badl / sizeof badl[0]; i++)
        CHECK(xsf_parse_int_list(badl[i], 0, 255, items, 4, &n, NULL) == XSF_ERR_ARG, "list '%s'",
              badl[i]);
}

static void test_colour_words(void)
{
    xsf_colour c;
    char buf[32];
    struct {
        const char *text, *name;
        int matrix, range, rgb_order;
    } ok[] = {
        {"709", "709,narrow", XSF_MATRIX_BT709, XSF_RANGE_NARROW, 0},
        {"bt709", "709,narrow", XSF_MATRIX_BT709, XSF_RANGE_NARROW, 0},
        {"BT709", "709,narrow", XSF_MATRIX_BT709, XSF_RANGE_NARROW, 0},
        {"709,full", "709,full", XSF_MATRIX_BT709, XSF_RANGE_FULL, 0},
        {"bt709-full", "709,full", XSF_MATRIX_BT709, XSF_RANGE_FULL, 0},
        {"bt601-full", "601,full", XSF_MATRIX_BT601, XSF_RANGE_FULL, 0},
        {"601", "601,narrow", XSF_MATRIX_BT601, XSF_RANGE_NARROW, 0},
        {"BT2020,narrow", "2020,narrow", XSF_MATRIX_BT2020_NCL, XSF_RANGE_NARROW, 0},
        {"2020,full", "2020,full", XSF_MATRIX_BT2020_NCL, XSF_RANGE_FULL, 0},
        /* R'G'B' as it is: full range unless it says narrow (decode and play alike). */
        {"rgb", "rgb,full", XSF_MATRIX_IDENTITY, XSF_RANGE_FULL, 1},
        {"gbr", "gbr,full", XSF_MATRIX_IDENTITY, XSF_RANGE_FULL, 0},
        {"gbr,full", "gbr,full", XSF_MATRIX_IDENTITY, XSF_RANGE_FULL, 0},
        {"rgb,narrow", "rgb,narrow", XSF_MATRIX_IDENTITY, XSF_RANGE_NARROW, 1},
        {"gbr-narrow", "gbr,narrow", XSF_MATRIX_IDENTITY, XSF_RANGE_NARROW, 0},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        memset(&c, 0xee, sizeof c);
        CHECK(xsf_colour_parse(ok[i].text, &c, NULL) == XSF_OK && c.matrix == ok[i].matrix &&
                  c.range == ok[i].range && (c.matrix || c.rgb_order == ok[i].rgb_order) &&
                  c.source == XSF_COLOUR_USER,
              "%s", ok[i].text);
        CHECK(!strcmp(xsf_colour_name(&c, buf, sizeof buf), ok[i].name), "%s named %s", ok[i].text,
              buf);
        xsf_colour back;
        CHECK(xsf_colour_parse(buf, &back, NULL) == XSF_OK && !memcmp(&back, &c, sizeof c),
              "%s read back", buf);
    }
    const char *bad[] = {"709,wide", "bt470", "", ",full", "709,", "709,full,full", "rgbx", "70"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        xsf_error err;
        xsf_error_clear(&err);
        CHECK(xsf_colour_parse(bad[i], &c, &err) == XSF_ERR_ARG &&
                  strstr(err.msg, "709, 601, 2020"),
              "'%s' accepted (%s)", bad[i], err.msg);
    }
    xsf_colour_from_sdp(&c, "BT2020", "FULL");
    CHECK(c.matrix == XSF_MATRIX_BT2020_NCL && c.range == XSF_RANGE_FULL &&
              c.source == XSF_COLOUR_SDP,
          "SDP");
    xsf_colour_from_sdp(&c, "", "");
    CHECK(c.matrix == XSF_MATRIX_BT709 && c.range == XSF_RANGE_NARROW, "SDP without colorimetry");
    xsf_colour_default(&c);
    CHECK(!strcmp(xsf_colour_name(&c, buf, sizeof buf), "default"), "default");
    const xsf_colour e = xsf_colour_effective(&c);
    CHECK(e.matrix == XSF_MATRIX_BT709 && e.range == XSF_RANGE_NARROW,
          "the default converts as 709,narrow");
    xsf_colour zero;
    memset(&zero, 0, sizeof zero);
    const xsf_colour z = xsf_colour_effective(&zero);
    CHECK(z.matrix == XSF_MATRIX_BT709, "a zeroed description is the default, not identity");
}

/* One sample triple through the transform, to 8 bits as the display rounds. */
static void convert(const char *colour, int depth, int s0, int s1, int s2, int out[3])
{
    xsf_colour c;
    xsf_colour_parse(colour, &c, NULL);
    xsf_rgb_transform t;
    xsf_rgb_transform_make(&t, &c, depth, 3);
    const int s[3] = {s0, s1, s2};
    for (int r = 0; r < 3; r++) {
        double v = 0;
        for (int k = 0; k < 3; k++)
            v += t.m[r][k] * (s[k] * t.in_scale[k] + t.in_bias[k]);
        v = v < 0 ? 0 : v > 1 ? 1 : v;
        out[r] = (int)floor(v * 255 + 0.5);
    }
}

static void test_transform(void)
{
    int o[3];
    convert("709", 8, 16, 128, 128, o);
    CHECK(o[0] == 0 && o[1] == 0 && o[2] == 0, "narrow black");
    convert("709", 8, 235, 128, 128, o);
    CHECK(o[0] == 255 && o[1] == 255 && o[2] == 255, "narrow white");
    convert("709,full", 10, 1023, 512, 512, o);
    CHECK(o[0] == 255 && o[1] == 255 && o[2] == 255, "full white, 10 bits");
    /* BT.709 blue: Y' = Kb, Pb = 0.5, Pr = -Kb / (2 (1 - Kr)). */
    convert("709,full", 8, 18, 255, 128 - 12, o);
    CHECK(o[2] >= 254 && o[0] <= 1, "blue from Pb: %d %d %d", o[0], o[1], o[2]);
    convert("gbr", 10, 1023, 0, 512, o);
    CHECK(o[0] == 128 && o[1] == 255 && o[2] == 0, "gbr order: %d %d %d", o[0], o[1], o[2]);
    convert("rgb", 10, 1023, 0, 512, o);
    CHECK(o[0] == 255 && o[1] == 0 && o[2] == 128, "rgb order");
    convert("rgb,narrow", 8, 16, 235, 126, o);
    CHECK(o[0] == 0 && o[1] == 255 && o[2] == 128, "rgb narrow: %d %d %d", o[0], o[1], o[2]);
    convert("601", 8, 81, 90, 240, o); /* BT.601 red */
    CHECK(o[0] >= 254 && o[1] <= 1 && o[2] <= 1, "601 red: %d %d %d", o[0], o[1], o[2]);
}

int main(void)
{
    test_rates();
    test_rate_reduce();
    test_sizes_numbers();
    test_colour_words();
    test_transform();
    return xsf_test_finish();
}
