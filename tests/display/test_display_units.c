/* display/ without GL: the RTP clock, the pacing of a tile, the multiviewer
 * layout, colour descriptions, chroma formats, the C conversion on known
 * colours, and the bitmap font. */
#include <math.h>
#include <string.h>

#include "display.h"
#include "test.h"

static const int64_t MS = 1000000;

static void test_clock(void)
{
    dsp_clock clk;
    dsp_clock_init(&clk, 90000, 40);
    /* First picture: shown delay after its arrival. */
    int64_t t0 = dsp_clock_map(&clk, 1000, 5000 * MS);
    CHECK(t0 == 5040 * MS, "first picture at %lld ns", (long long)t0);
    /* 3600 ticks = 40 ms later in media time, arriving 10 ms late (jitter):
     * still at media time + the first offset. */
    int64_t t1 = dsp_clock_map(&clk, 4600, 5050 * MS);
    CHECK(t1 == 5080 * MS, "jittered picture at %lld ns", (long long)t1);
    /* One arriving early (a faster path) lowers the offset for later ones. */
    int64_t t2 = dsp_clock_map(&clk, 8200, 5075 * MS); /* media 80 ms; arrival - media = 4995 ms */
    CHECK(t2 == 5115 * MS, "early picture at %lld ns", (long long)t2);
    int64_t t3 = dsp_clock_map(&clk, 11800, 5200 * MS); /* media 120 ms */
    CHECK(t3 == 5155 * MS, "after the early one at %lld ns", (long long)t3);

    /* Wrap-around of the 32-bit timestamp: 40 ms steps across 2^32. */
    dsp_clock_init(&clk, 90000, 0);
    uint32_t ts = 0xffffffffu - 3600 * 2 + 1;
    int64_t prev = dsp_clock_map(&clk, ts, 0);
    int monotonic = 1, exact = 1;
    for (int i = 1; i <= 6; i++) {
        ts += 3600;
        const int64_t t = dsp_clock_map(&clk, ts, (int64_t)i * 40 * MS);
        monotonic &= t > prev;
        exact &= t == (int64_t)i * 40 * MS;
        prev = t;
    }
    CHECK(monotonic && exact, "times across the wrap: monotonic %d exact %d", monotonic, exact);
    CHECK(clk.ext_ts == 6 * 3600, "unwrapped %lld ticks", (long long)clk.ext_ts);
    CHECK(clk.reanchors == 0, "%llu re-anchors across a wrap", (unsigned long long)clk.reanchors);
    /* A timestamp slightly older than the last (reordering) maps earlier. */
    const int64_t back = dsp_clock_map(&clk, ts - 3600, 300 * MS);
    CHECK(back == 200 * MS, "an older timestamp maps to %lld", (long long)back);
    /* A jump of minutes (restarted sender) re-anchors. */
    const int64_t j = dsp_clock_map(&clk, ts + 90000u * 60, 400 * MS);
    CHECK(clk.reanchors == 1 && j == 400 * MS, "jump: %llu re-anchors, at %lld",
          (unsigned long long)clk.reanchors, (long long)j);
    /* Another rate: 1 s of a 48 kHz clock. */
    dsp_clock_init(&clk, 48000, 0);
    dsp_clock_map(&clk, 0, 0);
    CHECK(dsp_clock_map(&clk, 48000, 1000 * MS) == 1000 * MS, "48 kHz clock");
}

