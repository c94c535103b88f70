/* Memory of the pipeline: the picture pools of each decode queue (an
 * xsf_picture allocator over them), codestream buffers, and the
 * provisioner thread that pins ahead of need. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pl_gpu.h"
#include "pl_internal.h"
#include "xsf_clock.h"

void pl_provision_wake_locked(pl_pipeline *p)
{
    if (p->prov_started) {
        p->prov_wake = 1;
        pthread_cond_signal(&p->prov_cv);
    }
}

/* ---- picture pools ---- */

/* Borrows a picture buffer of at least `bytes` from the queue's pool (host
 * or device memory), and has the provisioner keep the pool at that size.
 * NULL when out of memory. Without p->mu. */
static pl_pool_buffer *borrow(pl_queue *q, int device, size_t bytes)
{
    pl_pipeline *p = q->p;
    pl_pool_buffer **pool = device ? &q->free_dev : &q->free_host;
    pl_pool_buffer *b = NULL;
    pthread_mutex_lock(&p->mu);
    size_t *want = device ? &q->dev_bytes : &q->host_bytes;
    if (*want < bytes) {
        *want = bytes;
        pl_provision_wake_locked(p);
    }
    /* The first buffer large enough, else any (it will be replaced). */
    pl_pool_buffer **best = NULL;
    for (pl_pool_buffer **it = pool; *it; it = &(*it)->next) {
        best = best ? best : it;
        if ((*it)->bytes >= bytes) {
            best = it;
            break;
        }
    }
    if (best) {
        b = *best;
        *best = b->next;
        b->next = NULL;
    } else if ((b = calloc(1, sizeof *b)) != NULL) {
        b->device = device;
        (*(device ? &q->ndev : &q->nhost))++;
    }
    pthread_mutex_unlock(&p->mu);
    if (!b || b->bytes >= bytes)
        return b;
    const uint64_t t0 = xsf_clock_mono_ns();
    if (device) {
        pl_gpu_free(b->ptr);
        b->ptr = pl_gpu_alloc(bytes);
    } else {
        /* Pinned at once with the GPU engine: a GPU's pictures are few (its decoders' and
         * what the sinks hold), and a download into pageable memory is staged and slow. */
        pthread_mutex_lock(&p->mu);
        void *old = p->use_gpu ? pl_give_up_locked(p, b->ptr) : b->ptr;
        pthread_mutex_unlock(&p->mu);
        pl_host_free(old, p->use_gpu);
        /* While the GPU starts, mapped and pinned later (pinning would wait for the start). */
        b->ptr =
            p->use_gpu && !pl_gpu_ready(p) ? pl_host_map(bytes) : pl_host_alloc(bytes, p->use_gpu);
    }
    b->bytes = b->ptr ? bytes : 0;
    b->alloc_ns = xsf_clock_mono_ns() - t0 + 1;
    if (!b->ptr) { /* back to the pool empty: the provisioner or a later frame fills it */
        pthread_mutex_lock(&p->mu);
        b->next = *pool;
        *pool = b;
        pthread_mutex_unlock(&p->mu);
        return NULL;
    }
    return b;
}

static void give_back_locked(pl_queue *q, pl_pool_buffer *b)
{
    pl_pool_buffer **pool = b->device ? &q->free_dev : &q->free_host;
    b->next = *pool;
    *pool = b;
}

/* Tight rows, one plane after the other, from `base` (the container's planes). */
static void lay_out(xsf_picture *pic, uint8_t *base)
{
    size_t at = 0;
    const int planes = xsf_format_planes(&pic->fmt);
    for (int c = 0; c < planes; c++) {
        pic->data[c] = base + at;
        pic->stride[c] = xsf_format_row_bytes(&pic->fmt, c);
        at += xsf_format_plane_bytes(&pic->fmt, c);
    }
}

