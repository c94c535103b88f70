/* xsflow play: show a .jxs file in a window (or render one frame offscreen). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "image_io.h"
#include "play.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: xsflow play FILE.jxs [options]\n"
               "\n"
               "Shows the pictures of a .jxs file in a window at a fixed rate. Decodes on the\n"
               "GPU and hands the pictures to OpenGL in GPU memory (CUDA-GL interop) where a\n"
               "GPU is usable, else with the C decoder. Keys: space pause, f fullscreen,\n"
               "s screenshot (.ppm), i statistics overlay, q quit.\n"
               "\n"
               "options:\n"
               "  --loop               start again at the end\n"
               "  --fps N              pictures per second (default 25)\n"
               "  --delay MS           playout delay before the first picture (default 100)\n"
               "  --no-vsync           show pictures as they are decoded, not paced\n"
               "  --convert WHERE      auto (default), shader (OpenGL) or cuda: where pictures become RGB\n"
               "  --colour C[,RANGE]   601, 709, 2020, rgb or gbr; full or narrow (default 709,narrow;\n"
               "                       rgb and gbr take the components as they are: full)\n"
               "  --headless OUT.ppm   no window: render one picture offscreen (EGL) into OUT.ppm\n"
               "  --frame N            with --headless: which picture (default 0)\n"
               "  --cpu, --gpu         choose the decoder\n"
               "  -q, --quiet          print nothing but errors\n");
}

int cmd_play(int argc, char **argv)
{
    play_options opt;
    play_options_init(&opt);
    const char *in = NULL;
    int frame_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        long n;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--loop")) {
            opt.loop = 1;
        } else if (!strcmp(arg, "--no-vsync")) {
            opt.vsync = 0;
        } else if (!strcmp(arg, "--convert")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (dsp_convert_parse(v, &opt.convert) != XSF_OK) {
                cli_error(v, "--convert takes auto, shader or cuda");
                return 2;
            }
        } else if (!strcmp(arg, "--cpu")) {
            opt.engine = JXS_ENGINE_CPU;
        } else if (!strcmp(arg, "--gpu")) {
            opt.engine = JXS_ENGINE_GPU;
        } else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
            opt.quiet = 1;
        } else if (!strcmp(arg, "--fps")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            char *end;
            opt.fps = strtod(v, &end);
            if (*end || !(opt.fps >= 0.1 && opt.fps <= 10000)) {
                cli_error(v, "--fps takes a rate of 0.1 to 10000");
                return 2;
            }
        } else if (!strcmp(arg, "--delay")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (cli_parse_long(v, 0, 60000, &n)) {
                cli_error(v, "--delay takes milliseconds, 0 to 60000");
                return 2;
            }
            opt.delay_ms = (int)n;
        } else if (!strcmp(arg, "--colour") || !strcmp(arg, "--color")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (dsp_colour_parse(v, &opt.colour) != XSF_OK) {
                cli_error(v, "--colour takes 601, 709, 2020, rgb or gbr, optionally ',full' or ',narrow'");
                return 2;
            }
        } else if (!strcmp(arg, "--headless")) {
            if (!(opt.headless_ppm = cli_option_value(argc, argv, &i)))
                return 2;
        } else if (!strcmp(arg, "--frame")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                return 2;
            if (cli_parse_long(v, 0, 1000000000, &n)) {
                cli_error(v, "--frame takes a picture number from 0");
                return 2;
            }
            opt.frame = (unsigned long)n;
            frame_given = 1;
        } else if (arg[0] == '-' && arg[1]) {
            cli_error(arg, "unknown option of 'xsflow play' (see --help)");
            return 2;
        } else if (!in) {
            in = arg;
        } else {
            cli_error(arg, "one file only (see --help)");
            return 2;
        }
    }
    if (!in) {
        usage(stderr);
        return 2;
    }
    if (frame_given && !opt.headless_ppm) {
        cli_error("--frame", "goes with --headless");
        return 2;
    }
    if (!dsp_have_gl()) {
        cli_error("play", "this build has no display (install libepoxy-dev, libegl-dev and libglfw3-dev, "
                          "then configure again)");
        return 1;
    }
    uint8_t *data = NULL;
    size_t len = 0;
    xsf_error err = {0};
    if (imgio_read_file(in, &data, &len, &err) != XSF_OK) {
        cli_error(in, "%s", err.msg);
        return 1;
    }
    opt.title = in;
    const int rc = play_jxs(in, data, len, &opt);
    free(data);
    return rc;
}