static void test_pacer(void)
{
    dsp_pacer p;
    int ev = 0;
    dsp_pacer_init(&p);
    CHECK(dsp_pacer_pick(&p, 0, 1) == -1, "nothing to show");
    /* Three pictures at 10, 20, 30; a frame at 25 shows the second and
     * drops the first (missed its slot); the third waits. */
    const int a = dsp_pacer_push(&p, 10, &ev);
    const int b = dsp_pacer_push(&p, 20, &ev);
    const int c = dsp_pacer_push(&p, 30, &ev);
    CHECK(a != b && b != c && a != c && !ev, "slots %d %d %d, evicted %d", a, b, c, ev);
    CHECK(dsp_pacer_pick(&p, 25, 1) == b, "frame at 25 shows the picture of 20");
    CHECK(p.dropped_late == 1 && p.presented == 1, "late %llu presented %llu",
          (unsigned long long)p.dropped_late, (unsigned long long)p.presented);
    CHECK(dsp_pacer_pick(&p, 29, 1) == -1, "frame at 29 keeps it");
    CHECK(dsp_pacer_pick(&p, 30, 1) == c, "frame at 30 shows the third");
    CHECK(p.dropped_late == 1 && p.presented == 2, "no more drops");
    /* A full tile: the shown slot is never reused; the oldest waiting
     * picture is evicted and counted. */
    int slots[DSP_PACER_SLOTS];
    for (int i = 0; i < DSP_PACER_SLOTS - 1; i++) {
        slots[i] = dsp_pacer_push(&p, 100 + i, &ev);
        CHECK(slots[i] != c && !ev, "push %d: slot %d evicted %d", i, slots[i], ev);
    }
    const int e = dsp_pacer_push(&p, 200, &ev);
    CHECK(ev && e == slots[0] && p.dropped_full == 1, "full: slot %d (oldest %d) evicted %d", e,
          slots[0], ev);
    /* Without pacing the newest is shown at once, whatever its time. */
    CHECK(dsp_pacer_pick(&p, 0, 0) == e, "no vsync shows the newest");
    CHECK(p.dropped_late == 1 + (DSP_PACER_SLOTS - 2), "the others dropped: %llu",
          (unsigned long long)p.dropped_late);
    /* Pause: waiting pictures are forgotten without counting. */
    dsp_pacer_push(&p, 300, &ev);
    const uint64_t late = p.dropped_late;
    dsp_pacer_flush(&p);
    CHECK(dsp_pacer_pick(&p, 1000, 1) == -1 && p.dropped_late == late, "flushed");
    CHECK(p.pushed == 3 + DSP_PACER_SLOTS + 1, "pushed %llu", (unsigned long long)p.pushed);
    /* A picture pushed earlier but due later is not dropped by a newer due one. */
    dsp_pacer_init(&p);
    const int later = dsp_pacer_push(&p, 5000, &ev);
    const int now = dsp_pacer_push(&p, 100, &ev);
    CHECK(dsp_pacer_pick(&p, 200, 1) == now && p.dropped_late == 0,
          "due one shown, the later one kept");
    CHECK(dsp_pacer_pick(&p, 5000, 1) == later && p.dropped_late == 0, "then the later one");
}