static xsf_status pool_alloc(void *opaque, xsf_picture *pic, void **alloc_data, xsf_error *err)
{
    pl_queue *q = opaque;
    const int device = pic->memory == XSF_MEMORY_DEVICE;
    pl_pool_buffer *b = borrow(q, device, xsf_format_bytes(&pic->fmt));
    if (!b)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of %s memory for the picture",
                             device          ? "device"
                             : q->p->use_gpu ? "pinned host"
                                             : "host");
    lay_out(pic, b->ptr);
    *alloc_data = b;
    return XSF_OK;
}

static void pool_release(void *opaque, xsf_picture *pic, void *alloc_data)
{
    (void)pic;
    if (alloc_data)
        give_back_locked(opaque, alloc_data);
}

void pl_pool_init(pl_pipeline *p, unsigned queue)
{
    pl_queue *q = &p->queues[queue];
    q->p = p;
    q->index = queue;
    q->alloc = (xsf_picture_allocator){q, pool_alloc, pool_release};
}

int pl_slot_picture(pl_slot *s, int field, int device, const xsf_format *fmt, xsf_error *why)
{
    pl_pipeline *p = s->p;
    pl_queue *q = &p->queues[s->queue];
    xsf_picture *pic = device ? &s->f.device_picture[field] : &s->f.picture[field];
    pl_pool_buffer **held = device ? &s->dev[field] : &s->host[field];
    xsf_picture_init(pic);
    pic->fmt = *fmt;
    pic->memory = device ? XSF_MEMORY_DEVICE : s->pinned ? XSF_MEMORY_PINNED : XSF_MEMORY_HOST;
    pic->device = device ? p->gpus[s->queue] : -1;
    pic->colour = s->f.desc[field].colour;
    pic->props.index = s->f.index;
    pic->props.rtp_timestamp = s->f.rtp_timestamp;
    pic->props.has_rtp_timestamp = s->f.has_rtp_timestamp;
    if (xsf_format_check(fmt, why) != XSF_OK)
        return -1;
    if (*held && (*held)->bytes >= xsf_format_bytes(fmt)) { /* laid out before (a retried begin) */
        lay_out(pic, (*held)->ptr);
        return 0;
    }
    if (*held) {
        pthread_mutex_lock(&p->mu);
        give_back_locked(q, *held);
        pthread_mutex_unlock(&p->mu);
        *held = NULL;
    }
    void *data = NULL;
    if (q->alloc.alloc(q->alloc.opaque, pic, &data, why) != XSF_OK) {
        memset(pic->data, 0, sizeof pic->data);
        return -1;
    }
    *held = data;
    pl_pool_buffer *b = data;
    if (b->alloc_ns) { /* the decoder allocated it on the frame's way: counted */
        pthread_mutex_lock(&p->mu);
        pl_stream *st = &p->streams[s->f.stream];
        st->allocs++;
        if (b->alloc_ns > st->alloc_ns_max)
            st->alloc_ns_max = b->alloc_ns;
        pthread_mutex_unlock(&p->mu);
        b->alloc_ns = 0;
    }
    /* Mapped while the GPU started (or refused to pin): said as it is. */
    if (!device && pic->memory == XSF_MEMORY_PINNED && !pl_host_pinned(b->ptr))
        pic->memory = XSF_MEMORY_HOST;
    return 0;
}

void pl_slot_pictures_release(pl_slot *s)
{
    pl_queue *q = &s->p->queues[s->queue];
    for (int k = 0; k < PL_MAX_FIELDS; k++) {
        /* Back in the pool unpinned: the provisioner's turn. */
        if (s->pinned && s->host[k] && s->host[k]->ptr && !pl_host_pinned(s->host[k]->ptr))
            pl_provision_wake_locked(s->p);
        if (s->host[k])
            q->alloc.release(q->alloc.opaque, &s->f.picture[k], s->host[k]);
        if (s->dev[k])
            q->alloc.release(q->alloc.opaque, &s->f.device_picture[k], s->dev[k]);
        s->host[k] = s->dev[k] = NULL;
    }
}

