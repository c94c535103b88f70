/* xsflow display: decoded pictures shown in an OpenGL window (GLFW) or
 * rendered offscreen (EGL, no window system), one stream or a multiviewer
 * of tiles, each paced by its own clock.
 *
 * A picture in CUDA device memory reaches its GL textures through CUDA-GL
 * interop (a copy device -> texture on the caller's stream, no host round
 * trip); a picture in host memory is uploaded with glTexSubImage2D. One R16
 * texture per plane; a fragment shader converts Y'CbCr (4:2:0, 4:2:2,
 * 4:4:4, 8..16 bits, BT.601/709/2020, narrow or full range), R'G'B' and
 * gray to the window's R'G'B'.
 *
 * Threads: a display and every call on it belong to the thread that
 * created it (GL contexts are per thread). dsp_present may block until the
 * next vertical blank when vsync is on; nothing else waits for the screen.
 *
 * CUDA devices: the display's CUDA work (interop, the compositor) runs on
 * the device current on its thread when it is created, which must be the
 * device of the pictures it is given; no call changes the current device
 * (xsf_cuda_device.h).
 *
 * The GL-free parts (colour conversion in C, the RTP clock, the pacing of
 * a tile, the grid layout) are declared here too: they are what the GL
 * path is tested against, and they build without any GL library. */
#ifndef XSF_DISPLAY_H
#define XSF_DISPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "pipeline.h"
#include "xsf.h"
#include "xsf_colour.h"
#include "xsf_picture.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DSP_MAX_TILES 64

/* ---- pictures ----
 *
 * The display shows xsf_picture (common/include/xsf_picture.h): XSF_PLANAR_U16
 * samples at depth[0] bits (8..16, taken for every plane), in host memory
 * (host or pinned) or in CUDA device memory (XSF_MEMORY_DEVICE). Plane 0
 * is full size; planes 1 and 2 may be subsampled by 2 horizontally (4:2:2)
 * or both ways (4:2:0), their sizes rounded up. nc is 1 (gray), 3, or 4 (a
 * fourth plane, alpha, is ignored); strides are even. The picture's colour
 * (common/include/xsf_colour.h, the vocabulary of --colour; XSF_COLOUR_DEFAULT:
 * BT.709 narrow range) is converted to R'G'B' with the coefficients of
 * xsf_rgb_transform_make by the C reference, the shader and the CUDA
 * compositor alike, as decode's .ppm writer converts. */

typedef enum dsp_chroma {
    DSP_CHROMA_INVALID = 0,
    DSP_CHROMA_GRAY,
    DSP_CHROMA_420,
    DSP_CHROMA_422,
    DSP_CHROMA_444,
} dsp_chroma;

/* The chroma format the plane sizes give, or INVALID (and why in err). */
dsp_chroma dsp_picture_chroma(const xsf_picture *pic, xsf_error *err);
const char *dsp_chroma_name(dsp_chroma c);

/* The C reference of the shader's conversion: `pic` (host memory) to 8-bit
 * R'G'B' interleaved, rows top to bottom, width[0] x height[0]. Chroma is
 * upsampled by replication (sample x/sx, y/sy), as the shader does. */
xsf_status dsp_convert_rgb8(const xsf_picture *pic, uint8_t *rgb, size_t cap, xsf_error *err);

/* Writes 8-bit R'G'B' as a binary PPM (P6). */
xsf_status dsp_write_ppm(const char *path, const uint8_t *rgb, int width, int height,
                         xsf_error *err);

/* ---- clock: RTP timestamps to local time ---- */

/* Maps the 32-bit RTP timestamps of one stream (a `rate` Hz clock, 90000
 * for video) to local nanoseconds: timestamps are unwrapped to 64 bits, and
 * local = media time + offset + delay, where the offset is the smallest
 * (arrival - media time) seen so far, so that jitter never pulls a picture
 * earlier than its fastest-arriving peers. A jump of more than 10 s either
 * way (a restarted sender) re-anchors the clock. */
typedef struct dsp_clock {
    uint32_t rate;
    int64_t delay_ns;
    int anchored;
    uint32_t last_ts;
    int64_t ext_ts;    /* unwrapped timestamp of last_ts */
    int64_t offset_ns; /* min(arrival - media time) */
    uint64_t reanchors;
} dsp_clock;

