/* The copy pool of an RTP capture source: threads that make the payload
 * copies the depacketizer deferred (rtp_depacketizer_config.defer_copies)
 * into a frame and then submit it, frames in the order handed over.
 * Internal to pipeline/ (source_rtp.c). */
#ifndef XSF_PIPELINE_PL_COPY_H
#define XSF_PIPELINE_PL_COPY_H

#include "pipeline.h"

/* Frames in the pool at once (handed over, not yet submitted). */
#define PL_COPY_FRAMES 4

typedef struct pl_copy_pool pl_copy_pool;

xsf_status pl_copy_pool_create(pl_copy_pool **c, pl_pipeline *p, unsigned threads, xsf_error *err);
/* Hands frame f over: the copies (offsets into f->buffer; the list is
 * copied) are made on the pool's threads, then f is submitted
 * (pl_frame_submit) after every frame handed over before it. With no
 * copies it is submitted in its turn all the same. Blocks while
 * PL_COPY_FRAMES frames are in the pool. From one thread. */
void pl_copy_pool_submit(pl_copy_pool *c, pl_frame *f, const rtp_copy *copies, size_t n);
/* Blocks until every frame handed over has been submitted. */
void pl_copy_pool_wait(pl_copy_pool *c);
/* Waits, then stops the threads. */
void pl_copy_pool_destroy(pl_copy_pool *c);

#endif