void pl_pool_free(pl_pipeline *p, unsigned queue)
{
    pl_queue *q = &p->queues[queue];
    if (p->use_gpu && (int)queue < p->ngpus)
        pl_gpu_select(p->gpus[queue]);
    for (pl_pool_buffer *b = q->free_host, *n; b; b = n) {
        n = b->next;
        pl_host_free(b->ptr, p->use_gpu);
        free(b);
    }
    for (pl_pool_buffer *b = q->free_dev, *n; b; b = n) {
        n = b->next;
        pl_gpu_free(b->ptr);
        free(b);
    }
    q->free_host = q->free_dev = NULL;
}

/* ---- codestream buffers ---- */

/* With the GPU engine: from the reserve while it lasts; beyond it, a live stream's is a
 * plain mapping that the provisioner pins once the frame is back in the pool (its source
 * must not wait on the driver), and a stream that may wait (files, captures) pins its own
 * at once, so that its uploads are never staged. */
uint8_t *pl_codestream_buffer(const pl_pipeline *p, const pl_stream *st, int pinned, size_t bytes)
{
    if (!pinned)
        return pl_host_alloc(bytes, 0);
    uint8_t *b = st->backpressure == PL_BLOCK && pl_gpu_ready(p) ? pl_host_alloc(bytes, 1) : NULL;
    return b ? b : pl_host_map(bytes);
}

/* ---- the provisioner ---- */

/* Pinning host memory (cudaHostRegister) and unpinning it hold the CUDA
 * driver's lock, and every other thread's CUDA call waits behind it: while
 * 16 UHD streams ran, single pins took up to 400 ms and the decoders'
 * first frames 0.4-1.6 s (2-6 ms alone), so frames were dropped; before any
 * stream runs, 1.8 GB pin in 0.1 s (BENCHMARKS.md, "Session 22 runs"). So
 * with the GPU engine:
 * - pl_config.pinned_reserve_bytes are pinned at pl_create, and frames'
 *   codestreams and pictures are carved from that reserve while it lasts
 *   (pl_host_map, pl_host_alloc), pinned already;
 * - beyond it, a live stream's receiving thread never pins: a new
 *   codestream buffer is a plain mapping (its upload is staged by the
 *   driver, a little slower), and this thread pins it once its frame is
 *   back in the pool (a source that may wait, PL_BLOCK, pins its own);
 * - a decoder pins the picture it needs at once (a GPU's pictures are few,
 *   and a download into pageable memory is slow), and this thread adds
 *   pictures of the size last asked for up to pictures_per_queue (the
 *   decoders and what the sinks hold), and device pictures likewise;
 * - pinned buffers given up (a frame or picture that grew) are unpinned here.
 * It works one buffer at a time and rests as long as each took, so the
 * others have at least half of the driver. */

void *pl_give_up_locked(pl_pipeline *p, void *ptr)
{
    if (!ptr)
        return NULL;
    pl_grave *g = p->prov_started && pl_host_unpin_costs(ptr) ? malloc(sizeof *g) : NULL;
    if (!g)
        return ptr;
    g->ptr = ptr;
    g->next = p->graves;
    p->graves = g;
    pl_provision_wake_locked(p);
    return NULL;
}

/* Adds a picture of the queue's wanted size to its pool: host memory, pinned, or device
 * memory. With p->mu held (released while it allocates); returns the nanoseconds it took
 * (at least 1). Where it cannot, the provisioner stops adding: the decoders allocate what
 * they need and say when they cannot. */
static uint64_t add_picture(pl_pipeline *p, unsigned qi, int device)
{
    pl_queue *q = &p->queues[qi];
    const size_t bytes = device ? q->dev_bytes : q->host_bytes;
    unsigned *count = device ? &q->ndev : &q->nhost;
    (*count)++;
    pthread_mutex_unlock(&p->mu);
    const uint64_t t0 = xsf_clock_mono_ns();
    pl_pool_buffer *b = calloc(1, sizeof *b);
    pl_gpu_select(p->gpus[qi]);
    if (b && (b->ptr = device ? pl_gpu_alloc(bytes) : pl_host_alloc(bytes, 1)) != NULL) {
        b->bytes = bytes;
        b->device = device;
    }
    const uint64_t ns = xsf_clock_mono_ns() - t0;
    pthread_mutex_lock(&p->mu);
    if (b && b->ptr) {
        give_back_locked(q, b);
    } else {
        free(b);
        (*count)--;
        if (device)
            q->dev_bytes = 0;
        else
            p->pin_refused = 1;
    }
    return ns ? ns : 1;
}