void dsp_clock_init(dsp_clock *clk, uint32_t rate, int delay_ms);
/* The local presentation time of a picture with RTP timestamp `ts` whose
 * first packet arrived at `arrival_ns`, both on the display's clock
 * (dsp_now_ns). A packet-clock time of the pipeline (pl_times) is
 * converted first (xsf_clock_wall_to_mono). */
int64_t dsp_clock_map(dsp_clock *clk, uint32_t ts, int64_t arrival_ns);

/* The display's clock: the monotonic clock (xsf_clock_mono_ns, ns), the
 * clock of every presentation time (pts_ns) and dsp_clock_map. Not the
 * pipeline's packet clock. */
int64_t dsp_now_ns(void);

/* ---- pacing of one tile ---- */

/* A tile keeps up to DSP_PACER_SLOTS pictures waiting for their time.
 * At each presentation at time `deadline` (when the next frame reaches the
 * screen), the newest waiting picture whose time has come is shown; the
 * older ones that were due too missed their slot and are dropped. A
 * picture pushed into a full tile evicts the oldest waiting one (dropped
 * too: the policy is "drop the oldest and count it"). With no vsync, time
 * is ignored: the newest picture is shown at once. */
#define DSP_PACER_SLOTS 4

typedef struct dsp_pacer {
    int64_t pts[DSP_PACER_SLOTS];
    uint64_t seq[DSP_PACER_SLOTS]; /* push order, 0 = empty */
    int shown;                     /* slot on screen, -1 none */
    uint64_t next_seq;
    uint64_t pushed, presented, dropped_late, dropped_full;
} dsp_pacer;

void dsp_pacer_init(dsp_pacer *p);
/* The slot a new picture with time `pts` goes to (never the shown one);
 * *evicted is 1 when a waiting picture was dropped to make room. */
int dsp_pacer_push(dsp_pacer *p, int64_t pts, int *evicted);
/* The slot to show from now on (a new one, or -1 to keep what is shown). */
int dsp_pacer_pick(dsp_pacer *p, int64_t deadline, int paced);
/* Forgets every waiting picture without counting drops (pause). */
void dsp_pacer_flush(dsp_pacer *p);

/* ---- multiviewer layout ---- */

typedef struct dsp_rect {
    int x, y, w, h; /* x, y: top-left, in pixels, y downwards */
} dsp_rect;

/* The grid for `n` tiles of pictures of aspect `aspect` (width / height) in
 * a window of win_w x win_h: the columns and rows that show the pictures
 * largest (fewer rows on a tie). */
void dsp_layout_grid(int n, int win_w, int win_h, double aspect, int *cols, int *rows);
/* The cell of tile i in that grid (row-major), and the picture's rectangle
 * inside a cell (aspect kept, centred). */
dsp_rect dsp_layout_cell(int i, int cols, int rows, int win_w, int win_h);
dsp_rect dsp_layout_fit(dsp_rect cell, int pic_w, int pic_h);

/* ---- the display ---- */

/* Where pictures become R'G'B' (device pictures reach the GL textures
 * through CUDA-GL interop either way):
 *   DSP_CONVERT_SHADER  a fragment shader converts each picture into a
 *                       texture, and a second pass scales it into its tile;
 *   DSP_CONVERT_CUDA    a CUDA kernel converts and scales every tile into one
 *                       texture (the same arithmetic), GL copies it to the
 *                       framebuffer and draws the overlay: for GPUs whose
 *                       graphics pipeline is a small part of the chip (an
 *                       H100 shades fragments on 2 of its 66 TPCs);
 *   DSP_CONVERT_AUTO    CUDA where the build has the interop and a CUDA
 *                       device is usable, else the shader. */
typedef enum dsp_convert { DSP_CONVERT_AUTO = 0, DSP_CONVERT_SHADER, DSP_CONVERT_CUDA } dsp_convert;

/* "auto", "shader" or "cuda"; XSF_ERR_ARG otherwise. */
xsf_status dsp_convert_parse(const char *text, dsp_convert *out);

typedef struct dsp_options {
    const char *title;         /* window title */
    int tiles;                 /* 1..DSP_MAX_TILES */
    const char *const *labels; /* `tiles` labels shown on the tiles, or NULL */
    int width, height;         /* window size (0: 1280x720), or the offscreen size */
    int vsync;                 /* 1: wait for vertical blank, pace by time; 0: show as they come */
    int headless;    /* 1: EGL offscreen (no window system), read back with dsp_read_rgb */
    int deep_colour; /* 1: ask for a 10-bit framebuffer where the visual offers one */
    const char *screenshot_prefix; /* 's' writes PREFIX-NNNN.ppm (NULL: "xsflow") */
    dsp_convert convert;
} dsp_options;