static void test_layout(void)
{
    static const struct {
        int n, w, h;
        double aspect;
        int cols, rows;
    } cases[] = {
        {1, 1920, 1080, 16.0 / 9, 1, 1},  {2, 1920, 1080, 16.0 / 9, 2, 1},
        {3, 1920, 1080, 16.0 / 9, 2, 2},  {4, 1920, 1080, 16.0 / 9, 2, 2},
        {5, 1920, 1080, 16.0 / 9, 3, 2},  {9, 1920, 1080, 16.0 / 9, 3, 3},
        {16, 1920, 1080, 16.0 / 9, 4, 4}, {2, 1080, 1920, 16.0 / 9, 1, 2},
        {3, 3000, 500, 16.0 / 9, 3, 1},   {64, 3840, 2160, 16.0 / 9, 8, 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int cols = 0, rows = 0;
        dsp_layout_grid(cases[i].n, cases[i].w, cases[i].h, cases[i].aspect, &cols, &rows);
        CHECK(cols == cases[i].cols && rows == cases[i].rows,
              "%d tiles in %dx%d: %dx%d (expected %dx%d)", cases[i].n, cases[i].w, cases[i].h, cols,
              rows, cases[i].cols, cases[i].rows);
    }
    /* Cells tile the window exactly, even when it does not divide. */
    const int W = 1001, H = 703, cols = 3, rows = 2;
    long area = 0;
    int edges_ok = 1;
    for (int i = 0; i < cols * rows; i++) {
        const dsp_rect r = dsp_layout_cell(i, cols, rows, W, H);
        area += (long)r.w * r.h;
        if (i % cols == cols - 1)
            edges_ok &= r.x + r.w == W;
        if (i / cols == rows - 1)
            edges_ok &= r.y + r.h == H;
        if (i % cols)
            edges_ok &= r.x == dsp_layout_cell(i - 1, cols, rows, W, H).x +
                                   dsp_layout_cell(i - 1, cols, rows, W, H).w;
    }
    CHECK(area == (long)W * H && edges_ok, "cells cover %ld of %ld pixels, edges %d", area,
          (long)W * H, edges_ok);
    dsp_rect r = dsp_layout_cell(4, 3, 2, 1920, 1080);
    CHECK(r.x == 640 && r.y == 540 && r.w == 640 && r.h == 540, "cell 4: %d,%d %dx%d", r.x, r.y,
          r.w, r.h);
    /* Fitting keeps the aspect, centred. */
    r = dsp_layout_fit((dsp_rect){0, 0, 1920, 1080}, 1280, 720);
    CHECK(r.x == 0 && r.y == 0 && r.w == 1920 && r.h == 1080, "16:9 in 16:9: %d,%d %dx%d", r.x, r.y,
          r.w, r.h);
    r = dsp_layout_fit((dsp_rect){100, 50, 640, 540}, 1920, 1080);
    CHECK(r.x == 100 && r.y == 50 + 90 && r.w == 640 && r.h == 360, "letterbox: %d,%d %dx%d", r.x,
          r.y, r.w, r.h);
    r = dsp_layout_fit((dsp_rect){0, 0, 1920, 1080}, 1080, 1080);
    CHECK(r.x == 420 && r.y == 0 && r.w == 1080 && r.h == 1080, "pillarbox: %d,%d %dx%d", r.x, r.y,
          r.w, r.h);
}

/* A colour in the words of --colour (common/include/xsf_colour.h). */
static xsf_colour colour_of(const char *words)
{
    xsf_colour c;
    xsf_colour_default(&c);
    CHECK(xsf_colour_parse(words, &c, NULL) == XSF_OK, "colour %s", words);
    return c;
}

/* The vocabulary as the display reads it (its parser is common/, tested in
 * tests/common/test_parse.c; these are the display's cases). */
static void test_colour_parse(void)
{
    xsf_colour c = colour_of("709");
    CHECK(c.matrix == XSF_MATRIX_BT709 && c.range == XSF_RANGE_NARROW, "709");
    c = colour_of("601,full");
    CHECK(c.matrix == XSF_MATRIX_BT601 && c.range == XSF_RANGE_FULL, "601,full");
    CHECK(colour_of("BT2020,narrow").matrix == XSF_MATRIX_BT2020_NCL, "BT2020,narrow");
    c = colour_of("gbr,full");
    CHECK(c.matrix == XSF_MATRIX_IDENTITY && !c.rgb_order, "gbr,full");
    /* R'G'B' as it is unless told narrow: what `decode --colour gbr` means. */
    c = colour_of("gbr");
    CHECK(c.matrix == XSF_MATRIX_IDENTITY && !c.rgb_order && c.range == XSF_RANGE_FULL, "gbr");
    CHECK(colour_of("rgb,narrow").range == XSF_RANGE_NARROW, "rgb,narrow");
    CHECK(xsf_colour_parse("709,wide", &c, NULL) == XSF_ERR_ARG, "bad range");
    CHECK(xsf_colour_parse("bt470", &c, NULL) == XSF_ERR_ARG, "bad matrix");
    CHECK(xsf_colour_parse("", &c, NULL) == XSF_ERR_ARG, "empty");
    char buf[32];
    c = colour_of("2020,full");
    CHECK(!strcmp(xsf_colour_name(&c, buf, sizeof buf), "2020,full"), "name %s", buf);
}

static uint16_t planes[3][64];

static xsf_picture picture(int nc, int w, int h, int cw, int ch, int depth)
{
    xsf_picture p;
    xsf_picture_init(&p);
    p.fmt.nc = nc;
    for (int c = 0; c < nc; c++) {
        p.fmt.width[c] = c ? cw : w;
        p.fmt.height[c] = c ? ch : h;
        p.fmt.depth[c] = depth;
        p.stride[c] = 2 * (size_t)p.fmt.width[c];
        p.data[c] = (uint8_t *)planes[c];
    }
    return p;
}

static void test_chroma(void)
{
    xsf_error err = {0};
    xsf_picture p = picture(3, 5, 3, 3, 2, 10);
    CHECK(dsp_picture_chroma(&p, &err) == DSP_CHROMA_420, "5x3 with 3x2 chroma is 4:2:0");
    p = picture(3, 6, 3, 3, 3, 10);
    CHECK(dsp_picture_chroma(&p, &err) == DSP_CHROMA_422, "4:2:2");
    p = picture(3, 6, 3, 6, 3, 8);
    CHECK(dsp_picture_chroma(&p, &err) == DSP_CHROMA_444, "4:4:4");
    p = picture(1, 6, 3, 0, 0, 12);
    CHECK(dsp_picture_chroma(&p, &err) == DSP_CHROMA_GRAY, "gray");
    p = picture(3, 6, 4, 6, 2, 8);
    xsf_error_clear(&err);
    CHECK(dsp_picture_chroma(&p, &err) == DSP_CHROMA_INVALID && err.status == XSF_ERR_UNSUPPORTED,
          "4:4:0 refused");
    p = picture(3, 6, 3, 2, 3, 8);
    xsf_error_clear(&err);
    CHECK(dsp_picture_chroma(&p, &err) == DSP_CHROMA_INVALID, "third-width chroma refused");
    p = picture(3, 6, 3, 6, 3, 7);
    xsf_error_clear(&err);
    CHECK(dsp_picture_chroma(&p, &err) == DSP_CHROMA_INVALID && err.status == XSF_ERR_UNSUPPORTED,
          "depth 7");
    p = picture(3, 6, 3, 6, 3, 8);
    p.stride[1] = 11;
    xsf_error_clear(&err);
    CHECK(dsp_picture_chroma(&p, &err) == DSP_CHROMA_INVALID && err.status == XSF_ERR_ARG,
          "odd pitch");
    /* An output pixel format other than planar16 (recv --pix-fmt): refused, named. */
    p = picture(3, 6, 3, 3, 3, 10);
    p.fmt.container = XSF_V210;
    xsf_error_clear(&err);
    CHECK(dsp_picture_chroma(&p, &err) == DSP_CHROMA_INVALID && err.status == XSF_ERR_UNSUPPORTED &&
              strstr(err.msg, "v210") && strstr(err.msg, "planar16"),
          "v210 refused: '%s'", err.msg);
}

/* One pixel through the C conversion. */
static void convert1(int depth, xsf_colour colour, int nc, uint16_t s0, uint16_t s1, uint16_t s2,
                     uint8_t rgb[3])
{
    xsf_picture p = picture(nc, 1, 1, 1, 1, depth);
    planes[0][0] = s0, planes[1][0] = s1, planes[2][0] = s2;
    p.colour = colour;
    xsf_error err = {0};
    memset(rgb, 0x55, 3);
    CHECK(dsp_convert_rgb8(&p, rgb, 3, &err) == XSF_OK, "convert: %s", err.msg);
}

static int near(const uint8_t a[3], int r, int g, int b, int tol)
{
    return abs(a[0] - r) <= tol && abs(a[1] - g) <= tol && abs(a[2] - b) <= tol;
}

static void test_convert(void)
{
    uint8_t o[3];
    const xsf_colour n709 = colour_of("709,narrow");
    convert1(8, n709, 3, 16, 128, 128, o);
    CHECK(near(o, 0, 0, 0, 0), "black: %d %d %d", o[0], o[1], o[2]);
    convert1(8, n709, 3, 235, 128, 128, o);
    CHECK(near(o, 255, 255, 255, 0), "white: %d %d %d", o[0], o[1], o[2]);
    convert1(10, n709, 3, 940, 512, 512, o);
    CHECK(near(o, 255, 255, 255, 0), "10-bit white: %d %d %d", o[0], o[1], o[2]);
    convert1(8, n709, 3, 4, 128, 128, o);
    CHECK(near(o, 0, 0, 0, 0), "below black clamps: %d %d %d", o[0], o[1], o[2]);
    /* Primaries: Y' = Kr, Pr = 0.5 for red; narrow 12-bit codes. */
    static const struct {
        const char *m;
        double kr, kb;
    } mats[] = {{"709", 0.2126, 0.0722}, {"601", 0.299, 0.114}, {"2020", 0.2627, 0.0593}};
    for (int i = 0; i < 3; i++) {
        const double kr = mats[i].kr, kb = mats[i].kb;
        /* Red: Y' = Kr, Pb = -Kr / (2(1-Kb)), Pr = 0.5. */
        const uint16_t y = (uint16_t)lround(256 + 3504 * kr),
                       cb = (uint16_t)lround(2048 - 3584 * kr / (2 * (1 - kb)));
        char words[16];
        snprintf(words, sizeof words, "%s,narrow", mats[i].m);
        convert1(12, colour_of(words), 3, y, cb, 3840, o);
        CHECK(near(o, 255, 0, 0, 1), "matrix %d red: %d %d %d", i, o[0], o[1], o[2]);
        /* Blue in full range 10-bit: Y' = Kb, Pb = 0.5, Pr = -Kb / (2(1-Kr)). */
        const uint16_t fy = (uint16_t)lround(1023 * kb),
                       fcr = (uint16_t)lround(512 - 1023 * kb / (2 * (1 - kr)));
        snprintf(words, sizeof words, "%s,full", mats[i].m);
        convert1(10, colour_of(words), 3, fy, 1023, fcr, o);
        CHECK(near(o, 0, 0, 255, 1), "matrix %d full-range blue: %d %d %d", i, o[0], o[1], o[2]);
    }
    /* RGB, GBR and gray. */
    convert1(10, colour_of("rgb,full"), 3, 1023, 0, 512, o);
    CHECK(near(o, 255, 0, 128, 0), "rgb: %d %d %d", o[0], o[1], o[2]);
    convert1(10, colour_of("gbr,full"), 3, 1023, 0, 512, o);
    CHECK(near(o, 128, 255, 0, 0), "gbr: %d %d %d", o[0], o[1], o[2]);
    convert1(8, colour_of("rgb,narrow"), 3, 16, 235, 126, o);
    CHECK(near(o, 0, 255, 128, 0), "narrow rgb: %d %d %d", o[0], o[1], o[2]);
    convert1(8, n709, 1, 126, 0, 0, o);
    CHECK(near(o, 128, 128, 128, 0), "gray: %d %d %d", o[0], o[1], o[2]);
    /* Chroma replication: a 4:2:0 picture of 3x3 with 2x2 chroma. */
    xsf_picture p = picture(3, 3, 3, 2, 2, 8);
    for (int i = 0; i < 9; i++)
        planes[0][i] = 128;
    const uint16_t cr[4] = {128, 240, 16, 128};
    for (int i = 0; i < 4; i++)
        planes[1][i] = 128, planes[2][i] = cr[i];
    p.colour = n709;
    uint8_t rgb[27];
    xsf_error err = {0};
    CHECK(dsp_convert_rgb8(&p, rgb, sizeof rgb, &err) == XSF_OK, "4:2:0 convert");
    /* Pixel (2, 0) takes chroma (1, 0): Cr 240 (red); pixel (0, 2) takes (0, 1): Cr 16. */
    CHECK(rgb[3 * 2] > rgb[3 * 0] + 100 && rgb[3 * 6] + 100 < rgb[3 * 0],
          "replicated chroma: %d %d %d", rgb[6], rgb[0], rgb[18]);
    /* 4:2:2, 4x2 with 2x2 chroma: each picture row takes its own chroma row
     * (Cr 16 on row 0: no red; Cr 240 on row 1: full red). */
    xsf_picture p422 = picture(3, 4, 2, 2, 2, 8);
    for (int i = 0; i < 8; i++)
        planes[0][i] = 128;
    const uint16_t cr422[4] = {16, 16, 240, 240};
    for (int i = 0; i < 4; i++)
        planes[1][i] = 128, planes[2][i] = cr422[i];
    p422.colour = n709;
    uint8_t rgb422[24];
    CHECK(dsp_convert_rgb8(&p422, rgb422, sizeof rgb422, &err) == XSF_OK, "4:2:2 convert: %s",
          err.msg);
    CHECK(rgb422[3 * 3] == 0 && rgb422[3 * 4] == 255 && rgb422[3 * 7] == 255,
          "4:2:2 chroma rows: R %d %d %d", rgb422[3 * 3], rgb422[3 * 4], rgb422[3 * 7]);
    /* 16 bits: narrow-range white at 235 << 8. */
    convert1(16, n709, 3, 235 << 8, 128 << 8, 128 << 8, o);
    CHECK(near(o, 255, 255, 255, 0), "16-bit white: %d %d %d", o[0], o[1], o[2]);
    /* The 4:2:0 picture again for the refusals below. */
    for (int i = 0; i < 9; i++)
        planes[0][i] = 128;
    for (int i = 0; i < 4; i++)
        planes[1][i] = 128, planes[2][i] = cr[i];
    CHECK(dsp_convert_rgb8(&p, rgb, sizeof rgb - 1, &err) == XSF_ERR_ARG, "short output refused");
    p.memory = XSF_MEMORY_DEVICE;
    CHECK(dsp_convert_rgb8(&p, rgb, sizeof rgb, &err) == XSF_ERR_ARG, "device picture refused");
}

/* The picture's colour description as the display reads it: what a
 * codestream says (R'G'B' or G'B'R' as they are), a matrix without a range,
 * and a description that says nothing. */
static void test_colour_description(void)
{
    uint8_t o[3];
    xsf_error err = {0};
    xsf_picture p = picture(3, 1, 1, 1, 1, 10);
    planes[0][0] = 1023, planes[1][0] = 0, planes[2][0] = 512;
    /* RGB from a codestream: identity, as it is. */
    xsf_colour_rgb(&p.colour, XSF_COLOUR_CODESTREAM);
    CHECK(dsp_convert_rgb8(&p, o, 3, &err) == XSF_OK && near(o, 255, 0, 128, 0),
          "codestream RGB: %d %d %d", o[0], o[1], o[2]);
    p.colour.rgb_order = 0;
    CHECK(dsp_convert_rgb8(&p, o, 3, &err) == XSF_OK && near(o, 128, 255, 0, 0),
          "codestream GBR: %d %d %d", o[0], o[1], o[2]);
    /* Nothing said (a zeroed description too): BT.709 narrow. */
    planes[0][0] = 940, planes[1][0] = 512, planes[2][0] = 512;
    xsf_colour_default(&p.colour);
    CHECK(dsp_convert_rgb8(&p, o, 3, &err) == XSF_OK && near(o, 255, 255, 255, 0),
          "default: %d %d %d", o[0], o[1], o[2]);
    memset(&p.colour, 0, sizeof p.colour);
    CHECK(dsp_convert_rgb8(&p, o, 3, &err) == XSF_OK && near(o, 255, 255, 255, 0),
          "zeroed: %d %d %d", o[0], o[1], o[2]);
    /* A matrix without a range: Y'CbCr narrow. */
    p.colour.source = XSF_COLOUR_SDP;
    p.colour.matrix = XSF_MATRIX_BT601;
    p.colour.range = XSF_RANGE_UNSPECIFIED;
    CHECK(dsp_convert_rgb8(&p, o, 3, &err) == XSF_OK && near(o, 255, 255, 255, 0),
          "601 unsaid range: %d %d %d", o[0], o[1], o[2]);
}

#include "../../display/font.h"

static void test_font(void)
{
    int w, h;
    dsp_font_measure("AB\n1", &w, &h);
    CHECK(w == 2 * DSP_FONT_CELL_W + 1 && h == 2 * DSP_FONT_CELL_H + 1, "measure %dx%d", w, h);
    uint8_t mask[9 * 13];
    dsp_font_draw("AB\n1", mask, w, h);
    /* 'A' top row is .#. at (1..3, 1); '1' bottom row ### at (1..3, 11). */
    CHECK(!mask[1 * w + 1] && mask[1 * w + 2] && !mask[1 * w + 3], "A's top row");
    CHECK(mask[11 * w + 1] && mask[11 * w + 2] && mask[11 * w + 3], "1's bottom row");
    CHECK(!mask[0] && !mask[1 * w + 4], "margin and spacing empty");
    int ink_lower = 0, ink_upper = 0;
    uint8_t a[5 * 7], b[5 * 7];
    dsp_font_draw("x", a, 5, 7);
    dsp_font_draw("X", b, 5, 7);
    for (int i = 0; i < 35; i++)
        ink_lower += a[i] != 0, ink_upper += b[i] != 0;
    CHECK(!memcmp(a, b, sizeof a) && ink_upper > 0, "lower case as upper (%d, %d pixels)",
          ink_lower, ink_upper);
}

int main(void)
{
    test_clock();
    test_pacer();
    test_layout();
    test_colour_parse();
    test_chroma();
    test_convert();
    test_colour_description();
    test_font();
    return xsf_test_finish();
}
