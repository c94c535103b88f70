/* play_jxs: decode a .jxs sequence and hand each picture to the display at
 * its time (frame i at start + delay + i / fps). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include "play.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "xsf_clock.h"

void play_options_init(play_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->fps = 25;
    opt->delay_ms = 100;
    opt->vsync = 1;
    xsf_colour_default(&opt->colour);
    opt->title = "xsflow";
}

int play_window_possible(void)
{
    const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    return dsp_have_window() && ((x && *x) || (wl && *wl));
}

/* ---- the decode loop: one picture at a time, host or device ---- */

typedef struct play_source {
    const uint8_t *data;
    size_t len, offset, last_bytes;
    unsigned long frame;
    jxs_file file;       /* the C decoder (host pictures) */
    xs_gpu_decoder *gpu; /* or the GPU decoder (device pictures) */
    char msg[XSF_ERRMSG_LEN + 64];
} play_source;

static xsf_status source_open(play_source *s, const uint8_t *data, size_t len, jxs_engine engine)
{
    memset(s, 0, sizeof *s);
    s->data = data;
    s->len = len;
    /* Device pictures need the interop; without it the C decoder's host
     * pictures are uploaded instead. */
    if (engine == JXS_ENGINE_AUTO)
        engine = xs_gpu_available() == XSF_OK && dsp_have_interop() ? JXS_ENGINE_GPU : JXS_ENGINE_CPU;
    if (engine == JXS_ENGINE_GPU) {
        if (!dsp_have_interop()) {
            snprintf(s->msg, sizeof s->msg, "this build has no CUDA-GL interop (use --cpu)");
            return XSF_ERR_UNSUPPORTED;
        }
        xsf_status st = xs_gpu_decoder_create(&s->gpu, 0, NULL);
        if (st != XSF_OK)
            snprintf(s->msg, sizeof s->msg, "no usable GPU (use --cpu): %s", xsf_status_name(st));
        return st;
    }
    xsf_status st = jxs_file_init(&s->file, data, len, JXS_ENGINE_CPU);
    if (st != XSF_OK)
        snprintf(s->msg, sizeof s->msg, "%s", jxs_file_error(&s->file));
    return st;
}

static void source_close(play_source *s)
{
    xs_gpu_decoder_destroy(s->gpu);
    if (!s->gpu)
        jxs_file_free(&s->file);
}

static int source_done(const play_source *s)
{
    return s->gpu ? s->offset >= s->len : jxs_file_done(&s->file);
}

static void source_rewind(play_source *s)
{
    s->offset = 0;
    s->frame = 0;
    s->file.offset = 0;
    s->file.frame = 0;
}

/* The next picture as the display takes it (planes valid until the next call). */
static xsf_status source_next(play_source *s, dsp_picture *pic)
{
    memset(pic, 0, sizeof *pic);
    int depth[XS_MAX_COMPONENTS] = {0};
    /* What the codestream says of its colour: R'G'B' after a reversible colour transform. */
    const size_t at = s->gpu ? s->offset : s->file.offset;
    xs_header h;
    if (xs_parse_header(s->data + at, s->len - at, &h, NULL) == XSF_OK && h.cpih == 1)
        xsf_colour_rgb(&pic->colour, XSF_COLOUR_CODESTREAM);
    if (s->gpu) {
        size_t consumed = 0;
        xsf_status st = xs_gpu_decode(s->gpu, s->data + s->offset, s->len - s->offset, &consumed);
        const xs_gpu_image *gi = st == XSF_OK ? xs_gpu_decoder_image(s->gpu) : NULL;
        if (st != XSF_OK || !gi) {
            snprintf(s->msg, sizeof s->msg, "frame %lu: %s", s->frame, xs_gpu_decoder_error(s->gpu));
            return st != XSF_OK ? st : XSF_ERR_INVALID;
        }
        pic->nc = gi->nc > 3 ? 3 : gi->nc;
        for (int c = 0; c < pic->nc; c++) {
            pic->width[c] = gi->width[c];
            pic->height[c] = gi->height[c];
            pic->pitch_bytes[c] = gi->pitch_bytes[c];
            pic->plane[c] = gi->plane[c];
            depth[c] = gi->depth[c];
        }
        pic->on_device = 1; /* ready on the decoder's stream, the default one */
        s->offset += consumed;
        s->last_bytes = consumed;
    } else {
        imgio_picture ip;
        const size_t before = s->file.offset;
        xsf_status st = jxs_file_decode(&s->file, &ip, NULL);
        if (st != XSF_OK) {
            snprintf(s->msg, sizeof s->msg, "%s", jxs_file_error(&s->file));
            return st;
        }
        pic->nc = ip.nc > 3 ? 3 : ip.nc;
        for (int c = 0; c < pic->nc; c++) {
            pic->width[c] = ip.width[c];
            pic->height[c] = ip.height[c];
            pic->pitch_bytes[c] = ip.pitch[c] * sizeof(uint16_t);
            pic->plane[c] = ip.plane[c];
            depth[c] = ip.depth[c];
        }
        s->last_bytes = s->file.offset - before;
    }
    pic->depth = depth[0];
    for (int c = 1; c < pic->nc; c++)
        if (depth[c] != depth[0]) {
            snprintf(s->msg, sizeof s->msg, "components of %d and %d bits cannot be shown", depth[0], depth[c]);
            return XSF_ERR_UNSUPPORTED;
        }
    s->frame++;
    return XSF_OK;
}

