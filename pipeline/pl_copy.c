/* The copy pool (pl_copy.h). A frame's copies are cut into pieces of
 * PL_COPY_PIECE copies, handed out to the threads in order, frame after
 * frame, so that every thread works on the frame at the front instead of
 * one frame each: few frames are in flight (the stream's pool is small) and
 * each leaves soon after its last packet was read. Whoever finishes the last
 * piece of a frame submits it and every finished frame behind it, in order,
 * under the pool's lock (pl_frame_submit takes the pipeline's lock inside
 * it, never the other way round). */
#define _POSIX_C_SOURCE 200809L

#include "pl_copy.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PL_COPY_PIECE 128 /* copies of about 1.4 kB: 180 kB a piece */
#define PL_COPY_MAX_THREADS 64

typedef struct copy_job {
    pl_frame *f;
    rtp_copy *copies;
    size_t n, cap;
    size_t handed;      /* copies handed out so far */
    size_t pieces_left; /* pieces not finished */
} copy_job;

struct pl_copy_pool {
    pl_pipeline *p;
    pthread_mutex_t mu;
    pthread_cond_t work;  /* threads: a piece to copy, or stop */
    pthread_cond_t space; /* the submitter: a job left the pool */
    copy_job jobs[PL_COPY_FRAMES];
    uint64_t head; /* the oldest job not yet submitted */
    uint64_t hand; /* the first job with copies not yet handed out */
    uint64_t tail; /* the next job to fill */
    int stop;
    unsigned nthreads;
    pthread_t threads[PL_COPY_MAX_THREADS];
};

/* Submits the finished jobs at the front, in order. Called with c->mu held. */
static void submit_finished(pl_copy_pool *c)
{
    int any = 0;
    while (c->head < c->tail) {
        copy_job *j = &c->jobs[c->head % PL_COPY_FRAMES];
        if (j->pieces_left || j->handed < j->n)
            break;
        pl_frame_submit(c->p, j->f);
        j->f = NULL;
        c->head++;
        any = 1;
    }
    if (any)
        pthread_cond_broadcast(&c->space);
}

static void *copy_main(void *arg)
{
    pl_copy_pool *c = arg;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        if (c->hand < c->head) /* jobs without copies leave without the threads */
            c->hand = c->head;
        while (c->hand < c->tail &&
               c->jobs[c->hand % PL_COPY_FRAMES].handed == c->jobs[c->hand % PL_COPY_FRAMES].n)
            c->hand++;
        if (c->hand == c->tail) {
            if (c->stop)
                break;
            pthread_cond_wait(&c->work, &c->mu);
            continue;
        }
        copy_job *j = &c->jobs[c->hand % PL_COPY_FRAMES];
        const size_t from = j->handed;
        const size_t to = j->n - from > PL_COPY_PIECE ? from + PL_COPY_PIECE : j->n;
        j->handed = to;
        uint8_t *buf = j->f->buffer;
        const rtp_copy *cp = j->copies;
        pthread_mutex_unlock(&c->mu);
        for (size_t i = from; i < to; i++)
            memcpy(buf + cp[i].offset, cp[i].src, cp[i].bytes);
        pthread_mutex_lock(&c->mu);
        if (!--j->pieces_left)
            submit_finished(c);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

xsf_status pl_copy_pool_create(pl_copy_pool **out, pl_pipeline *p, unsigned threads, xsf_error *err)
{
    *out = NULL;
    if (!threads || threads > PL_COPY_MAX_THREADS)
        return xsf_error_set(err, XSF_ERR_ARG, "copy threads: %u, expected 1 to %d", threads,
                             PL_COPY_MAX_THREADS);
    pl_copy_pool *c = calloc(1, sizeof *c);
    if (!c)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    c->p = p;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->work, NULL);
    pthread_cond_init(&c->space, NULL);
    for (unsigned i = 0; i < threads; i++) {
        if (pthread_create(&c->threads[i], NULL, copy_main, c)) {
            pl_copy_pool_destroy(c);
            return xsf_error_set(err, XSF_ERR_NOMEM, "cannot start copy thread %u", i + 1);
        }
        c->nthreads++;
    }
    *out = c;
    return XSF_OK;
}

void pl_copy_pool_submit(pl_copy_pool *c, pl_frame *f, const rtp_copy *copies, size_t n)
{
    pthread_mutex_lock(&c->mu);
    while (c->tail - c->head == PL_COPY_FRAMES)
        pthread_cond_wait(&c->space, &c->mu);
    copy_job *j = &c->jobs[c->tail % PL_COPY_FRAMES];
    pthread_mutex_unlock(&c->mu);
    /* The slot is the submitter's alone until tail moves past it. */
    if (n > j->cap) {
        size_t cap = j->cap ? j->cap : 1024;
        while (cap < n)
            cap *= 2;
        rtp_copy *nc = realloc(j->copies, cap * sizeof *nc);
        if (nc) {
            j->copies = nc;
            j->cap = cap;
        }
    }
    if (n > j->cap) { /* no memory for the list: the copies are made here */
        for (size_t i = 0; i < n; i++)
            memcpy(f->buffer + copies[i].offset, copies[i].src, copies[i].bytes);
        n = 0;
    }
    if (n)
        memcpy(j->copies, copies, n * sizeof *copies);
    j->f = f;
    j->n = n;
    j->handed = 0;
    j->pieces_left = (n + PL_COPY_PIECE - 1) / PL_COPY_PIECE;
    pthread_mutex_lock(&c->mu);
    c->tail++;
    if (n)
        pthread_cond_broadcast(&c->work);
    else
        submit_finished(c);
    pthread_mutex_unlock(&c->mu);
}

void pl_copy_pool_wait(pl_copy_pool *c)
{
    pthread_mutex_lock(&c->mu);
    while (c->head < c->tail)
        pthread_cond_wait(&c->space, &c->mu);
    pthread_mutex_unlock(&c->mu);
}

void pl_copy_pool_destroy(pl_copy_pool *c)
{
    if (!c)
        return;
    pl_copy_pool_wait(c);
    pthread_mutex_lock(&c->mu);
    c->stop = 1;
    pthread_cond_broadcast(&c->work);
    pthread_mutex_unlock(&c->mu);
    for (unsigned i = 0; i < c->nthreads; i++)
        pthread_join(c->threads[i], NULL);
    for (size_t i = 0; i < PL_COPY_FRAMES; i++)
        free(c->jobs[i].copies);
    pthread_cond_destroy(&c->work);
    pthread_cond_destroy(&c->space);
    pthread_mutex_destroy(&c->mu);
    free(c);
}
