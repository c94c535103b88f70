/* The window path (GLFW): a window of a 4:2:0 vector's size shows it, and a
 * screenshot (the 's' key's path) holds the C conversion's pixels within 1
 * code value. Runs under Xvfb in CI; skips (77) without a window system.
 *
 *   test_display_window VECTOR.jxs OUT_PREFIX */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "display.h"
#include "test.h"
#include "xs.h"

static uint8_t *read_ppm(const char *path, int *w, int *h)
{
    FILE *f = fopen(path, "rb");
    int maxv = 0;
    uint8_t *rgb = NULL;
    if (f && fscanf(f, "P6 %d %d %d", w, h, &maxv) == 3 && maxv == 255 && fgetc(f) != EOF &&
        *w > 0 && *h > 0 && *w < 8192 && *h < 8192) {
        const size_t n = (size_t)*w * *h * 3;
        rgb = malloc(n);
        if (rgb && fread(rgb, 1, n, f) != n) {
            free(rgb);
            rgb = NULL;
        }
    }
    if (f)
        fclose(f);
    return rgb;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_display_window VECTOR.jxs OUT_PREFIX\n");
        return 2;
    }
    if (!dsp_have_window()) {
        printf("skipped: this build has no window support (GLFW)\n");
        return XSF_TEST_SKIP;
    }
    FILE *f = fopen(argv[1], "rb");
    static uint8_t data[1 << 20];
    const size_t len = f ? fread(data, 1, sizeof data, f) : 0;
    if (f)
        fclose(f);
    CHECK(len > 0, "cannot read %s", argv[1]);
    xs_decoder *dec = NULL;
    const xsf_picture *img = NULL;
    size_t consumed = 0;
    CHECK(xs_decoder_create(&dec, NULL) == XSF_OK &&
              xs_decode(dec, data, len, &consumed, &img) == XSF_OK,
          "decode");
    if (!img)
        return xsf_test_finish();
    xsf_picture pic = *img;
    pic.fmt.nc = 3;
    xsf_colour_parse("709,narrow", &pic.colour, NULL);

    dsp_options opt;
    dsp_options_init(&opt);
    opt.width = pic.fmt.width[0];
    opt.height = pic.fmt.height[0];
    opt.vsync = 0;
    opt.deep_colour = 1; /* falls back to 8 bits where the visual has no 10 */
    opt.screenshot_prefix = argv[2];
    dsp_display *d = NULL;
    xsf_error err = {0};
    if (dsp_create(&d, &opt, &err) != XSF_OK) {
        printf("skipped: no window here: %s\n", err.msg);
        xs_decoder_destroy(dec);
        return XSF_TEST_SKIP;
    }
    int w = 0, h = 0;
    dsp_size(d, &w, &h);
    CHECK(w == pic.fmt.width[0] && h == pic.fmt.height[0], "framebuffer %dx%d for a %dx%d window",
          w, h, pic.fmt.width[0], pic.fmt.height[0]);
    CHECK(dsp_submit(d, 0, &pic, NULL, 0) == XSF_OK, "submit: %s", dsp_error(d));
    dsp_request_screenshot(d);
    CHECK(dsp_present(d) == XSF_OK, "present: %s", dsp_error(d));
    CHECK(dsp_poll(d) == 0, "no quit asked");
    char notice[400] = "";
    CHECK(dsp_take_notice(d, notice, sizeof notice) && !strncmp(notice, "screenshot: ", 12),
          "notice '%s'", notice);
    CHECK(!dsp_take_notice(d, notice, sizeof notice), "a notice is given once");
    char path[300];
    snprintf(path, sizeof path, "%s-0000.ppm", argv[2]);
    int sw = 0, sh = 0;
    uint8_t *shot = read_ppm(path, &sw, &sh);
    const size_t n = (size_t)pic.fmt.width[0] * pic.fmt.height[0] * 3;
    uint8_t *want = malloc(n);
    CHECK(shot && sw == w && sh == h, "screenshot %s: %dx%d", path, sw, sh);
    if (shot && want && sw == pic.fmt.width[0] && sh == pic.fmt.height[0] &&
        dsp_convert_rgb8(&pic, want, n, &err) == XSF_OK) {
        int maxdiff = 0;
        for (size_t i = 0; i < n; i++) {
            const int diff = abs(shot[i] - want[i]);
            maxdiff = diff > maxdiff ? diff : maxdiff;
        }
        CHECK(maxdiff <= 1, "screenshot differs from the C conversion by %d", maxdiff);
    }
    /* More presents (the loop of a player) keep working. */
    for (int i = 0; i < 5; i++)
        CHECK(dsp_present(d) == XSF_OK && dsp_poll(d) == 0, "present %d", i);
    free(shot);
    free(want);
    dsp_destroy(d);
    xs_decoder_destroy(dec);
    return xsf_test_finish();
}
