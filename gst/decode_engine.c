/* The decoder behind xsflowdec (see decode_engine.h): a ring of slots used
 * round-robin, so the oldest busy slot is always the next one to reuse and
 * frames finish in submission order.
 *   GPU: each slot is an xs_gpu_decoder on its own CUDA stream, with its
 *        codestream and picture in pinned host memory, so that the upload,
 *        decode and download of one frame overlap those of the others; the
 *        streaming thread only parses headers and enqueues.
 *   CPU: each slot is a thread with its own C decoder. */
#include "decode_engine.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if XSF_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define XSFD_MAX_SLOTS 32

typedef struct slot {
    int busy;
    void *user;
    uint8_t *cs; /* the codestream: pinned on the GPU */
    size_t cs_cap, cs_len;
    xsf_status status;
    char msg[XSF_ERRMSG_LEN];
    xs_header hdr;
    /* CPU */
    xs_decoder *dec;
    const xs_image *img;
    pthread_t thread;
    int thread_started, has_job, done, quit;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    /* GPU */
    xs_gpu_decoder *gpu;
    void *stream;    /* cudaStream_t */
    uint16_t *host;  /* pinned planes of the picture, one after the other */
    size_t host_cap; /* bytes */
    xs_image picture;
} slot;

struct xsfd_engine {
    int on_gpu, gpu_id;
    unsigned n, next, busy;
    slot *slots;
    xsfd_picture_cb cb;
    void *ctx;
};

/* ---- CPU ---- */

static void *cpu_worker(void *arg)
{
    slot *s = arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->has_job && !s->quit)
            pthread_cond_wait(&s->cond, &s->lock);
        if (s->quit)
            break;
        pthread_mutex_unlock(&s->lock);
        size_t consumed = 0;
        const xs_image *img = NULL;
        xsf_status st = xs_decode(s->dec, s->cs, s->cs_len, &consumed, &img);
        pthread_mutex_lock(&s->lock);
        s->status = st;
        s->img = st == XSF_OK ? img : NULL;
        if (st != XSF_OK)
            snprintf(s->msg, sizeof s->msg, "%s", xs_decoder_error(s->dec));
        else
            s->hdr = *xs_decoder_header(s->dec);
        s->has_job = 0;
        s->done = 1;
        pthread_cond_broadcast(&s->cond);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static int grow(uint8_t **buf, size_t *cap, size_t need, int pinned)
{
    if (need <= *cap)
        return 0;
    size_t want = need + need / 4;
#if XSF_HAVE_CUDA
    if (pinned) {
        void *p = NULL;
        if (cudaHostAlloc(&p, want, cudaHostAllocDefault) != cudaSuccess) {
            cudaGetLastError();
            return -1;
        }
        cudaFreeHost(*buf);
        *buf = p;
        *cap = want;
        return 0;
    }
#else
    (void)pinned;
#endif
    void *p = realloc(*buf, want);
    if (!p)
        return -1;
    *buf = p;
    *cap = want;
    return 0;
}

/* ---- GPU ---- */

#if XSF_HAVE_CUDA
static xsf_status gpu_slot_init(slot *s, int gpu_id, char *msg)
{
    cudaStream_t stream = NULL;
    if (cudaSetDevice(gpu_id) != cudaSuccess ||
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
        snprintf(msg, XSF_ERRMSG_LEN, "GPU %d: %s", gpu_id, cudaGetErrorString(cudaGetLastError()));
        return XSF_ERR_CUDA;
    }
    s->stream = stream;
    xsf_status st = xs_gpu_decoder_create(&s->gpu, gpu_id, (xs_cuda_stream)stream);
    if (st != XSF_OK)
        snprintf(msg, XSF_ERRMSG_LEN, "GPU %d: no decoder context (%s)", gpu_id, xsf_status_name(st));
    return st;
}

