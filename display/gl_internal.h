/* Internal to the GL build of display/: the display's state, shared by the
 * context code (context.c: GLFW window or EGL offscreen) and the drawing
 * (display.c). */
#ifndef XSF_DISPLAY_GL_INTERNAL_H
#define XSF_DISPLAY_GL_INTERNAL_H

#include <epoxy/gl.h>

#include "display.h"

/* One picture held by a tile: a texture per plane (GL_R16, plane size). */
typedef struct dsp_slot {
    GLuint tex[3];
    void *cuda[3]; /* cudaGraphicsResource of each texture, once a device picture came */
    int nc, depth, width[3], height[3];
    dsp_chroma chroma;
    dsp_colour colour;
} dsp_slot;

typedef struct dsp_tile {
    dsp_pacer pacer;
    dsp_slot slot[DSP_PACER_SLOTS];
    GLuint rgb_tex, rgb_fbo; /* the shown picture converted to R'G'B' (RGBA16, picture size) */
    int rgb_w, rgb_h;
    int converted;           /* the pacer slot whose picture rgb_tex holds, -1 none */
    char label[64];
    char stats[256];
    GLuint text_tex;
    int text_w, text_h, text_dirty;
    uint64_t overlay_presented; /* pacer counts the text was made with */
    uint64_t overlay_dropped;
} dsp_tile;

struct dsp_display {
    dsp_options opt;
    xsf_error err;
    int tiles;
    dsp_tile tile[DSP_MAX_TILES];
    /* context */
    void *window;       /* GLFWwindow */
    void *egl_display, *egl_context, *egl_surface;
    int fb_w, fb_h;     /* framebuffer size */
    int colour_bits;    /* bits per channel of the framebuffer */
    GLuint target_fbo, target_tex; /* headless: the offscreen framebuffer */
    int64_t frame_ns;   /* refresh period (vsync), 0 unknown */
    /* GL objects */
    GLuint vao, prog_convert, prog_blit, prog_text;
    GLint u_plane[3], u_nc, u_sub, u_scale, u_bias, u_matrix;
    GLint u_blit_img, u_blit_view, u_text_img, u_text_view;
    /* state */
    int paused, overlay, quit, fullscreen, want_shot;
    int win_x, win_y, win_w, win_h; /* windowed placement, to leave fullscreen */
    unsigned shots;
    char notice[320];
};

/* context.c */
xsf_status dsp_context_create(dsp_display *d);
void dsp_context_destroy(dsp_display *d);
void dsp_context_swap(dsp_display *d);
void dsp_context_poll(dsp_display *d);
void dsp_context_toggle_fullscreen(dsp_display *d);
/* Binds the framebuffer that shows (window) or stands for the window (headless). */
void dsp_context_bind_target(dsp_display *d);

#endif
