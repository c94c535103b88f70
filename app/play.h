/* Showing a .jxs sequence with display/: used by `xsflow play` and, where
 * a window can open, by `xsflow demo`. The pictures come from the service's
 * .jxs source (service.h), the display's player (dsp_play) shows them. */
#ifndef XSF_APP_PLAY_H
#define XSF_APP_PLAY_H

#include <stddef.h>
#include <stdint.h>

#include "display.h"
#include "jxs_file.h"

typedef struct play_options {
    jxs_engine engine;        /* AUTO: GPU decoder (device pictures, interop) where usable */
    int loop;                 /* start again at the end */
    double fps;               /* presentation rate (the codestream does not carry one) */
    int delay_ms;             /* playout delay before the first picture */
    int vsync;                /* 0: show pictures as they are decoded */
    dsp_convert convert;      /* where pictures become R'G'B' (display.h) */
    xsf_colour colour;        /* --colour; default: R'G'B' for RCT codestreams, else 709,narrow */
    const char *headless_ppm; /* render frame `frame` offscreen into this .ppm, no window */
    unsigned long frame;
    const char *title;
    int quiet;
} play_options;

void play_options_init(play_options *opt);

/* Whether a window can be expected to open (a GL build with GLFW and a
 * DISPLAY or WAYLAND_DISPLAY in the environment). */
int play_window_possible(void);

/* Plays the codestreams data[0..len) (`name` for messages). Prints errors
 * as `xsflow: NAME: ...`; returns the program's exit status (0 ok, 1 error). */
int play_jxs(const char *name, const uint8_t *data, size_t len, const play_options *opt);

#endif