static void gpu_submit(xsfd_engine *e, slot *s)
{
    size_t consumed = 0;
    xsf_error err = {0};
    s->status = xs_parse_header(s->cs, s->cs_len, &s->hdr, &err);
    if (s->status != XSF_OK) {
        snprintf(s->msg, sizeof s->msg, "%s", err.msg);
        return;
    }
    cudaSetDevice(e->gpu_id);
    s->status = xs_gpu_decode(s->gpu, s->cs, s->cs_len, &consumed);
    if (s->status != XSF_OK) {
        snprintf(s->msg, sizeof s->msg, "%s", xs_gpu_decoder_error(s->gpu));
        return;
    }
    const xs_gpu_image *gi = xs_gpu_decoder_image(s->gpu);
    size_t bytes = 0;
    for (int c = 0; c < gi->nc; c++)
        bytes += (size_t)gi->width[c] * (size_t)gi->height[c] * sizeof(uint16_t);
    uint8_t *host = (uint8_t *)s->host;
    if (grow(&host, &s->host_cap, bytes, 1) != 0) {
        s->status = XSF_ERR_NOMEM;
        snprintf(s->msg, sizeof s->msg, "no pinned memory for a picture of %zu bytes", bytes);
        return;
    }
    s->host = (uint16_t *)host;
    xs_image *p = &s->picture;
    memset(p, 0, sizeof *p);
    p->nc = gi->nc;
    size_t off = 0;
    for (int c = 0; c < gi->nc; c++) {
        p->width[c] = gi->width[c];
        p->height[c] = gi->height[c];
        p->depth[c] = gi->depth[c];
        p->pitch[c] = (size_t)gi->width[c];
        p->plane[c] = s->host + off;
        off += (size_t)gi->width[c] * (size_t)gi->height[c];
    }
    s->status = xs_gpu_download(s->gpu, p->plane, 0);
    if (s->status != XSF_OK)
        snprintf(s->msg, sizeof s->msg, "%s", xs_gpu_decoder_error(s->gpu));
}
#endif

/* ---- the ring ---- */

static void complete(xsfd_engine *e, slot *s, int discard)
{
    xsfd_result r = {.status = s->status, .message = s->msg, .user = s->user};
    if (e->on_gpu) {
#if XSF_HAVE_CUDA
        if (s->status == XSF_OK) {
            cudaSetDevice(e->gpu_id);
            r.status = xs_gpu_sync(s->gpu);
            if (r.status != XSF_OK)
                snprintf(s->msg, sizeof s->msg, "%s", xs_gpu_decoder_error(s->gpu));
        }
        if (r.status == XSF_OK) {
            r.img = &s->picture;
            r.hdr = &s->hdr;
        }
#endif
    } else {
        pthread_mutex_lock(&s->lock);
        while (!s->done)
            pthread_cond_wait(&s->cond, &s->lock);
        pthread_mutex_unlock(&s->lock);
        r.status = s->status;
        if (r.status == XSF_OK) {
            r.img = s->img;
            r.hdr = &s->hdr;
        }
    }
    if (discard) {
        r.status = XSF_ERR_AGAIN;
        r.img = NULL;
        r.hdr = NULL;
    }
    s->busy = 0;
    e->busy--;
    e->cb(e->ctx, &r);
}

void xsfd_engine_destroy(xsfd_engine *e)
{
    if (!e)
        return;
    for (unsigned i = 0; i < e->n; i++) {
        slot *s = &e->slots[i];
        if (s->thread_started) {
            pthread_mutex_lock(&s->lock);
            s->quit = 1;
            pthread_cond_broadcast(&s->cond);
            pthread_mutex_unlock(&s->lock);
            pthread_join(s->thread, NULL);
            pthread_mutex_destroy(&s->lock);
            pthread_cond_destroy(&s->cond);
        }
        xs_decoder_destroy(s->dec);
#if XSF_HAVE_CUDA
        if (e->on_gpu) {
            cudaSetDevice(e->gpu_id);
            if (s->gpu)
                xs_gpu_sync(s->gpu);
            xs_gpu_decoder_destroy(s->gpu);
            if (s->stream)
                cudaStreamDestroy((cudaStream_t)s->stream);
            cudaFreeHost(s->cs);
            cudaFreeHost(s->host);
            continue;
        }
#endif
        free(s->cs);
    }
    free(e->slots);
    free(e);
}