/* ---- playing ---- */

/* --colour over what the codestream says. */
static void take_colour(dsp_picture *pic, const play_options *opt)
{
    if (opt->colour.source != XSF_COLOUR_DEFAULT)
        pic->colour = opt->colour;
}

static int headless(const char *name, play_source *src, const play_options *opt)
{
    dsp_picture pic;
    do {
        if (source_done(src)) {
            cli_error(name, "has %lu frames; --frame %lu does not exist", src->frame, opt->frame);
            return 1;
        }
        if (source_next(src, &pic) != XSF_OK) {
            cli_error(name, "%s", src->msg);
            return 1;
        }
    } while (src->frame <= opt->frame);
    take_colour(&pic, opt);
    dsp_options dopt;
    dsp_options_init(&dopt);
    dopt.headless = 1;
    dopt.vsync = 0;
    dopt.convert = opt->convert;
    dopt.width = pic.width[0];
    dopt.height = pic.height[0];
    dsp_display *d = NULL;
    xsf_error err = {0};
    if (dsp_create(&d, &dopt, &err) != XSF_OK) {
        cli_error(name, "no offscreen rendering: %s", err.msg);
        return 1;
    }
    const size_t n = (size_t)dopt.width * dopt.height * 3;
    uint8_t *rgb = malloc(n);
    int rc = 1;
    if (!rgb)
        cli_error(name, "out of memory");
    else if (dsp_submit(d, 0, &pic, 0) != XSF_OK || dsp_present(d) != XSF_OK || dsp_read_rgb(d, rgb, n) != XSF_OK)
        cli_error(name, "%s", dsp_error(d));
    else if (dsp_write_ppm(opt->headless_ppm, rgb, dopt.width, dopt.height, &err) != XSF_OK)
        cli_error(opt->headless_ppm, "%s", err.msg);
    else
        rc = 0;
    if (rc == 0 && !opt->quiet) {
        char cname[32];
        printf("%s: frame %lu (%dx%d %s %d-bit, %s, %s decoder) -> %s\n", name, opt->frame, pic.width[0],
               pic.height[0], dsp_chroma_name(dsp_picture_chroma(&pic, NULL)), pic.depth,
               xsf_colour_name(&pic.colour, cname, sizeof cname), pic.on_device ? "GPU, interop" : "CPU",
               opt->headless_ppm);
    }
    free(rgb);
    dsp_destroy(d);
    return rc;
}

