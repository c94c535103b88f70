/* The CUDA runtime calls of the pipeline (pipeline/pl_gpu.c), behind plain
 * C so that the rest of pipeline/ builds without CUDA. Without CUDA every
 * call answers "no device" and host memory comes from malloc. Internal. */
#ifndef XSF_PIPELINE_PL_GPU_H
#define XSF_PIPELINE_PL_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "pipeline.h"

/* Visible CUDA devices (0 without CUDA or GPU). */
int pl_gpu_count(void);
/* The device's name, "" when unknown. */
void pl_gpu_name(int device, char *out, size_t cap);
/* Host memory, pinned when `pinned` (and CUDA is there): uploads from and
 * downloads into it are asynchronous DMA. Freed with pl_host_free with the
 * same flag. */
void *pl_host_alloc(size_t bytes, int pinned);
void pl_host_free(void *ptr, int pinned);
/* Host memory to be pinned later, by pl_host_pin (0 on success or when
 * pinned already; -1 where CUDA refuses, or without CUDA). Until then
 * uploads from it and downloads into it are staged by the driver (and
 * synchronous). Freed with pl_host_free(ptr, 1), pinned or not. Without
 * CUDA it is malloc's. */
void *pl_host_map(size_t bytes);
int pl_host_pin(void *ptr);
int pl_host_pinned(const void *ptr);
/* Whether freeing it unpins (holding the driver's lock): pinned, not from the reserve. */
int pl_host_unpin_costs(const void *ptr);
/* Pins `bytes` of host memory now, as a reserve from which pl_host_map and
 * pl_host_alloc(..., 1) carve pinned buffers (without pinning) while it
 * lasts; 0 on success, -1 where it cannot (without CUDA, at most 8 times). */
int pl_host_reserve(size_t bytes);
/* Selects the device for the calling thread; 0 on success. */
int pl_gpu_select(int device);
/* Selects the device and makes its CUDA context now (the runtime makes it
 * on the first call that needs one); 0 on success. */
int pl_gpu_context(int device);
/* The calling thread's current device (-1 without CUDA or where CUDA cannot
 * say), and that device made current again: a public call that selects
 * devices saves first and restores before it returns (xsf_cuda_device.h). */
int pl_gpu_save(void);
void pl_gpu_restore(int saved);
/* Selects `device` and sets how threads wait for it (0 auto, 1 spin, 2 yield, 3 blocking
 * sync: pl_gpu_sync's values), keeping its other flags; 0 on success, -1 where CUDA refuses
 * (and without CUDA). To be called before the device's contexts are used. */
int pl_gpu_set_sync(int device, int mode);
/* A non-blocking CUDA stream (a cudaStream_t) on the current device; NULL on failure. */
void *pl_gpu_stream_create(void);
void pl_gpu_stream_destroy(void *s);
/* Device memory on the current device; NULL on failure. */
void *pl_gpu_alloc(size_t bytes);
void pl_gpu_free(void *ptr);
/* Waits for `s`; 0 on success. */
int pl_gpu_stream_sync(void *s);
/* An event on the current device that tells when the work enqueued on a
 * stream before it was recorded has run (NULL on failure, and without
 * CUDA). record: 0 on success; done: 1 once that work has run. */
void *pl_gpu_event_create(void);
void pl_gpu_event_destroy(void *e);
int pl_gpu_event_record(void *e, void *s);
int pl_gpu_event_done(void *e);

#endif
