/* Builds without OpenGL (no libepoxy or EGL found): the GL-free parts of
 * display/ work; creating a display says why it cannot. */
#include <stddef.h>

#include "display.h"

int dsp_have_gl(void)
{
    return 0;
}

int dsp_have_window(void)
{
    return 0;
}

int dsp_have_interop(void)
{
    return 0;
}

void dsp_options_init(dsp_options *opt)
{
    *opt = (dsp_options){.title = "xsflow", .tiles = 1, .vsync = 1};
}

xsf_status dsp_create(dsp_display **d, const dsp_options *opt, xsf_error *err)
{
    (void)opt;
    *d = NULL;
    return xsf_error_set(
        err, XSF_ERR_UNSUPPORTED,
        "this build has no display (libepoxy, EGL and GLFW were not found at configure time)");
}

void dsp_destroy(dsp_display *d)
{
    (void)d;
}

const char *dsp_error(const dsp_display *d)
{
    (void)d;
    return "this build has no display";
}

xsf_status dsp_submit(dsp_display *d, int tile, const xsf_picture *pic, void *cuda_stream,
                      int64_t pts_ns)
{
    (void)d, (void)tile, (void)pic, (void)cuda_stream, (void)pts_ns;
    return XSF_ERR_UNSUPPORTED;
}

xsf_status dsp_present(dsp_display *d)
{
    (void)d;
    return XSF_ERR_UNSUPPORTED;
}

int dsp_poll(dsp_display *d)
{
    (void)d;
    return 1;
}

int dsp_paused(const dsp_display *d)
{
    (void)d;
    return 0;
}

void dsp_request_screenshot(dsp_display *d)
{
    (void)d;
}

int dsp_take_notice(dsp_display *d, char *buf, size_t cap)
{
    (void)d, (void)buf, (void)cap;
    return 0;
}

void dsp_set_overlay(dsp_display *d, int on)
{
    (void)d, (void)on;
}

xsf_status dsp_set_stats_text(dsp_display *d, int tile, const char *text)
{
    (void)d, (void)tile, (void)text;
    return XSF_ERR_UNSUPPORTED;
}

xsf_status dsp_tile_stats_get(const dsp_display *d, int tile, dsp_tile_stats *st)
{
    (void)d, (void)tile, (void)st;
    return XSF_ERR_UNSUPPORTED;
}

void dsp_size(const dsp_display *d, int *width, int *height)
{
    (void)d;
    *width = *height = 0;
}

xsf_status dsp_read_rgb(dsp_display *d, uint8_t *rgb, size_t cap)
{
    (void)d, (void)rgb, (void)cap;
    return XSF_ERR_UNSUPPORTED;
}
