/* The pipeline's creation and teardown: the decode queues (one per GPU,
 * or one for the CPU), their decoder threads and the provisioner. The rest
 * lives beside it: pl_pool.c (memory), pl_decode.c (decoding), pl_stream.c
 * (streams, frames, the in-order hand-over); pl_internal.h holds their
 * shared state. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pl_gpu.h"
#include "pl_internal.h"
#include "xsf_clock.h"

uint64_t pl_now_ns(void)
{
    return xsf_clock_wall_ns();
}

const char *pl_drop_reason_name(pl_drop_reason r)
{
    switch (r) {
    case PL_DROP_QUEUE: return "decoder behind (oldest waiting frame dropped)";
    case PL_DROP_NO_FRAME: return "no free frame";
    case PL_DROP_DECODE: return "decoder refused the codestream";
    case PL_DROP_FIELD: return "field without its sibling";
    case PL_DROP_INCOMPLETE: return "partial frame never completed";
    default: return "?";
    }
}

/* ---- creation ---- */

static xsf_status add_worker(pl_pipeline *p, int queue, int device, xsf_error *err)
{
    const xsf_status st = pl_worker_init(&p->workers[p->nworkers], p, queue, device, err);
    if (st == XSF_OK)
        p->nworkers++;
    return st;
}

/* Whether a GPU is usable for the default codec (the registry's first). */
static int gpu_usable(void)
{
    unsigned it = 0;
    const xsf_codec *c = xsf_codec_iterate(&it);
    return c && c->gpu_available && c->gpu_available() == XSF_OK;
}

/* One GPU brought up, on a thread of its own (the first GPU's on pl_create's):
 * how its threads wait (set before its contexts are used), its CUDA context,
 * the reserve (with the first GPU), its decoder contexts; each phase timed
 * into p->startup.gpu[g]. The GPUs come up side by side, so the start of
 * several takes about as long as the slowest one's. */
typedef struct bring_up {
    pl_pipeline *p;
    const pl_config *cfg;
    int g;
    unsigned per;
    int sync_refused, reserve_refused;
    xsf_status st;
    xsf_error err;
} bring_up;

static void *bring_up_gpu(void *arg)
{
    bring_up *b = arg;
    pl_pipeline *p = b->p;
    const int dev = p->deferred ? p->start_gpus[b->g] : p->gpus[b->g];
    pl_gpu_startup *t = &p->startup.gpu[b->g];
    t->device = dev;
    /* The context is made by the first runtime call on the device (setting how threads
     * wait, where asked; cudaSetDevice makes it since CUDA 12): timed from there. */
    uint64_t t0 = xsf_clock_mono_ns();
    if (b->cfg->gpu_sync != PL_GPU_SYNC_AUTO && pl_gpu_set_sync(dev, (int)b->cfg->gpu_sync))
        b->sync_refused = 1;
    pl_gpu_context(dev); /* where it fails, the decoder contexts below say so */
    t->context_ns = xsf_clock_mono_ns() - t0;
    /* Before any stream runs: pinning later holds the driver while they do. */
    if (b->g == 0 && b->cfg->pinned_reserve_bytes) {
        t0 = xsf_clock_mono_ns();
        b->reserve_refused = pl_host_reserve(b->cfg->pinned_reserve_bytes) != 0;
        p->startup.reserve_ns = xsf_clock_mono_ns() - t0;
    }
    b->st = XSF_OK;
    for (unsigned k = 0; k < b->per && b->st == XSF_OK; k++) {
        t0 = xsf_clock_mono_ns();
        b->st = pl_worker_init(&p->workers[(unsigned)b->g * b->per + k], p, b->g, dev, &b->err);
        *(k ? &t->decoders_ns : &t->modules_ns) += xsf_clock_mono_ns() - t0;
    }
    t->ready_ns = xsf_clock_mono_ns() - p->created;
    return NULL;
}

