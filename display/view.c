/* The display as a sink of the pipeline: one thread owns the GL context
 * (window or offscreen) and shows the frames of every tile, each paced by
 * its own stream's RTP clock. Frames reach it from the decode threads
 * through a bounded queue; a device picture goes to its textures through
 * CUDA-GL interop, a host picture by upload, and the frame is released as
 * soon as its samples are in the textures. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "display.h"
#include "pipeline.h"
#include "xsf_clock.h"

#define VIEW_QUEUE 256

typedef struct view_tile {
    dsp_view *v;
    int index;
    dsp_clock clock;
} view_tile;

struct dsp_view {
    dsp_view_options opt;
    dsp_display *d;
    view_tile tiles[DSP_MAX_TILES];
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv, ready;
    pl_frame *queue[VIEW_QUEUE];
    int queue_tile[VIEW_QUEUE];
    unsigned head, count;
    int stopping, started, created;
    atomic_int quit;
    xsf_error err; /* creation failure, or the first submit failure */
    char stats[DSP_MAX_TILES][256];
    int stats_dirty[DSP_MAX_TILES];
    dsp_tile_stats final[DSP_MAX_TILES];
    uint64_t shown_frames;
};

/* The frame's picture as a reference-counted xsf_picture whose planes are
 * the frame's (device planes where it has them): the last reference gives
 * the frame back to its pipeline. */
static xsf_status frame_planes(void *opaque, xsf_picture *p, void **alloc_data, xsf_error *err)
{
    (void)err;
    pl_frame *f = opaque;
    const xsf_picture *src =
        p->memory == XSF_MEMORY_DEVICE ? &f->device_picture[0] : &f->picture[0];
    for (int c = 0; c < p->fmt.nc; c++) {
        p->data[c] = src->data[c];
        p->stride[c] = src->stride[c];
    }
    *alloc_data = f;
    return XSF_OK;
}

static void frame_release(void *opaque, xsf_picture *p, void *alloc_data)
{
    (void)opaque;
    (void)p;
    pl_frame_release(alloc_data);
}

/* Hands the frame to the display. A device picture goes as a reference-
 * counted picture, which the CUDA compositor may keep (then the frame is
 * released once it no longer shows it); a host picture is always copied,
 * so it goes as a view and the frame is released here. */
static void show(dsp_view *v, pl_frame *f, int tile)
{
    /* The device picture where the pipeline decoded into one, else the host one. */
    const int on_device = f->device_picture[0].data[0] != NULL;
    const xsf_picture *src = on_device ? &f->device_picture[0] : &f->picture[0];
    xsf_picture pic;
    xsf_picture_init(&pic);
    pic.fmt = src->fmt;
    if (pic.fmt.nc > 3)
        pic.fmt.nc = 3;
    pic.memory = src->memory;
    pic.device = src->device;
    /* --colour or the SDP's where they said something, else the picture's
     * own (the codestream's: RCT gives R G B as decode writes them). */
    pic.colour =
        v->opt.colour[tile].source != XSF_COLOUR_DEFAULT ? v->opt.colour[tile] : src->colour;
    pic.props = src->props;
    const xsf_picture_allocator frame_allocator = {f, frame_planes, frame_release};
    xsf_error err;
    xsf_error_clear(&err);
    void *unused;
    const xsf_status st = on_device ? xsf_picture_alloc(&pic, &frame_allocator, &err)
                                    : frame_planes(f, &pic, &unused, &err);
    if (st != XSF_OK) {
        pl_frame_release(f);
        pthread_mutex_lock(&v->mu);
        if (v->err.status == XSF_OK)
            xsf_error_set(&v->err, XSF_ERR_INVALID, "tile %d: %s", tile, err.msg);
        pthread_mutex_unlock(&v->mu);
        return;
    }
    int64_t pts = 0;
    if (v->opt.display.vsync) {
        const uint64_t arrival = f->t.last_packet ? f->t.last_packet : f->t.queued;
        pts = f->has_rtp_timestamp ? dsp_clock_map(&v->tiles[tile].clock, f->rtp_timestamp,
                                                   xsf_clock_wall_to_mono(arrival))
                                   : dsp_now_ns() + (int64_t)v->opt.delay_ms * 1000000;
    }
    if (dsp_submit(v->d, tile, &pic, NULL, pts) != XSF_OK) {
        pthread_mutex_lock(&v->mu);
        if (v->err.status == XSF_OK)
            xsf_error_set(&v->err, XSF_ERR_INVALID, "tile %d: %s", tile, dsp_error(v->d));
        pthread_mutex_unlock(&v->mu);
    }
    if (!pic.ref)
        pl_frame_release(f); /* a view: its samples are in the textures */
    xsf_picture_unref(&pic);
}

