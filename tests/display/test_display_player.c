/* The display's player (dsp_play) on a synthetic source: the keys line, the
 * source taken in order and started again at its end (loop), a failure of
 * the source ending the play with its message after the window opened, and
 * the tile's counts; and dsp_render_rgb against the C conversion (within 1
 * code value); dsp_window_possible by the environment. Runs under Xvfb in
 * CI; skips (77) without a window system. */
#define _POSIX_C_SOURCE 200809L /* setenv, strdup */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "display.h"
#include "test.h"

#define W 64
#define H 48

typedef struct source {
    uint16_t y[W * H], cb[W / 2 * H], cr[W / 2 * H];
    int taken, total, rewinds, fail_at;
} source;

static xsf_status next(void *ctx, xsf_picture *pic, size_t *bytes, xsf_error *err)
{
    source *s = ctx;
    if (++s->total == s->fail_at)
        return xsf_error_set(err, XSF_ERR_INVALID, "stop at %d", s->total);
    s->taken++;
    memset(pic, 0, sizeof *pic);
    pic->fmt.nc = 3;
    uint16_t *planes[3] = {s->y, s->cb, s->cr};
    for (int c = 0; c < 3; c++) {
        pic->fmt.width[c] = c ? W / 2 : W;
        pic->fmt.height[c] = H;
        pic->fmt.depth[c] = 10;
        pic->stride[c] = (size_t)pic->fmt.width[c] * 2;
        pic->data[c] = (uint8_t *)planes[c];
    }
    *bytes = 1000;
    return XSF_OK;
}

static int done(void *ctx)
{
    return ((source *)ctx)->taken == 5;
}

static void rewind_source(void *ctx)
{
    source *s = ctx;
    s->taken = 0;
    s->rewinds++;
}

static char first_line[512];
static int lines;
static void message(void *ctx, const char *line)
{
    (void)ctx;
    if (!lines++)
        snprintf(first_line, sizeof first_line, "%s", line);
}

static void fill(source *s)
{
    for (int i = 0; i < W * H; i++)
        s->y[i] = (uint16_t)(64 + (i * 7) % 876);
    for (int i = 0; i < W / 2 * H; i++) {
        s->cb[i] = (uint16_t)(64 + (i * 13) % 896);
        s->cr[i] = (uint16_t)(960 - (i * 5) % 896);
    }
}

static void test_render(void)
{
    static source s;
    fill(&s);
    xsf_picture pic;
    size_t bytes;
    xsf_error err = {0};
    next(&s, &pic, &bytes, &err);
    uint8_t *rgb = NULL;
    int w = 0, h = 0;
    if (dsp_render_rgb(&pic, DSP_CONVERT_SHADER, &rgb, &w, &h, &err) != XSF_OK) {
        printf("render skipped: %s\n", err.msg);
        return;
    }
    static uint8_t ref[W * H * 3];
    CHECK(w == W && h == H, "%dx%d", w, h);
    CHECK(dsp_convert_rgb8(&pic, ref, sizeof ref, &err) == XSF_OK, "C conversion: %s", err.msg);
    int worst = 0;
    for (size_t i = 0; i < sizeof ref; i++) {
        const int d = abs((int)rgb[i] - (int)ref[i]);
        worst = d > worst ? d : worst;
    }
    CHECK(worst <= 1, "rendered %d code values from the C conversion", worst);
    free(rgb);
}

/* No window without DISPLAY or WAYLAND_DISPLAY (an empty one is none); with
 * one, where the build has windows. The environment is restored. */
static void test_window_possible(void)
{
    const char *d = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
    char *dsave = d ? strdup(d) : NULL, *wsave = w ? strdup(w) : NULL;
    setenv("DISPLAY", "", 1);
    unsetenv("WAYLAND_DISPLAY");
    CHECK(!dsp_window_possible(), "no window with an empty DISPLAY");
    setenv("DISPLAY", ":99", 1);
    CHECK(dsp_window_possible() == dsp_have_window(), "DISPLAY set: where the build has windows");
    if (dsave)
        setenv("DISPLAY", dsave, 1);
    else
        unsetenv("DISPLAY");
    if (wsave)
        setenv("WAYLAND_DISPLAY", wsave, 1);
    free(dsave);
    free(wsave);
}

int main(void)
{
    test_render();
    test_window_possible();
    if (!dsp_window_possible()) {
        printf("skipped: no window system\n");
        return xsf_test_passed && !xsf_test_failed ? 0 : XSF_TEST_SKIP;
    }
    static source s;
    fill(&s);
    s.fail_at = 13;
    const dsp_player_source src = {
        .ctx = &s, .next = next, .done = done, .rewind = rewind_source, .decoder = "CPU"};
    dsp_play_options opt;
    dsp_play_options_init(&opt);
    opt.name = "synthetic";
    opt.loop = 1;
    opt.vsync = 0;
    opt.fps = 1000;
    opt.delay_ms = 0;
    opt.message = message;
    dsp_play_result res;
    xsf_error err = {0};
    const xsf_status st = dsp_play(&src, &opt, &res, &err);
    if (st != XSF_OK && !res.opened) {
        printf("skipped: no window: %s\n", err.msg);
        return XSF_TEST_SKIP;
    }
    CHECK(st == XSF_ERR_INVALID && !strcmp(err.msg, "stop at 13"), "the source's failure: %d %s",
          st, err.msg);
    CHECK(res.opened && res.tile.submitted == 12, "opened %d, %llu submitted", res.opened,
          (unsigned long long)res.tile.submitted);
    CHECK(s.rewinds == 2, "%d rewinds (5 pictures each time)", s.rewinds);
    CHECK(strstr(first_line, "synthetic: 64x48 4:2:2 10-bit") && strstr(first_line, "keys:"),
          "first line '%s'", first_line);

    /* A source that fails at once: nothing opens. */
    static source bad;
    bad.fail_at = 1;
    const dsp_player_source bsrc = {
        .ctx = &bad, .next = next, .done = done, .rewind = rewind_source, .decoder = "CPU"};
    xsf_error_clear(&err);
    CHECK(dsp_play(&bsrc, &opt, &res, &err) == XSF_ERR_INVALID && !res.opened,
          "a first picture that fails");
    return xsf_test_finish();
}