/* fn on each of the n items (n <= PL_MAX_GPUS, `size` bytes apart) side by side: the
 * first on the caller's thread, the others on threads of their own; one whose thread
 * cannot be had runs in turn on the caller's. Returns when every item is done. */
static void side_by_side(void *(*fn)(void *), void *items, size_t size, unsigned n)
{
    pthread_t thread[PL_MAX_GPUS];
    int threaded[PL_MAX_GPUS] = {0};
    char *item = items;
    if (n == 0)
        return;
    for (unsigned i = 1; i < n; i++)
        threaded[i] = pthread_create(&thread[i], NULL, fn, item + i * size) == 0;
    fn(item);
    for (unsigned i = 1; i < n; i++) {
        if (threaded[i])
            pthread_join(thread[i], NULL);
        else
            fn(item + i * size); /* no thread to be had: in turn */
    }
}

/* Every GPU of the pipeline brought up, side by side; the first failure (in GPU order)
 * into *err. Every worker slot is counted in p->nworkers (a slot not made frees nothing). */
static xsf_status bring_up_gpus(pl_pipeline *p, int ngpus, const pl_config *c, unsigned per,
                                int *sync_refused, int *reserve_refused, xsf_error *err)
{
    p->nworkers = (unsigned)ngpus * per;
    for (unsigned i = 0; i < p->nworkers; i++)
        p->workers[i].device = -1;
    bring_up b[PL_MAX_GPUS];
    memset(b, 0, sizeof b);
    for (int g = 0; g < ngpus; g++) {
        b[g] = (bring_up){.p = p, .cfg = c, .g = g, .per = per};
        xsf_error_clear(&b[g].err);
    }
    side_by_side(bring_up_gpu, b, sizeof b[0], (unsigned)ngpus);
    *reserve_refused = b[0].reserve_refused;
    for (int g = 0; g < ngpus; g++) {
        *sync_refused |= b[g].sync_refused;
        if (b[g].st != XSF_OK) {
            *err = b[g].err;
            return err->status;
        }
    }
    return XSF_OK;
}

/* "GPU: 1 x NAME (device 0), 3 decoder contexts each, ..." into out[cap]. */
static void describe_gpus(char *out, size_t cap, int ngpus, const int *gpus, const pl_config *c,
                          unsigned per, int sync_refused, int reserve_refused)
{
    char name[128];
    pl_gpu_name(gpus[0], name, sizeof name);
    snprintf(out, cap, "GPU: %d x %s (device%s", ngpus, name, ngpus == 1 ? "" : "s");
    for (int g = 0; g < ngpus; g++)
        snprintf(out + strlen(out), cap - strlen(out), " %d", gpus[g]);
    static const char *const waits[] = {"CUDA's choice", "spin", "yield", "block"};
    snprintf(out + strlen(out), cap - strlen(out), "), %u decoder contexts each, GPU waits: %s%s",
             per, waits[(unsigned)c->gpu_sync < 4 ? c->gpu_sync : 0],
             sync_refused ? " (refused by CUDA: its own choice)" : "");
    if (c->pinned_reserve_bytes)
        snprintf(out + strlen(out), cap - strlen(out), ", pinned reserve %.0f MiB%s",
                 (double)c->pinned_reserve_bytes / 1048576.0,
                 reserve_refused ? " (refused: frames are pinned as they are used)" : "");
}

/* ---- the GPU start on a thread of its own (pl_config.start_on_cpu) ---- */

/* Destroyed pipelines whose start's thread has not ended (pl_gpu_starts_pending). */
static int starts_pending;

int pl_gpu_starts_pending(void)
{
    return __atomic_load_n(&starts_pending, __ATOMIC_ACQUIRE);
}

int pl_gpu_ready(const pl_pipeline *p)
{
    return !p->deferred || __atomic_load_n(&p->gpu_state, __ATOMIC_ACQUIRE) == PL_GPU_START_READY;
}