void dsp_options_init(dsp_options *opt);

typedef struct dsp_display dsp_display;

/* Creates the window (or the offscreen context) and its GL objects. Fails
 * with XSF_ERR_UNSUPPORTED in a build without GL, XSF_ERR_IO where no
 * display or EGL device can be opened; err says why. */
xsf_status dsp_create(dsp_display **d, const dsp_options *opt, xsf_error *err);
void dsp_destroy(dsp_display *d);
const char *dsp_error(const dsp_display *d);

/* Whether this build has GL (window and/or headless) and CUDA interop. */
int dsp_have_gl(void);
int dsp_have_window(void);
int dsp_have_interop(void);
/* Whether a window can be expected to open: a build with windows (GLFW)
 * and DISPLAY or WAYLAND_DISPLAY set, not empty. */
int dsp_window_possible(void);

/* Hands a picture to tile `tile`, to be shown at `pts_ns` (dsp_now_ns
 * clock; ignored without vsync). The samples are copied into the tile's
 * textures before the call returns (host pictures) or in order on
 * `cuda_stream` (device pictures, the cudaStream_t they are ready on: the
 * caller may reuse the planes for work enqueued later on that stream; with
 * no stream, the picture must be ready now, and the copy is done, on the
 * display's own CUDA stream, before the call returns). A reference-counted
 * device picture (pic->ref set) shown by the CUDA compositor is kept, not
 * copied: the display takes a reference of its own, dropped on its thread
 * once the picture's slot is reused and no composition reads it, or when
 * the display is destroyed. The caller's reference stays the caller's, on
 * failure too. Textures are allocated when a tile's format changes, never
 * per picture. */
xsf_status dsp_submit(dsp_display *d, int tile, const xsf_picture *pic, void *cuda_stream,
                      int64_t pts_ns);

/* Picks each tile's picture for the frame that reaches the screen next,
 * draws the tiles (and the labels and statistics when the overlay is on)
 * and presents: with vsync this blocks until the vertical blank. */
xsf_status dsp_present(dsp_display *d);

/* Window events since the last call (keys: space pause, f fullscreen,
 * s screenshot, i statistics overlay, q or Escape quit). Returns 1 when the
 * user asked to quit (or closed the window), else 0. Headless: always 0. */
int dsp_poll(dsp_display *d);
int dsp_paused(const dsp_display *d);
/* Writes a screenshot at the next dsp_present, as the 's' key does. */
void dsp_request_screenshot(dsp_display *d);
/* A message for the user about something a key did ("screenshot: PATH"),
 * once: 1 and the text in buf, or 0 when there is none. */
int dsp_take_notice(dsp_display *d, char *buf, size_t cap);
void dsp_set_overlay(dsp_display *d, int on);

/* Statistics text of a tile for the overlay (fps, Mbit/s, loss, latency...:
 * whatever the caller measures; lines split at '\n'). The display adds its
 * own line of shown and dropped pictures. */
xsf_status dsp_set_stats_text(dsp_display *d, int tile, const char *text);

typedef struct dsp_tile_stats {
    uint64_t submitted, presented, dropped_late, dropped_full;
    /* Time (dsp_now_ns's clock) in dsp_submit for this tile (the copy into its textures),
     * and in dsp_present for the whole display (conversion, drawing, swap),
     * with the number of presents: where the display thread's time goes. */
    uint64_t submit_ns, present_ns, presents;
} dsp_tile_stats;
xsf_status dsp_tile_stats_get(const dsp_display *d, int tile, dsp_tile_stats *st);

/* The size of what dsp_read_rgb returns (the framebuffer). */
void dsp_size(const dsp_display *d, int *width, int *height);
/* What the last dsp_present showed, as 8-bit R'G'B', rows top to bottom;
 * `cap` must hold width * height * 3 bytes. Headless displays keep the
 * frame until the next dsp_present; a window's back buffer is undefined
 * after the swap (the 's' key reads it before). */
xsf_status dsp_read_rgb(dsp_display *d, uint8_t *rgb, size_t cap);

/* ---- a player: a sequence of pictures at a fixed rate ---- */

