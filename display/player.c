/* dsp_play and dsp_render_rgb (display.h): a sequence of pictures shown
 * at a fixed rate (picture i at start + delay + i / fps), and one picture
 * rendered offscreen. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "display.h"
#include "xsf_clock.h"

void dsp_play_options_init(dsp_play_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->fps = 25;
    opt->delay_ms = 100;
    opt->vsync = 1;
    xsf_colour_default(&opt->colour);
    opt->title = "xsflow";
}

int dsp_window_possible(void)
{
    const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    return dsp_have_window() && ((x && *x) || (wl && *wl));
}

static void say(const dsp_play_options *opt, const char *line)
{
    if (opt->message)
        opt->message(opt->message_ctx, line);
}

/* The next picture, with the caller's colour over the picture's own. */
static xsf_status next_picture(const dsp_player_source *src, const dsp_play_options *opt,
                               xsf_picture *pic, size_t *bytes, xsf_error *err)
{
    const xsf_status st = src->next(src->ctx, pic, bytes, err);
    if (st == XSF_OK && opt->colour.source != XSF_COLOUR_DEFAULT)
        pic->colour = opt->colour;
    return st;
}

xsf_status dsp_render_rgb(const xsf_picture *pic, dsp_convert convert, uint8_t **rgb, int *width,
                          int *height, xsf_error *err)
{
    *rgb = NULL;
    dsp_options dopt;
    dsp_options_init(&dopt);
    dopt.headless = 1;
    dopt.vsync = 0;
    dopt.convert = convert;
    dopt.width = *width = pic->fmt.width[0];
    dopt.height = *height = pic->fmt.height[0];
    dsp_display *d = NULL;
    xsf_error cerr = {0};
    if (dsp_create(&d, &dopt, &cerr) != XSF_OK)
        return xsf_error_set(err, cerr.status, "no offscreen rendering: %s", cerr.msg);
    const size_t n = (size_t)dopt.width * dopt.height * 3;
    xsf_status st = XSF_OK;
    if (!(*rgb = malloc(n)))
        st = xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    else if (dsp_submit(d, 0, pic, NULL, 0) != XSF_OK || dsp_present(d) != XSF_OK ||
             dsp_read_rgb(d, *rgb, n) != XSF_OK)
        st = xsf_error_set(err, XSF_ERR_IO, "%s", dsp_error(d));
    if (st != XSF_OK) {
        free(*rgb);
        *rgb = NULL;
    }
    dsp_destroy(d);
    return st;
}

/* A window of the picture's size, scaled down to fit 1600x900. */
static xsf_status open_window(dsp_display **d, const xsf_picture *pic, const dsp_play_options *opt,
                              xsf_error *err)
{
    dsp_options dopt;
    dsp_options_init(&dopt);
    dopt.title = opt->title;
    dopt.vsync = opt->vsync;
    dopt.convert = opt->convert;
    dopt.deep_colour = pic->fmt.depth[0] > 8;
    dopt.width = pic->fmt.width[0];
    dopt.height = pic->fmt.height[0];
    while (dopt.width > 1600 || dopt.height > 900)
        dopt.width /= 2, dopt.height /= 2;
    const char *labels[1] = {opt->name};
    dopt.labels = labels;
    return dsp_create(d, &dopt, err);
}

/* Presents until the picture due at `due` has had its time (the display
 * keeps a few pictures; one is enough here since decoding is faster than the
 * rate). */
static xsf_status present_until(dsp_display *d, int64_t due, const dsp_play_options *opt,
                                xsf_error *err)
{
    char notice[400];
    do {
        const int64_t t0 = dsp_now_ns();
        if (dsp_present(d) != XSF_OK)
            return xsf_error_set(err, XSF_ERR_IO, "%s", dsp_error(d));
        if (dsp_take_notice(d, notice, sizeof notice))
            say(opt, notice);
        /* Without vsync (or where the swap does not wait), do not spin. */
        if (opt->vsync && dsp_now_ns() - t0 < 1000000 && dsp_now_ns() < due)
            xsf_clock_sleep_ns(due - dsp_now_ns() < 2000000 ? due - dsp_now_ns() : 2000000);
    } while (opt->vsync && dsp_now_ns() < due && !dsp_poll(d));
    return XSF_OK;
}