static void *view_main(void *arg)
{
    dsp_view *v = arg;
    xsf_error err;
    xsf_error_clear(&err);
    const xsf_status st = dsp_create(&v->d, &v->opt.display, &err);
    pthread_mutex_lock(&v->mu);
    v->created = st == XSF_OK ? 1 : -1;
    if (st != XSF_OK)
        v->err = err;
    pthread_cond_broadcast(&v->ready);
    pthread_mutex_unlock(&v->mu);
    if (st != XSF_OK)
        return NULL;
    for (;;) {
        pthread_mutex_lock(&v->mu);
        /* Without vsync nothing blocks in present: wait for a frame here. */
        if (!v->opt.display.vsync && !v->count && !v->stopping) {
            const struct timespec ts = xsf_clock_wall_deadline(20 * XSF_NS_PER_MS);
            pthread_cond_timedwait(&v->cv, &v->mu, &ts);
        }
        const int stopping = v->stopping && !v->count;
        pl_frame *batch[VIEW_QUEUE];
        int btile[VIEW_QUEUE];
        unsigned n = 0;
        while (v->count) {
            batch[n] = v->queue[v->head];
            btile[n++] = v->queue_tile[v->head];
            v->head = (v->head + 1) % VIEW_QUEUE;
            v->count--;
        }
        char text[DSP_MAX_TILES][256];
        int dirty[DSP_MAX_TILES];
        for (int t = 0; t < v->opt.display.tiles; t++) {
            dirty[t] = v->stats_dirty[t];
            if (dirty[t])
                memcpy(text[t], v->stats[t], sizeof text[t]);
            v->stats_dirty[t] = 0;
        }
        pthread_mutex_unlock(&v->mu);
        /* Without vsync every picture is presented as it comes (one present
         * each); with vsync the pacer picks per tile at the next blank. */
        for (unsigned i = 0; i < n; i++) {
            show(v, batch[i], btile[i]);
            if (!v->opt.display.vsync && i + 1 < n) {
                dsp_present(v->d);
                v->shown_frames++;
            }
        }
        for (int t = 0; t < v->opt.display.tiles; t++)
            if (dirty[t])
                dsp_set_stats_text(v->d, t, text[t]);
        if (stopping) {
            dsp_present(v->d); /* the last pictures queued are the ones left on screen */
            break;
        }
        if (dsp_poll(v->d))
            atomic_store(&v->quit, 1);
        char notice[512];
        while (dsp_take_notice(v->d, notice, sizeof notice))
            fprintf(stderr, "xsflow: %s\n", notice);
        dsp_present(v->d);
        v->shown_frames++;
    }
    for (int t = 0; t < v->opt.display.tiles; t++)
        dsp_tile_stats_get(v->d, t, &v->final[t]);
    if (v->opt.headless_ppm) {
        int w, h;
        dsp_size(v->d, &w, &h);
        uint8_t *rgb = malloc((size_t)w * (size_t)h * 3);
        xsf_error e2;
        xsf_error_clear(&e2);
        if (!rgb || dsp_read_rgb(v->d, rgb, (size_t)w * (size_t)h * 3) != XSF_OK ||
            dsp_write_ppm(v->opt.headless_ppm, rgb, w, h, &e2) != XSF_OK) {
            pthread_mutex_lock(&v->mu);
            if (v->err.status == XSF_OK)
                xsf_error_set(&v->err, XSF_ERR_IO, "%s: %s", v->opt.headless_ppm,
                              e2.msg[0] ? e2.msg : dsp_error(v->d));
            pthread_mutex_unlock(&v->mu);
        }
        free(rgb);
    }
    dsp_destroy(v->d);
    v->d = NULL;
    return NULL;
}