xsf_status xsfd_engine_create(xsfd_engine **out, xsfd_device device, int gpu_id, unsigned in_flight,
                              xsfd_picture_cb cb, void *ctx, char *msg)
{
    *out = NULL;
    msg[0] = 0;
    if (!cb)
        return XSF_ERR_ARG;
    int on_gpu = 0;
    if (device != XSFD_CPU) {
        if (xs_gpu_available() == XSF_OK) {
            on_gpu = 1;
        } else if (device == XSFD_GPU) {
            snprintf(msg, XSF_ERRMSG_LEN, "no usable GPU (or this build has no CUDA)");
            return XSF_ERR_NODEVICE;
        }
    }
    if (in_flight == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        in_flight = on_gpu ? 3 : (unsigned)(cores > 0 ? cores : 1);
    }
    if (in_flight > XSFD_MAX_SLOTS)
        in_flight = XSFD_MAX_SLOTS;
    xsfd_engine *e = calloc(1, sizeof *e);
    if (!e || !(e->slots = calloc(in_flight, sizeof *e->slots))) {
        free(e);
        return XSF_ERR_NOMEM;
    }
    e->on_gpu = on_gpu;
    e->gpu_id = gpu_id;
    e->n = in_flight;
    e->cb = cb;
    e->ctx = ctx;
    for (unsigned i = 0; i < e->n; i++) {
        slot *s = &e->slots[i];
        xsf_status st;
#if XSF_HAVE_CUDA
        if (on_gpu) {
            st = gpu_slot_init(s, gpu_id, msg);
            if (st != XSF_OK) {
                e->n = i + 1;
                xsfd_engine_destroy(e);
                return st;
            }
            continue;
        }
#endif
        st = xs_decoder_create(&s->dec);
        if (st == XSF_OK) {
            pthread_mutex_init(&s->lock, NULL);
            pthread_cond_init(&s->cond, NULL);
            if (pthread_create(&s->thread, NULL, cpu_worker, s) != 0) {
                pthread_mutex_destroy(&s->lock);
                pthread_cond_destroy(&s->cond);
                st = XSF_ERR_NOMEM;
            } else {
                s->thread_started = 1;
            }
        }
        if (st != XSF_OK) {
            snprintf(msg, XSF_ERRMSG_LEN, "no C decoder (%s)", xsf_status_name(st));
            e->n = i + 1;
            xsfd_engine_destroy(e);
            return st;
        }
    }
    *out = e;
    return XSF_OK;
}

xsf_status xsfd_engine_submit(xsfd_engine *e, const uint8_t *cs, size_t len, void *user)
{
    slot *s = &e->slots[e->next];
    if (s->busy)
        complete(e, s, 0);
    if (grow(&s->cs, &s->cs_cap, len, e->on_gpu) != 0)
        return XSF_ERR_NOMEM;
    memcpy(s->cs, cs, len);
    s->cs_len = len;
    s->user = user;
    s->status = XSF_OK;
    s->msg[0] = 0;
    s->busy = 1;
    e->busy++;
    e->next = (e->next + 1) % e->n;
    if (e->on_gpu) {
#if XSF_HAVE_CUDA
        gpu_submit(e, s);
#endif
        return XSF_OK;
    }
    pthread_mutex_lock(&s->lock);
    s->done = 0;
    s->has_job = 1;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    return XSF_OK;
}

void xsfd_engine_finish(xsfd_engine *e, int discard)
{
    /* Round-robin: the oldest frames sit from `next` on. */
    for (unsigned k = 0; k < e->n; k++) {
        slot *s = &e->slots[(e->next + k) % e->n];
        if (s->busy)
            complete(e, s, discard);
    }
}

unsigned xsfd_engine_in_flight(const xsfd_engine *e)
{
    return e->n;
}

const char *xsfd_engine_name(const xsfd_engine *e)
{
    return e->on_gpu ? "GPU" : "CPU";
}