/* The pictures queue qi keeps ready: pictures_per_queue, or fewer where every stream of
 * the queue says how many frames it will carry (pl_stream_config.expected_frames) and
 * they are fewer. With p->mu held. */
static unsigned queue_pictures(const pl_pipeline *p, unsigned qi)
{
    unsigned long frames = 0;
    unsigned want = p->pictures_per_queue, known = 1;
    for (int i = 0; i < p->nstreams; i++) {
        const pl_stream *st = &p->streams[i];
        if (st->used != 1 || st->queue != (int)qi)
            continue;
        want += st->holds; /* what its sink keeps a while */
        known &= st->expected_frames != 0;
        frames += st->expected_frames;
    }
    return known && frames && frames < want ? (unsigned)frames : want;
}

/* One job of the provisioner, with p->mu held (released while it works). Returns the
 * nanoseconds it spent, 0 for no job. */
static uint64_t provision_one(pl_pipeline *p)
{
    /* Pictures first: the decoders wait on them. */
    for (unsigned qi = 0; qi < p->nqueues; qi++) {
        pl_queue *q = &p->queues[qi];
        const unsigned keep = queue_pictures(p, qi);
        if (q->host_bytes && q->nhost < keep && !p->pin_refused)
            return add_picture(p, qi, 0);
        if (q->dev_bytes && q->ndev < keep)
            return add_picture(p, qi, 1);
    }
    /* Then the codestream buffer of a free frame that has one, not pinned. */
    for (int i = 0; i < p->nstreams && !p->pin_refused; i++) {
        pl_stream *st = &p->streams[i];
        if (st->used != 1)
            continue;
        pl_slot **it = &st->free;
        while (*it && (!(*it)->f.buffer || pl_host_pinned((*it)->f.buffer)))
            it = &(*it)->free_next;
        if (!*it)
            continue;
        pl_slot *s = *it;
        *it = s->free_next; /* out of the free list while it is pinned */
        pthread_mutex_unlock(&p->mu);
        pl_gpu_select(p->gpus[st->queue]);
        const uint64_t t0 = xsf_clock_mono_ns();
        const int refused = pl_host_pin(s->f.buffer) != 0;
        const uint64_t ns = xsf_clock_mono_ns() - t0;
        pthread_mutex_lock(&p->mu);
        p->pin_refused |= refused;
        /* (The stream cannot have gone: pl_stream_remove waits for all its frames.) */
        if (!refused)
            st->pool_pinned_bytes += s->f.capacity;
        s->free_next = st->free;
        st->free = s;
        pthread_cond_broadcast(&p->progress);
        return ns ? ns : 1;
    }
    /* Last, what was given up. */
    if (p->graves) {
        pl_grave *g = p->graves;
        p->graves = g->next;
        pthread_mutex_unlock(&p->mu);
        const uint64_t t0 = xsf_clock_mono_ns();
        pl_host_free(g->ptr, 1);
        free(g);
        const uint64_t ns = xsf_clock_mono_ns() - t0;
        pthread_mutex_lock(&p->mu);
        return ns ? ns : 1;
    }
    return 0;
}

void *pl_provision_main(void *arg)
{
    pl_pipeline *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->stopping) {
        const uint64_t ns = provision_one(p);
        if (!ns) {
            while (!p->prov_wake && !p->stopping)
                pthread_cond_wait(&p->prov_cv, &p->mu);
            p->prov_wake = 0;
            continue;
        }
        /* Rest as long as the job held the driver (at most 50 ms): the decoders get
         * at least half of it. */
        const uint64_t rest = ns < 50000000u ? ns : 50000000u;
        const struct timespec until = xsf_clock_wall_deadline(rest);
        while (!p->stopping && pthread_cond_timedwait(&p->prov_cv, &p->mu, &until) == 0)
            ;
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}