void dsp_view_options_init(dsp_view_options *o)
{
    memset(o, 0, sizeof *o);
    dsp_options_init(&o->display);
    o->delay_ms = 40;
}

xsf_status dsp_view_start(dsp_view **out, const dsp_view_options *opt, xsf_error *err)
{
    *out = NULL;
    if (opt->display.tiles < 1 || opt->display.tiles > DSP_MAX_TILES)
        return xsf_error_set(err, XSF_ERR_ARG, "1 to %d tiles", DSP_MAX_TILES);
    dsp_view *v = calloc(1, sizeof *v);
    if (!v)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    v->opt = *opt;
    xsf_error_clear(&v->err);
    for (int t = 0; t < opt->display.tiles; t++) {
        v->tiles[t].v = v;
        v->tiles[t].index = t;
        dsp_clock_init(&v->tiles[t].clock, 90000, opt->delay_ms);
    }
    pthread_mutex_init(&v->mu, NULL);
    pthread_cond_init(&v->cv, NULL);
    pthread_cond_init(&v->ready, NULL);
    if (pthread_create(&v->thread, NULL, view_main, v)) {
        free(v);
        return xsf_error_set(err, XSF_ERR_NOMEM, "cannot start the display thread");
    }
    v->started = 1;
    /* The window (or the offscreen context) is made by the display's thread. */
    pthread_mutex_lock(&v->mu);
    while (!v->created)
        pthread_cond_wait(&v->ready, &v->mu);
    pthread_mutex_unlock(&v->mu);
    if (v->created < 0) {
        *err = v->err;
        pthread_join(v->thread, NULL);
        free(v);
        return err->status;
    }
    *out = v;
    return XSF_OK;
}

static void view_deliver(void *ctx, pl_frame *f)
{
    view_tile *t = ctx;
    dsp_view *v = t->v;
    pthread_mutex_lock(&v->mu);
    if (v->count == VIEW_QUEUE || v->stopping) {
        pthread_mutex_unlock(&v->mu);
        pl_frame_release(f); /* cannot happen with pools of <= 256 frames per tile */
        return;
    }
    const unsigned at = (v->head + v->count) % VIEW_QUEUE;
    v->queue[at] = f;
    v->queue_tile[at] = t->index;
    v->count++;
    pthread_cond_signal(&v->cv);
    pthread_mutex_unlock(&v->mu);
}

pl_sink dsp_view_sink(dsp_view *v, int tile, int device_pictures)
{
    pl_sink s = {view_deliver,
                 NULL,
                 &v->tiles[tile],
                 device_pictures && dsp_have_interop() ? PL_PICTURE_DEVICE : PL_PICTURE_HOST,
                 NULL,
                 NULL,
                 0};
    return s;
}

void dsp_view_set_stats(dsp_view *v, int tile, const char *text)
{
    pthread_mutex_lock(&v->mu);
    snprintf(v->stats[tile], sizeof v->stats[tile], "%s", text);
    v->stats_dirty[tile] = 1;
    pthread_mutex_unlock(&v->mu);
}

int dsp_view_quit_requested(dsp_view *v)
{
    return atomic_load(&v->quit);
}

xsf_status dsp_view_stop(dsp_view *v, dsp_tile_stats *stats, xsf_error *err)
{
    if (!v)
        return XSF_OK;
    pthread_mutex_lock(&v->mu);
    v->stopping = 1;
    pthread_cond_signal(&v->cv);
    pthread_mutex_unlock(&v->mu);
    pthread_join(v->thread, NULL);
    if (stats)
        memcpy(stats, v->final, sizeof(dsp_tile_stats) * (size_t)v->opt.display.tiles);
    const xsf_status st = v->err.status;
    if (st != XSF_OK)
        *err = v->err;
    pthread_cond_destroy(&v->cv);
    pthread_cond_destroy(&v->ready);
    pthread_mutex_destroy(&v->mu);
    free(v);
    return st;
}