/* What pl_destroy leaves to the start's thread, freed last. */
static void free_shell(pl_pipeline *p)
{
    for (int i = 0; i < PL_MAX_GPUS; i++)
        pthread_cond_destroy(&p->queues[i].cv);
    pthread_cond_destroy(&p->progress);
    pthread_cond_destroy(&p->prov_cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

/* With p->mu held: the streams onto their GPUs' queues (stream id modulo the GPUs, as
 * pl_stream_add does once they are known). Frames waiting in queue 0 move to their
 * stream's queue in order; a frame's pictures come from its queue's pools from its next
 * decode on (pl_free_slot), so frames being decoded or held keep theirs. */
static void streams_to_gpus(pl_pipeline *p)
{
    for (int i = 0; i < p->nstreams; i++) {
        pl_stream *st = &p->streams[i];
        if (!st->used)
            continue;
        st->queue = i % p->ngpus;
        for (unsigned k = 0; st->slots && k < st->nslots; k++)
            if (st->slots[k].state == SLOT_FREE || st->slots[k].state == SLOT_FILLING)
                st->slots[k].queue = st->queue;
    }
    pl_queue *q0 = &p->queues[0];
    pl_slot *list = q0->head;
    q0->head = q0->tail = NULL;
    for (pl_slot *s = list, *next; s; s = next) {
        next = s->work_next;
        s->work_next = NULL;
        s->queue = p->streams[s->f.stream].queue;
        pl_queue *q = &p->queues[s->queue];
        if (q->tail)
            q->tail->work_next = s;
        else
            q->head = s;
        q->tail = s;
    }
}

/* The start's thread: the driver, the GPUs chosen, each brought up (bring_up_gpus); then,
 * unless the pipeline was destroyed meanwhile, the streams move to the GPUs and their
 * decoder threads start; or the start failed and the C decoder goes on. */
void (*pl_test_gpu_start_hook)(void);

static void *start_gpus_main(void *arg)
{
    pl_pipeline *p = arg;
    if (pl_test_gpu_start_hook)
        pl_test_gpu_start_hook();
    const pl_config *c = &p->cfg;
    char why[256] = "";
    uint64_t t0 = xsf_clock_mono_ns();
    const int visible = pl_gpu_count();
    const int usable = visible > 0 && gpu_usable();
    const uint64_t driver_ns = xsf_clock_mono_ns() - t0;
    int ngpus = 0;
    if (!usable) {
        snprintf(why, sizeof why, "no usable GPU (%d device%s visible)", visible,
                 visible == 1 ? "" : "s");
    } else if (c->ngpus > 0) {
        ngpus = c->ngpus < PL_MAX_GPUS ? c->ngpus : PL_MAX_GPUS;
        for (int i = 0; i < ngpus && !why[0]; i++) {
            if (c->gpus[i] < 0 || c->gpus[i] >= visible)
                snprintf(why, sizeof why, "GPU %d does not exist (%d visible: 0..%d)", c->gpus[i],
                         visible, visible - 1);
            p->start_gpus[i] = c->gpus[i];
        }
    } else {
        ngpus = visible < PL_MAX_GPUS ? visible : PL_MAX_GPUS;
        for (int i = 0; i < ngpus; i++)
            p->start_gpus[i] = i;
    }
    const unsigned per = c->contexts_per_gpu ? c->contexts_per_gpu : 3;
    int sync_refused = 0, reserve_refused = 0;
    if (!why[0]) {
        p->start_ngpus = ngpus;
        p->workers = calloc((size_t)ngpus * per, sizeof *p->workers);
        xsf_error e;
        xsf_error_clear(&e);
        if (!p->workers)
            snprintf(why, sizeof why, "out of memory");
        else if (bring_up_gpus(p, ngpus, c, per, &sync_refused, &reserve_refused, &e) != XSF_OK)
            snprintf(why, sizeof why, "%s", e.msg);
    }
    char desc[512] = "";
    if (!why[0])
        describe_gpus(desc, sizeof desc, ngpus, p->start_gpus, c, per, sync_refused,
                      reserve_refused);
    pthread_mutex_lock(&p->mu);
    p->startup.driver_ns = driver_ns;
    const int abandoned = p->stopping;
    if (!abandoned && !why[0]) {
        memcpy(p->gpus, p->start_gpus, sizeof p->gpus);
        p->ngpus = ngpus;
        p->nqueues = (unsigned)ngpus;
        p->pictures_per_queue = per + 2;
        p->startup.ngpus = ngpus;
        streams_to_gpus(p);
        snprintf(p->desc, sizeof p->desc, "%s; the C decoder on %u threads until it was ready",
                 desc, p->ncpu_workers);
        p->startup.gpu_ready_ns = xsf_clock_mono_ns() - p->created;
        __atomic_store_n(&p->gpu_state, PL_GPU_START_READY, __ATOMIC_RELEASE);
        for (unsigned q = 0; q < PL_MAX_GPUS; q++)
            pthread_cond_broadcast(&p->queues[q].cv); /* the C decoder threads end */
    } else if (!abandoned) {
        snprintf(p->start_error, sizeof p->start_error, "%s", why);
        snprintf(p->startup.gpu_error, sizeof p->startup.gpu_error, "%s", why);
        snprintf(p->desc, sizeof p->desc, "CPU: %u decoder threads (%s)", p->ncpu_workers, why);
        __atomic_store_n(&p->gpu_state, PL_GPU_START_FAILED, __ATOMIC_RELEASE);
    }
    pthread_cond_broadcast(&p->progress); /* pl_uses_gpu waits for this */
    pthread_mutex_unlock(&p->mu);
    if (!abandoned && !why[0]) {
        for (unsigned i = 0; i < p->nworkers; i++)
            p->workers[i].started =
                pthread_create(&p->workers[i].thread, NULL, pl_worker_main, &p->workers[i]) == 0;
        p->prov_started = pthread_create(&p->prov, NULL, pl_provision_main, p) == 0;
    } else if (p->workers) { /* what it made, freed: nothing else used it */
        for (unsigned i = 0; i < p->nworkers; i++)
            pl_worker_free(&p->workers[i]);
        free(p->workers);
        p->workers = NULL;
        p->nworkers = 0;
    }
    pthread_mutex_lock(&p->mu);
    p->starter_running = 0;
    const int gone = p->destroyed;
    pthread_mutex_unlock(&p->mu);
    if (gone) { /* pl_destroy left p to this thread */
        free_shell(p);
        __atomic_sub_fetch(&starts_pending, 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

/* pl_config.start_on_cpu: the C decoder threads now, the GPUs' start on its thread. */
static xsf_status create_deferred(pl_pipeline *p, const pl_config *c, xsf_error *err)
{
    p->deferred = 1;
    p->use_gpu = 1; /* the GPU engine's memory (mapped, pinned once the GPUs are ready) */
    p->gpu_state = PL_GPU_START_RUNNING;
    p->cfg = *c;
    p->nqueues = 1;
    const unsigned n = c->cpu_threads ? c->cpu_threads : (unsigned)xsf_cpu_count();
    p->cpu_workers = calloc(n, sizeof *p->cpu_workers);
    if (!p->cpu_workers)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    const uint64_t t0 = xsf_clock_mono_ns();
    for (unsigned k = 0; k < n; k++) {
        if (pl_worker_init(&p->cpu_workers[k], p, 0, -1, err) != XSF_OK)
            return err->status;
        p->ncpu_workers++;
    }
    p->startup.decoders_ns = xsf_clock_mono_ns() - t0;
    p->startup.cpu_threads = n;
    for (unsigned i = 0; i < n; i++) {
        if (pthread_create(&p->cpu_workers[i].thread, NULL, pl_worker_main, &p->cpu_workers[i]))
            return xsf_error_set(err, XSF_ERR_NOMEM, "cannot start a decoder thread");
        p->cpu_workers[i].started = 1;
    }
    snprintf(p->desc, sizeof p->desc, "GPU starting; the C decoder on %u threads meanwhile", n);
    p->starter_running = 1;
    if (!(p->starter_made = pthread_create(&p->starter, NULL, start_gpus_main, p) == 0)) {
        p->starter_running = 0;
        p->gpu_state = PL_GPU_START_FAILED;
        snprintf(p->startup.gpu_error, sizeof p->startup.gpu_error,
                 "cannot start the GPU's thread");
    }
    return XSF_OK;
}

static xsf_status create_pipeline(pl_pipeline **out, const pl_config *cfg, uint64_t called,
                                  uint64_t driver_ns, xsf_error *err)
{
    *out = NULL;
    pl_config c = *cfg;
    pl_pipeline *p = calloc(1, sizeof *p);
    if (!p)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    p->created = called;
    p->cfg = c;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->progress, NULL);
    pthread_cond_init(&p->prov_cv, NULL);
    for (int i = 0; i < PL_MAX_GPUS; i++) {
        pthread_cond_init(&p->queues[i].cv, NULL);
        pl_pool_init(p, (unsigned)i);
    }

    if (c.engine == PL_ENGINE_AUTO && c.start_on_cpu) {
        if (create_deferred(p, &c, err) != XSF_OK) {
            pl_destroy(p);
            return err->status;
        }
        p->startup.total_ns = xsf_clock_mono_ns() - p->created;
        *out = p;
        return XSF_OK;
    }
    uint64_t t0 = xsf_clock_mono_ns();
    const int visible = c.engine == PL_ENGINE_CPU ? 0 : pl_gpu_count();
    const int usable = visible > 0 && gpu_usable();
    if (c.engine != PL_ENGINE_CPU)
        p->startup.driver_ns = driver_ns + (xsf_clock_mono_ns() - t0);
    char why[160] = "";
    if (c.engine == PL_ENGINE_GPU && !usable) {
        pl_destroy(p);
        return xsf_error_set(err, XSF_ERR_NODEVICE, "no usable GPU (CUDA %s, %d device%s visible)",
#ifdef XSF_HAVE_CUDA
                             "built",
#else
                             "not built",
#endif
                             visible, visible == 1 ? "" : "s");
    }
    if (c.engine != PL_ENGINE_CPU && !usable)
        snprintf(why, sizeof why, " (no usable GPU)");
    p->use_gpu = usable;
    if (p->use_gpu) {
        if (c.ngpus > 0) {
            if (c.ngpus > PL_MAX_GPUS) {
                pl_destroy(p);
                return xsf_error_set(err, XSF_ERR_ARG, "at most %d GPUs", PL_MAX_GPUS);
            }
            for (int i = 0; i < c.ngpus; i++) {
                if (c.gpus[i] < 0 || c.gpus[i] >= visible) {
                    pl_destroy(p);
                    return xsf_error_set(err, XSF_ERR_ARG,
                                         "GPU %d does not exist (%d visible: 0..%d)", c.gpus[i],
                                         visible, visible - 1);
                }
                p->gpus[i] = c.gpus[i];
            }
            p->ngpus = c.ngpus;
        } else {
            p->ngpus = visible < PL_MAX_GPUS ? visible : PL_MAX_GPUS;
            for (int i = 0; i < p->ngpus; i++)
                p->gpus[i] = i;
        }
        const unsigned per = c.contexts_per_gpu ? c.contexts_per_gpu : 3;
        p->nqueues = (unsigned)p->ngpus;
        p->pictures_per_queue = per + 2;
        p->workers = calloc((size_t)p->ngpus * per, sizeof *p->workers);
        if (!p->workers) {
            pl_destroy(p);
            return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
        }
        /* A runtime that refuses the way threads wait leaves CUDA's own choice, said in
         * the description. */
        int sync_refused = 0, reserve_refused = 0;
        if (bring_up_gpus(p, p->ngpus, &c, per, &sync_refused, &reserve_refused, err) != XSF_OK) {
            pl_destroy(p);
            return err->status;
        }
        p->startup.ngpus = p->ngpus;
        describe_gpus(p->desc, sizeof p->desc, p->ngpus, p->gpus, &c, per, sync_refused,
                      reserve_refused);
    } else {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        const unsigned n = c.cpu_threads ? c.cpu_threads : (unsigned)(cores > 0 ? cores : 1);
        p->nqueues = 1;
        p->workers = calloc(n, sizeof *p->workers);
        if (!p->workers) {
            pl_destroy(p);
            return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
        }
        t0 = xsf_clock_mono_ns();
        for (unsigned k = 0; k < n; k++)
            if (add_worker(p, 0, -1, err) != XSF_OK) {
                pl_destroy(p);
                return err->status;
            }
        p->startup.decoders_ns = xsf_clock_mono_ns() - t0;
        snprintf(p->desc, sizeof p->desc, "CPU: %u decoder thread%s%s", n, n == 1 ? "" : "s", why);
    }
    for (unsigned i = 0; i < p->nworkers; i++) {
        if (pthread_create(&p->workers[i].thread, NULL, pl_worker_main, &p->workers[i])) {
            pl_destroy(p);
            return xsf_error_set(err, XSF_ERR_NOMEM, "cannot start a decoder thread");
        }
        p->workers[i].started = 1;
    }
    if (p->use_gpu) {
        if (pthread_create(&p->prov, NULL, pl_provision_main, p)) {
            pl_destroy(p);
            return xsf_error_set(err, XSF_ERR_NOMEM, "cannot start the memory provisioner thread");
        }
        p->prov_started = 1;
    }
    p->startup.total_ns = xsf_clock_mono_ns() - p->created;
    *out = p;
    return XSF_OK;
}

const char *pl_describe(const pl_pipeline *p)
{
    return p->desc;
}

int pl_uses_gpu(const pl_pipeline *p)
{
    if (!p->deferred)
        return p->use_gpu;
    pl_pipeline *m = (pl_pipeline *)p; /* waits on its lock: the answer, once there is one */
    pthread_mutex_lock(&m->mu);
    while (m->gpu_state == PL_GPU_START_RUNNING)
        pthread_cond_wait(&m->progress, &m->mu);
    const int ready = m->gpu_state == PL_GPU_START_READY;
    pthread_mutex_unlock(&m->mu);
    return ready;
}

pl_gpu_start pl_gpu_start_state(pl_pipeline *p)
{
    pthread_mutex_lock(&p->mu);
    const pl_gpu_start s = p->deferred ? (pl_gpu_start)p->gpu_state : PL_GPU_START_NONE;
    pthread_mutex_unlock(&p->mu);
    return s;
}
/* The teardown of one decode queue's GPU (on a thread of its own): its decoder contexts
 * and its picture pools. */
typedef struct tear_down {
    pl_pipeline *p;
    unsigned queue;
} tear_down;

static void *tear_down_queue(void *arg)
{
    tear_down *t = arg;
    pl_pipeline *p = t->p;
    for (unsigned i = 0; i < p->nworkers; i++)
        if (p->workers[i].queue == (int)t->queue)
            pl_worker_free(&p->workers[i]);
    pl_pool_free(p, t->queue);
    return NULL;
}

/* Stops and frees p; *s (NULL: none) gets the start-up figures as the teardown begins. */
static void destroy_pipeline(pl_pipeline *p, pl_startup_stats *s)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stopping = 1;
    /* A GPU start not done is not waited for: its thread frees what it made, and p
     * (free_shell) when it ends after this. */
    const int abandoned = p->deferred && p->gpu_state == PL_GPU_START_RUNNING;
    if (abandoned) {
        p->startup.gpu_start_abandoned = 1;
        __atomic_add_fetch(&starts_pending, 1, __ATOMIC_RELEASE);
    }
    for (unsigned q = 0; q < PL_MAX_GPUS; q++)
        pthread_cond_broadcast(&p->queues[q].cv);
    pthread_cond_signal(&p->prov_cv);
    const int starter = p->starter_made;
    if (s) {
        *s = p->startup;
        s->gpu_start = p->deferred ? p->gpu_state : PL_GPU_START_NONE;
    }
    pthread_mutex_unlock(&p->mu);
    if (starter && abandoned)
        pthread_detach(p->starter);
    else if (starter)
        pthread_join(p->starter, NULL); /* its tail: the GPUs' threads started */
    if (p->prov_started)
        pthread_join(p->prov, NULL);
    for (pl_grave *g = p->graves, *n; g; g = n) {
        n = g->next;
        pl_host_free(g->ptr, 1);
        free(g);
    }
    for (unsigned i = 0; i < p->ncpu_workers; i++)
        if (p->cpu_workers[i].started)
            pthread_join(p->cpu_workers[i].thread, NULL);
    for (unsigned i = 0; i < p->ncpu_workers; i++)
        pl_worker_free(&p->cpu_workers[i]);
    free(p->cpu_workers);
    for (unsigned i = 0; !abandoned && i < p->nworkers; i++)
        if (p->workers[i].started)
            pthread_join(p->workers[i].thread, NULL);
    /* Each GPU's decoders and pools go side by side (freeing device memory waits for its
     * device); the CPU engine's in turn. An abandoned start's decoders are its thread's. */
    tear_down t[PL_MAX_GPUS];
    const unsigned nq = p->use_gpu ? p->nqueues : 1;
    for (unsigned q = 0; q < nq; q++)
        t[q] = (tear_down){.p = p, .queue = q};
    if (abandoned)
        pl_pool_free(p, 0); /* what the C decoders used: mapped host memory, never pinned */
    else
        side_by_side(tear_down_queue, t, sizeof t[0], nq);
    for (int i = 0; i < p->nstreams; i++) {
        if (p->use_gpu && p->ngpus > 0)
            pl_gpu_select(p->gpus[p->streams[i].queue]);
        pl_stream_free(&p->streams[i]);
    }
    if (!abandoned)
        free(p->workers);
    pthread_mutex_lock(&p->mu);
    p->destroyed = 1;
    const int alive = abandoned && p->starter_running;
    pthread_mutex_unlock(&p->mu);
    if (alive)
        return; /* the start's thread frees the rest when it ends */
    if (abandoned)
        __atomic_sub_fetch(&starts_pending, 1, __ATOMIC_RELEASE);
    free_shell(p);
}

void pl_note_setup(pl_worker *w, uint64_t ns)
{
    if (w->setup_seen)
        return;
    w->setup_seen = 1;
    pl_pipeline *p = w->p;
    pthread_mutex_lock(&p->mu);
    if (!p->startup.first_setup_ns)
        p->startup.first_setup_ns = ns ? ns : 1;
    if (ns > p->startup.first_setup_max_ns)
        p->startup.first_setup_max_ns = ns;
    pthread_mutex_unlock(&p->mu);
}

void pl_startup_get(pl_pipeline *p, pl_startup_stats *s)
{
    pthread_mutex_lock(&p->mu);
    *s = p->startup;
    s->gpu_start = p->deferred ? p->gpu_state : PL_GPU_START_NONE;
    pthread_mutex_unlock(&p->mu);
}

/* ---- the caller's CUDA device ----
 * These select the pipeline's GPUs on the calling thread; the caller's
 * current device is restored before they return (pipeline.h: CUDA devices). */

xsf_status pl_create(pl_pipeline **out, const pl_config *cfg, xsf_error *err)
{
    const uint64_t called = xsf_clock_mono_ns();
    /* The CPU engine never starts CUDA (its driver's start costs ~100 ms). Otherwise the
     * caller's device is saved first, and that first runtime call starts the driver:
     * timed as the driver's start. */
    if (cfg->engine == PL_ENGINE_CPU)
        return create_pipeline(out, cfg, called, 0, err);
    if (cfg->engine == PL_ENGINE_AUTO && cfg->start_on_cpu)
        return create_pipeline(out, cfg, called, 0, err); /* no CUDA call on this thread */
    const int saved = pl_gpu_save();
    const xsf_status st = create_pipeline(out, cfg, called, xsf_clock_mono_ns() - called, err);
    pl_gpu_restore(saved);
    return st;
}

static void destroy_saving(pl_pipeline *p, pl_startup_stats *s)
{
    if (p && (!p->use_gpu || !pl_gpu_ready(p))) { /* no CUDA call on this thread */
        destroy_pipeline(p, s);
        return;
    }
    const int saved = pl_gpu_save();
    destroy_pipeline(p, s);
    pl_gpu_restore(saved);
}

void pl_destroy(pl_pipeline *p)
{
    destroy_saving(p, NULL);
}

void pl_destroy_stats(pl_pipeline *p, pl_startup_stats *s)
{
    const uint64_t t0 = xsf_clock_mono_ns();
    destroy_saving(p, p ? s : NULL);
    if (s && p)
        s->teardown_ns = xsf_clock_mono_ns() - t0;
}

/* Appends to out[cap] (a truncated line stays terminated). */
static void append(char *out, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void append(char *out, size_t cap, const char *fmt, ...)
{
    const size_t at = strlen(out);
    if (at + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + at, cap - at, fmt, ap);
    va_end(ap);
}

static double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

const char *pl_startup_format(const pl_startup_stats *s, char *out, size_t cap)
{
    if (!cap)
        return out;
    out[0] = 0;
    if (s->driver_ns)
        append(out, cap, "CUDA driver %.1f ms; ", ms(s->driver_ns));
    for (int g = 0; g < s->ngpus && g < PL_MAX_GPUS; g++) {
        const pl_gpu_startup *t = &s->gpu[g];
        append(out, cap,
               "GPU %d: context %.1f ms, kernels and first decoder context %.1f ms, other "
               "decoder contexts %.1f ms, ready at %.1f ms; ",
               t->device, ms(t->context_ns), ms(t->modules_ns), ms(t->decoders_ns),
               ms(t->ready_ns));
    }
    if (s->reserve_ns)
        append(out, cap, "pinned reserve %.1f ms; ", ms(s->reserve_ns));
    if (s->decoders_ns)
        append(out, cap, "C decoders %.1f ms; ", ms(s->decoders_ns));
    append(out, cap, "pipeline ready at %.1f ms", ms(s->total_ns));
    if (s->gpu_start != PL_GPU_START_NONE || s->gpu_start_abandoned) {
        append(out, cap,
               "; GPU started on a thread of its own, the C decoder (%u threads) meanwhile "
               "decoded %llu frame%s",
               s->cpu_threads, (unsigned long long)s->cpu_frames, s->cpu_frames == 1 ? "" : "s");
        if (s->gpu_ready_ns)
            append(out, cap, ", GPU took over at %.1f ms", ms(s->gpu_ready_ns));
        else if (s->gpu_start_abandoned)
            append(out, cap, ", GPU not ready at the end: its start not waited for");
        else if (s->gpu_start == PL_GPU_START_FAILED)
            append(out, cap, ", GPU start failed: %s", s->gpu_error);
    }
    if (s->cpu_parts_helped)
        append(out, cap, "; %llu parts of frames taken by idle C decoder threads",
               (unsigned long long)s->cpu_parts_helped);
    if (s->first_setup_ns)
        append(out, cap, "; first frame's set-up %.1f ms (longest of any decoder context %.1f ms)",
               ms(s->first_setup_ns), ms(s->first_setup_max_ns));
    if (s->first_picture_ns)
        append(out, cap, "; first picture at %.1f ms", ms(s->first_picture_ns));
    if (s->teardown_ns)
        append(out, cap, "; teardown %.1f ms", ms(s->teardown_ns));
    return out;
}