int play_jxs(const char *name, const uint8_t *data, size_t len, const play_options *opt)
{
    play_source src;
    if (source_open(&src, data, len, opt->engine) != XSF_OK) {
        cli_error(name, "%s", src.msg);
        return 1;
    }
    if (opt->headless_ppm) {
        const int rc = headless(name, &src, opt);
        source_close(&src);
        return rc;
    }
    dsp_picture pic;
    if (source_next(&src, &pic) != XSF_OK) {
        cli_error(name, "%s", src.msg);
        source_close(&src);
        return 1;
    }
    take_colour(&pic, opt);
    /* A window of the picture's size, scaled down to fit 1600x900. */
    dsp_options dopt;
    dsp_options_init(&dopt);
    dopt.title = opt->title;
    dopt.vsync = opt->vsync;
    dopt.convert = opt->convert;
    dopt.deep_colour = pic.depth > 8;
    dopt.width = pic.width[0];
    dopt.height = pic.height[0];
    while (dopt.width > 1600 || dopt.height > 900)
        dopt.width /= 2, dopt.height /= 2;
    const char *labels[1] = {name};
    dopt.labels = labels;
    dsp_display *d = NULL;
    xsf_error err = {0};
    if (dsp_create(&d, &dopt, &err) != XSF_OK) {
        cli_error(name, "%s", err.msg);
        source_close(&src);
        return 1;
    }
    if (!opt->quiet)
        printf("%s: %dx%d %s %d-bit at %.3g fps (%s decoder); keys: space pause, f fullscreen, s screenshot, "
               "i statistics, q quit\n",
               name, pic.width[0], pic.height[0], dsp_chroma_name(dsp_picture_chroma(&pic, NULL)), pic.depth,
               opt->fps, pic.on_device ? "GPU, CUDA-GL interop" : "CPU");
    const int64_t period = (int64_t)(1e9 / opt->fps);
    int64_t start = dsp_now_ns() + (int64_t)opt->delay_ms * 1000000, window_start = dsp_now_ns();
    uint64_t index = 0, bytes = 0, window_frames = 0;
    int rc = 0, have = 1;
    char notice[400];
    while (!dsp_poll(d)) {
        if (dsp_paused(d)) {
            /* Time stands still: the schedule restarts where it stopped. */
            dsp_present(d);
            xsf_clock_sleep_ns(10000000);
            start = dsp_now_ns() - (int64_t)index * period;
            continue;
        }
        if (have) {
            const int64_t pts = start + (int64_t)index * period;
            if (dsp_submit(d, 0, &pic, pts) != XSF_OK) {
                cli_error(name, "%s", dsp_error(d));
                rc = 1;
                break;
            }
            index++;
            bytes += src.last_bytes;
            window_frames++;
            have = 0;
        }
        /* Present until the submitted picture's time has come, then decode
         * the next one (the display keeps a few pictures; one is enough
         * here since decoding is faster than the rate). */
        const int64_t due = start + (int64_t)(index - 1) * period;
        do {
            const int64_t t0 = dsp_now_ns();
            if (dsp_present(d) != XSF_OK) {
                cli_error(name, "%s", dsp_error(d));
                rc = 1;
                break;
            }
            if (dsp_take_notice(d, notice, sizeof notice) && !opt->quiet)
                printf("%s\n", notice);
            /* Without vsync (or where the swap does not wait), do not spin. */
            if (opt->vsync && dsp_now_ns() - t0 < 1000000 && dsp_now_ns() < due)
                xsf_clock_sleep_ns(due - dsp_now_ns() < 2000000 ? due - dsp_now_ns() : 2000000);
        } while (opt->vsync && dsp_now_ns() < due && !dsp_poll(d));
        if (rc)
            break;
        const int64_t now = dsp_now_ns();
        if (now - window_start >= 1000000000) {
            dsp_tile_stats ts;
            dsp_tile_stats_get(d, 0, &ts);
            char text[160];
            const double secs = (double)(now - window_start) / 1e9;
            snprintf(text, sizeof text, "%.2f FPS\n%.1f MBIT/S\nDECODER %s", (double)window_frames / secs,
                     (double)bytes * 8 / secs / 1e6, src.gpu ? "GPU" : "CPU");
            dsp_set_stats_text(d, 0, text);
            window_start = now;
            window_frames = 0;
            bytes = 0;
        }
        if (source_done(&src)) {
            if (!opt->loop) {
                /* The last picture stays until the window is closed. */
                while (!dsp_poll(d)) {
                    dsp_present(d);
                    xsf_clock_sleep_ns(opt->vsync ? 0 : 10000000);
                }
                break;
            }
            source_rewind(&src);
        }
        if (source_next(&src, &pic) != XSF_OK) {
            cli_error(name, "%s", src.msg);
            rc = 1;
            break;
        }
        take_colour(&pic, opt);
        have = 1;
    }
    if (!opt->quiet) {
        dsp_tile_stats ts;
        if (dsp_tile_stats_get(d, 0, &ts) == XSF_OK)
            printf("%s: %llu pictures, %llu shown, %llu dropped late, %llu dropped (queue full)\n", name,
                   (unsigned long long)ts.submitted, (unsigned long long)ts.presented,
                   (unsigned long long)ts.dropped_late, (unsigned long long)ts.dropped_full);
    }
    dsp_destroy(d);
    source_close(&src);
    return rc;
}
