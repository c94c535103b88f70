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
    xsf_colour colour;
    /* CUDA compositor: the picture's planes in device memory, packed */
    uint8_t *dev;
    size_t dev_bytes, plane_off[3];
    /* ... or kept where the caller had them: a reference of the display's
     * own (kept.ref set), dropped by slot_release */
    xsf_picture kept;
    uint64_t read_seq; /* the last composition that read the picture (0: none) */
} dsp_slot;

/* Kept pictures given up while a composition may still read them: their
 * references are dropped once it is done (dsp_display.done_seq), without
 * waiting for it. */
#define DSP_FENCES 8
#define DSP_PENDING 256
typedef struct dsp_pending {
    xsf_picture pic;
    uint64_t seq;
} dsp_pending;

typedef struct dsp_tile {
    dsp_pacer pacer;
    dsp_slot slot[DSP_PACER_SLOTS];
    GLuint rgb_tex, rgb_fbo; /* the shown picture converted to R'G'B' (RGBA16, picture size) */
    int rgb_w, rgb_h;
    int converted; /* the pacer slot whose picture rgb_tex holds, -1 none */
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
    void *window; /* GLFWwindow */
    void *egl_display, *egl_context, *egl_surface;
    int fb_w, fb_h;                /* framebuffer size */
    int colour_bits;               /* bits per channel of the framebuffer */
    GLuint target_fbo, target_tex; /* headless: the offscreen framebuffer */
    int64_t frame_ns;              /* refresh period (vsync), 0 unknown */
    /* GL objects */
    GLuint vao, prog_convert, prog_blit, prog_text;
    GLint u_plane[3], u_nc, u_sub, u_scale, u_bias, u_matrix;
    GLint u_blit_img, u_blit_view, u_text_img, u_text_view;
    /* state */
    int paused, overlay, quit, fullscreen, want_shot;
    int win_x, win_y, win_w, win_h; /* windowed placement, to leave fullscreen */
    unsigned shots;
    char notice[320];
    void *cuda_stream; /* the display's own stream, for device pictures given without one */
    int compose;       /* the CUDA compositor converts and scales (dsp_convert) */
    GLuint compose_tex, compose_fbo; /* its RGBA16 texture, framebuffer-sized */
    int compose_w, compose_h;
    int compose_direct; /* offscreen, 8 bits: the kernels write target_tex itself */
    int compose_mapped; /* compose_res is mapped for CUDA (direct: between presents
                           that draw nothing with GL) */
    unsigned long long compose_surface;
    uint64_t compose_seq, done_seq; /* compositions enqueued, and known done */
    void *fence[DSP_FENCES];        /* event after composition n at n % DSP_FENCES */
    uint64_t fence_seq[DSP_FENCES];
    dsp_pending pending[DSP_PENDING];
    int npending;
    void *compose_res; /* the texture's cudaGraphicsResource */
    /* time spent (dsp_now_ns) in dsp_submit per tile and in dsp_present */
    uint64_t submit_ns[DSP_MAX_TILES], present_ns, presents;
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
