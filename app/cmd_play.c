/* xsflow play: show a .jxs file in a window (or render one frame offscreen). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "service.h"
#include "xsf_cli.h"

static const char about[] =
    "Shows the pictures of a .jxs file in a window at a fixed rate. Decodes on the\n"
    "GPU and hands the pictures to OpenGL in GPU memory (CUDA-GL interop) where a\n"
    "GPU is usable, else with the C decoder. Keys: space pause, f fullscreen,\n"
    "s screenshot (.ppm), i statistics overlay, q quit.\n";

static void print_line(void *ctx, const char *line)
{
    (void)ctx;
    printf("%s\n", line);
}

/* What was shown (after a failure: the window's counts, where it opened). */
static void print_result(const char *in, const svc_play_options *o, const svc_play_result *r,
                         int failed)
{
    char cname[32];
    if (o->headless_ppm && !failed)
        printf("%s: frame %lu (%dx%d %s %d-bit, %s, %s decoder) -> %s\n", in, o->frame,
               r->format.width[0], r->format.height[0], dsp_chroma_name(r->chroma),
               r->format.depth[0], xsf_colour_name(&r->colour, cname, sizeof cname),
               r->device ? "GPU, interop" : "CPU", o->headless_ppm);
    else if (!o->headless_ppm && r->window.opened)
        printf("%s: %llu pictures, %llu shown, %llu dropped late, %llu dropped (queue full)\n", in,
               (unsigned long long)r->window.tile.submitted,
               (unsigned long long)r->window.tile.presented,
               (unsigned long long)r->window.tile.dropped_late,
               (unsigned long long)r->window.tile.dropped_full);
}

int cmd_play(int argc, char **argv)
{
    svc_play_options opt;
    svc_play_options_init(&opt);
    const char *in = NULL;
    int frame_given = 0, frame = 0, quiet = 0;
    xsf_rate fps = {25, 1};
    const cli_option options[] = {
        CLI_OPT("loop", 0, CLI_FLAG, &opt.play.loop, NULL, "start again at the end"),
        CLI_OPT("fps", 0, CLI_RATE, &fps, "RATE",
                "pictures per second: N, N/D, N:D or a decimal (default 25)", .lo = 0.1,
                .hi = 10000),
        CLI_OPT("delay", 0, CLI_INT, &opt.play.delay_ms, "MS",
                "playout delay before the first picture (default 100)", .lo = 0, .hi = 60000),
        CLI_OPT("no-vsync", 0, CLI_SET, &opt.play.vsync, NULL,
                "show pictures as they are decoded, not paced", .value = 0),
        CLI_OPT("convert", 0, CLI_CHOICE, &opt.play.convert, "WHERE",
                "auto (default), shader (OpenGL) or cuda: where pictures become RGB",
                .choices = "auto|shader|cuda"),
        CLI_OPT("colour", 0, CLI_COLOUR, &opt.play.colour, "C",
                "what the components are: " XSF_COLOUR_WORDS ";\n"
                "default 709 (narrow), or rgb for codestreams with the reversible\n"
                "colour transform; the same words and picture as decode's .ppm"),
        CLI_OPT("color", 0, CLI_COLOUR, &opt.play.colour, "C", NULL, .flags = CLI_HIDDEN),
        CLI_OPT("headless", 0, CLI_STRING, &opt.headless_ppm, "OUT.ppm",
                "no window: render one picture offscreen (EGL) into OUT.ppm"),
        CLI_OPT("frame", 0, CLI_INT, &frame, "N", "with --headless: which picture (default 0)",
                .lo = 0, .hi = 1000000000, .given = &frame_given),
        CLI_OPT("cpu", 0, CLI_SET, &opt.engine, NULL, "decode with the C decoder",
                .value = JXS_ENGINE_CPU),
        CLI_OPT("gpu", 0, CLI_SET, &opt.engine, NULL, "decode on the GPU", .value = JXS_ENGINE_GPU),
        CLI_OPT("quiet", 'q', CLI_FLAG, &quiet, NULL, "print nothing but errors"),
        CLI_TABLE_END};
    const int r = cli_parse_input("play", "FILE.jxs [options]", about, options, &in, argc, argv);
    if (r >= 0)
        return r;
    if (frame_given && !opt.headless_ppm) {
        cli_error("--frame", "goes with --headless");
        return 2;
    }
    opt.play.fps = xsf_rate_value(fps);
    opt.frame = (unsigned long)frame;
    opt.play.name = opt.play.title = in;
    opt.play.message = quiet ? NULL : print_line;
    svc_play_result res;
    svc_failure f;
    const int rc = svc_play_file(in, &opt, &res, &f) != XSF_OK;
    if (rc)
        cli_error(f.subject, "%s", f.err.msg);
    if (!quiet)
        print_result(in, &opt, &res, rc);
    return rc;
}