/* The overlay's figures, once a second. */
typedef struct play_window {
    int64_t start;
    uint64_t frames, bytes;
} play_window;

static void overlay(dsp_display *d, play_window *w, const char *decoder)
{
    const int64_t now = dsp_now_ns();
    if (now - w->start < 1000000000)
        return;
    char text[160];
    const double secs = (double)(now - w->start) / 1e9;
    snprintf(text, sizeof text, "%.2f FPS\n%.1f MBIT/S\nDECODER %s", (double)w->frames / secs,
             (double)w->bytes * 8 / secs / 1e6, decoder);
    dsp_set_stats_text(d, 0, text);
    w->start = now;
    w->frames = 0;
    w->bytes = 0;
}

/* Shows the pictures of `src` until the window closes (or the end). */
static xsf_status play_loop(dsp_display *d, const dsp_player_source *src,
                            const dsp_play_options *opt, xsf_picture *pic, size_t bytes,
                            xsf_error *err)
{
    const int64_t period = (int64_t)(1e9 / opt->fps);
    int64_t start = dsp_now_ns() + (int64_t)opt->delay_ms * 1000000;
    play_window w = {dsp_now_ns(), 0, 0};
    uint64_t index = 0;
    int have = 1;
    while (!dsp_poll(d)) {
        if (dsp_paused(d)) {
            /* Time stands still: the schedule restarts where it stopped. */
            dsp_present(d);
            xsf_clock_sleep_ns(10000000);
            start = dsp_now_ns() - (int64_t)index * period;
            continue;
        }
        if (have) {
            if (dsp_submit(d, 0, pic, NULL, start + (int64_t)index * period) != XSF_OK)
                return xsf_error_set(err, XSF_ERR_IO, "%s", dsp_error(d));
            index++;
            w.bytes += bytes;
            w.frames++;
            have = 0;
        }
        if (present_until(d, start + (int64_t)(index - 1) * period, opt, err) != XSF_OK)
            return err->status;
        overlay(d, &w, src->decoder);
        if (src->done(src->ctx)) {
            if (!opt->loop) {
                /* The last picture stays until the window is closed. */
                while (!dsp_poll(d)) {
                    dsp_present(d);
                    xsf_clock_sleep_ns(opt->vsync ? 0 : 10000000);
                }
                return XSF_OK;
            }
            src->rewind(src->ctx);
        }
        const xsf_status st = next_picture(src, opt, pic, &bytes, err);
        if (st != XSF_OK)
            return st;
        have = 1;
    }
    return XSF_OK;
}

xsf_status dsp_play(const dsp_player_source *src, const dsp_play_options *opt, dsp_play_result *res,
                    xsf_error *err)
{
    memset(res, 0, sizeof *res);
    xsf_picture pic;
    size_t bytes = 0;
    xsf_status st = next_picture(src, opt, &pic, &bytes, err);
    if (st != XSF_OK)
        return st;
    dsp_display *d = NULL;
    if ((st = open_window(&d, &pic, opt, err)) != XSF_OK)
        return st;
    char line[512];
    snprintf(line, sizeof line,
             "%s: %dx%d %s %d-bit at %.3g fps (%s decoder); keys: space pause, f fullscreen, s "
             "screenshot, "
             "i statistics, q quit",
             opt->name, pic.fmt.width[0], pic.fmt.height[0],
             dsp_chroma_name(dsp_picture_chroma(&pic, NULL)), pic.fmt.depth[0], opt->fps,
             pic.memory == XSF_MEMORY_DEVICE ? "GPU, CUDA-GL interop" : "CPU");
    say(opt, line);
    st = play_loop(d, src, opt, &pic, bytes, err);
    res->opened = dsp_tile_stats_get(d, 0, &res->tile) == XSF_OK;
    dsp_destroy(d);
    return st;
}
