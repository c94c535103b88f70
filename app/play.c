/* play_jxs: a .jxs sequence shown by the display's player (dsp_play) from
 * the service's .jxs source; this prints what they report. */
#include "play.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service.h"
#include "xsf_cli.h"

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

/* Picture opt->frame rendered offscreen into opt->headless_ppm. */
static int headless(const char *name, svc_jxs_source *src, const play_options *opt)
{
    xsf_picture pic;
    size_t bytes;
    xsf_error err = {0};
    do {
        if (svc_jxs_source_done(src)) {
            cli_error(name, "has %lu frames; --frame %lu does not exist",
                      svc_jxs_source_frames(src), opt->frame);
            return 1;
        }
        if (svc_jxs_source_next(src, &pic, &bytes, &err) != XSF_OK) {
            cli_error(name, "%s", err.msg);
            return 1;
        }
    } while (svc_jxs_source_frames(src) <= opt->frame);
    if (opt->colour.source != XSF_COLOUR_DEFAULT)
        pic.colour = opt->colour;
    uint8_t *rgb;
    int w, h;
    if (dsp_render_rgb(&pic, opt->convert, &rgb, &w, &h, &err) != XSF_OK) {
        cli_error(name, "%s", err.msg);
        return 1;
    }
    const int rc = dsp_write_ppm(opt->headless_ppm, rgb, w, h, &err) != XSF_OK;
    free(rgb);
    if (rc) {
        cli_error(opt->headless_ppm, "%s", err.msg);
        return 1;
    }
    if (!opt->quiet) {
        char cname[32];
        printf("%s: frame %lu (%dx%d %s %d-bit, %s, %s decoder) -> %s\n", name, opt->frame,
               pic.fmt.width[0], pic.fmt.height[0], dsp_chroma_name(dsp_picture_chroma(&pic, NULL)),
               pic.fmt.depth[0], xsf_colour_name(&pic.colour, cname, sizeof cname),
               pic.memory == XSF_MEMORY_DEVICE ? "GPU, interop" : "CPU", opt->headless_ppm);
    }
    return 0;
}

static void print_line(void *ctx, const char *line)
{
    (void)ctx;
    printf("%s\n", line);
}

int play_jxs(const char *name, const uint8_t *data, size_t len, const play_options *opt)
{
    svc_jxs_source *src;
    xsf_error err = {0};
    if (svc_jxs_source_open(&src, data, len, opt->engine, &err) != XSF_OK) {
        cli_error(name, "%s", err.msg);
        return 1;
    }
    int rc;
    if (opt->headless_ppm) {
        rc = headless(name, src, opt);
    } else {
        dsp_play_options po;
        dsp_play_options_init(&po);
        po.name = name;
        po.title = opt->title;
        po.loop = opt->loop;
        po.fps = opt->fps;
        po.delay_ms = opt->delay_ms;
        po.vsync = opt->vsync;
        po.convert = opt->convert;
        po.colour = opt->colour;
        po.message = opt->quiet ? NULL : print_line;
        const dsp_player_source ps = svc_jxs_source_player(src);
        dsp_play_result res;
        rc = dsp_play(&ps, &po, &res, &err) != XSF_OK;
        if (rc)
            cli_error(name, "%s", err.msg);
        if (res.opened && !opt->quiet)
            printf("%s: %llu pictures, %llu shown, %llu dropped late, %llu dropped (queue full)\n",
                   name, (unsigned long long)res.tile.submitted,
                   (unsigned long long)res.tile.presented,
                   (unsigned long long)res.tile.dropped_late,
                   (unsigned long long)res.tile.dropped_full);
    }
    svc_jxs_source_close(src);
    return rc;
}
