/* The pipeline's creation and teardown: the decode queues (one per GPU,
 * or one for the CPU), their decoder threads and the provisioner. The rest
 * lives beside it: pl_pool.c (memory), pl_decode.c (decoding), pl_stream.c
 * (streams, frames, the in-order hand-over); pl_internal.h holds their
 * shared state. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
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

static xsf_status create_pipeline(pl_pipeline **out, const pl_config *cfg, xsf_error *err)
{
    *out = NULL;
    pl_config c = *cfg;
    pl_pipeline *p = calloc(1, sizeof *p);
    if (!p)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->progress, NULL);
    pthread_cond_init(&p->prov_cv, NULL);
    for (int i = 0; i < PL_MAX_GPUS; i++) {
        pthread_cond_init(&p->queues[i].cv, NULL);
        pl_pool_init(p, (unsigned)i);
    }

    const int visible = c.engine == PL_ENGINE_CPU ? 0 : pl_gpu_count();
    const int usable = visible > 0 && gpu_usable();
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
        /* Before any stream runs: pinning later holds the driver while they do. */
        int reserve_refused = 0;
        if (c.pinned_reserve_bytes) {
            pl_gpu_select(p->gpus[0]);
            reserve_refused = pl_host_reserve(c.pinned_reserve_bytes) != 0;
        }
        p->workers = calloc((size_t)p->ngpus * per, sizeof *p->workers);
        if (!p->workers) {
            pl_destroy(p);
            return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
        }
        /* How the decoder threads wait, set on each device before its contexts; a
         * runtime that refuses leaves CUDA's own choice, said in the description. */
        int sync_refused = 0;
        for (int g = 0; g < p->ngpus; g++)
            if (c.gpu_sync != PL_GPU_SYNC_AUTO && pl_gpu_set_sync(p->gpus[g], (int)c.gpu_sync))
                sync_refused = 1;
        for (int g = 0; g < p->ngpus; g++)
            for (unsigned k = 0; k < per; k++)
                if (add_worker(p, g, p->gpus[g], err) != XSF_OK) {
                    pl_destroy(p);
                    return err->status;
                }
        char name[128];
        pl_gpu_name(p->gpus[0], name, sizeof name);
        snprintf(p->desc, sizeof p->desc, "GPU: %d x %s (device%s", p->ngpus, name,
                 p->ngpus == 1 ? "" : "s");
        for (int g = 0; g < p->ngpus; g++)
            snprintf(p->desc + strlen(p->desc), sizeof p->desc - strlen(p->desc), " %d",
                     p->gpus[g]);
        static const char *const waits[] = {"CUDA's choice", "spin", "yield", "block"};
        snprintf(p->desc + strlen(p->desc), sizeof p->desc - strlen(p->desc),
                 "), %u decoder contexts each, GPU waits: %s%s", per,
                 waits[(unsigned)c.gpu_sync < 4 ? c.gpu_sync : 0],
                 sync_refused ? " (refused by CUDA: its own choice)" : "");
        if (c.pinned_reserve_bytes)
            snprintf(p->desc + strlen(p->desc), sizeof p->desc - strlen(p->desc),
                     ", pinned reserve %.0f MiB%s", (double)c.pinned_reserve_bytes / 1048576.0,
                     reserve_refused ? " (refused: frames are pinned as they are used)" : "");
    } else {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        const unsigned n = c.cpu_threads ? c.cpu_threads : (unsigned)(cores > 0 ? cores : 1);
        p->nqueues = 1;
        p->workers = calloc(n, sizeof *p->workers);
        if (!p->workers) {
            pl_destroy(p);
            return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
        }
        for (unsigned k = 0; k < n; k++)
            if (add_worker(p, 0, -1, err) != XSF_OK) {
                pl_destroy(p);
                return err->status;
            }
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
    *out = p;
    return XSF_OK;
}

const char *pl_describe(const pl_pipeline *p)
{
    return p->desc;
}

int pl_uses_gpu(const pl_pipeline *p)
{
    return p->use_gpu;
}
static void destroy_pipeline(pl_pipeline *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stopping = 1;
    for (unsigned q = 0; q < PL_MAX_GPUS; q++)
        pthread_cond_broadcast(&p->queues[q].cv);
    pthread_cond_signal(&p->prov_cv);
    pthread_mutex_unlock(&p->mu);
    if (p->prov_started)
        pthread_join(p->prov, NULL);
    for (pl_grave *g = p->graves, *n; g; g = n) {
        n = g->next;
        pl_host_free(g->ptr, 1);
        free(g);
    }
    for (unsigned i = 0; i < p->nworkers; i++) {
        pl_worker *w = &p->workers[i];
        if (w->started)
            pthread_join(w->thread, NULL);
        pl_worker_free(w);
    }
    for (int i = 0; i < p->nstreams; i++) {
        if (p->use_gpu && p->ngpus > 0)
            pl_gpu_select(p->gpus[p->streams[i].queue]);
        pl_stream_free(&p->streams[i]);
    }
    free(p->workers);
    pl_pools_free(p);
    for (int i = 0; i < PL_MAX_GPUS; i++)
        pthread_cond_destroy(&p->queues[i].cv);
    pthread_cond_destroy(&p->progress);
    pthread_cond_destroy(&p->prov_cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

/* ---- the caller's CUDA device ----
 * These select the pipeline's GPUs on the calling thread; the caller's
 * current device is restored before they return (pipeline.h: CUDA devices). */

xsf_status pl_create(pl_pipeline **out, const pl_config *cfg, xsf_error *err)
{
    const int saved = pl_gpu_save();
    const xsf_status st = create_pipeline(out, cfg, err);
    pl_gpu_restore(saved);
    return st;
}

void pl_destroy(pl_pipeline *p)
{
    const int saved = pl_gpu_save();
    destroy_pipeline(p);
    pl_gpu_restore(saved);
}