/* Where dsp_play takes its pictures from (a decoder of a file, say). */
typedef struct dsp_player_source {
    void *ctx;
    /* The next picture (a view: planes valid until the next call; device
     * pictures ready now); *bytes: its coded size, for the overlay. */
    xsf_status (*next)(void *ctx, xsf_picture *pic, size_t *bytes, xsf_error *err);
    int (*done)(void *ctx);    /* 1 once the last picture has been taken */
    void (*rewind)(void *ctx); /* back to the first picture */
    const char *decoder;       /* "GPU" or "CPU": the overlay says which decodes */
} dsp_player_source;

typedef struct dsp_play_options {
    const char *name;  /* the tile's label, and what messages name */
    const char *title; /* the window's title */
    int loop;          /* start again at the end */
    double fps;        /* presentation rate */
    int delay_ms;      /* playout delay before the first picture */
    int vsync;         /* 0: show pictures as they are decoded */
    dsp_convert convert;
    xsf_colour colour; /* over each picture's own, unless its source is XSF_COLOUR_DEFAULT */
    /* Lines for the user, in order (what the keys do, notices such as a
     * screenshot's path), without their newline; NULL: none. */
    void (*message)(void *ctx, const char *line);
    void *message_ctx;
} dsp_play_options;

/* fps 25, delay 100 ms, vsync on, the default colour, title "xsflow". */
void dsp_play_options_init(dsp_play_options *opt);

/* What a dsp_play did: opened 1 once the window was open, and then the
 * tile's counts at the end. */
typedef struct dsp_play_result {
    int opened;
    dsp_tile_stats tile;
} dsp_play_result;

/* Opens a window of the first picture's size (halved until it fits
 * 1600x900) and shows picture i at start + delay + i / fps (as they come
 * without vsync), the schedule held while paused; at the end the last
 * picture stays until the window is closed, or with loop the source starts
 * again. Returns when the user closes the window (XSF_OK) or at the first
 * failure of the source or the display (err says why). Blocks; the calling
 * thread owns the window. */
xsf_status dsp_play(const dsp_player_source *src, const dsp_play_options *opt, dsp_play_result *res,
                    xsf_error *err);

/* One picture rendered offscreen (EGL) at its size, as 8-bit R'G'B' rows
 * top to bottom in *rgb (malloc'd, the caller frees; NULL on failure). */
xsf_status dsp_render_rgb(const xsf_picture *pic, dsp_convert convert, uint8_t **rgb, int *width,
                          int *height, xsf_error *err);

/* ---- the display as a sink of the pipeline ---- */

/* A display run by a thread of its own (which owns the GL context), fed by
 * the pipeline: each tile's sink takes the frames of one stream, shows each
 * at the time its RTP timestamp gives after a fixed playout delay (vsync),
 * or as they come (no vsync), and releases it once its samples are in the
 * textures. Device pictures go through CUDA-GL interop where it is built. */
typedef struct dsp_view dsp_view;
typedef struct dsp_view_options {
    dsp_options display; /* tiles, labels, vsync, headless, size, title */
    int delay_ms;        /* playout delay (default 40) */
    /* Per tile: --colour, or the SDP's; with source XSF_COLOUR_DEFAULT (nothing
     * said) R'G'B' for RCT codestreams (Cpih 1, as decode writes them), else
     * BT.709 narrow range. */
    xsf_colour colour[DSP_MAX_TILES];
    const char *headless_ppm; /* headless: the last picture shown, written at stop */
} dsp_view_options;
void dsp_view_options_init(dsp_view_options *opt);
/* Starts the thread and creates the window or offscreen context (errors
 * here: no display, no GL). */
xsf_status dsp_view_start(dsp_view **v, const dsp_view_options *opt, xsf_error *err);
/* The sink of tile `tile`; device_pictures: the pipeline decodes on a GPU
 * (pictures stay in device memory when interop is built). */
pl_sink dsp_view_sink(dsp_view *v, int tile, int device_pictures);
/* Statistics text of a tile's overlay (any thread). */
void dsp_view_set_stats(dsp_view *v, int tile, const char *text);
/* The user closed the window or pressed q. */
int dsp_view_quit_requested(dsp_view *v);
/* After the pipeline's streams are finished: shows what is queued, writes
 * the headless picture, closes. stats (optional) gets each tile's counts. */
xsf_status dsp_view_stop(dsp_view *v, dsp_tile_stats *stats, xsf_error *err);

#ifdef __cplusplus
}
#endif
#endif
