/* CUDA runtime calls of the pipeline, or their stand-ins without CUDA. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_POPULATE */
#include "pl_gpu.h"
#include <pthread.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xsf_clock.h"

#ifdef XSF_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <sys/mman.h>

#include "xsf_cuda_device.h"

int pl_gpu_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

void pl_gpu_name(int device, char *out, size_t cap)
{
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        cudaGetLastError();
        snprintf(out, cap, "device %d", device);
        return;
    }
    snprintf(out, cap, "%s", prop.name);
}

/* Host buffers of the GPU engine are mappings faulted in by the calling
 * thread (MAP_POPULATE), pinned with cudaHostRegister when asked, at once
 * (pl_host_alloc) or later (pl_host_map, then pl_host_pin). cudaHostAlloc
 * faults the pages in itself while it holds the driver's lock; on the pool's
 * H100 machines pinning costs milliseconds per MB even so, and every other
 * thread's CUDA call waits behind it (BENCHMARKS.md, "Start-up"). The first
 * page keeps the mapping's length and whether it is pinned. */
#define HOST_HEADER ((size_t)4096)

typedef struct host_header {
    size_t total;
    int pinned;
    int reserved; /* carved from the reserve (see below): pinned, freed back into it */
} host_header;

static struct {
    uint64_t pins, pin_bytes, pin_ns, pin_ns_max, unpins, unpin_ns, unpin_ns_max, pinned_bytes;
} pin_stats;

static void stat_max(uint64_t *m, uint64_t v)
{
    uint64_t cur = __atomic_load_n(m, __ATOMIC_RELAXED);
    while (v > cur &&
           !__atomic_compare_exchange_n(m, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

/* The reserve: pinned host memory taken once, before any stream runs
 * (pl_host_reserve), from which pl_host_map and pl_host_alloc carve their
 * buffers while it lasts: a buffer from it costs no pin and no mapping, so a
 * start-up that needs hundreds of buffers at once takes nothing from the
 * driver's lock or the process's address-space lock. First fit over each
 * chunk's free spans (sorted, merged when freed), in 64 KiB units. */
#define RESERVE_CHUNKS 8
#define RESERVE_UNIT ((size_t)64 << 10)

typedef struct span {
    size_t off, len;
} span;

typedef struct chunk {
    uint8_t *base;
    size_t size;
    span *free;
    size_t nfree, cap;
} chunk;

static struct {
    pthread_mutex_t mu;
    chunk c[RESERVE_CHUNKS];
    int n;
    uint64_t bytes, used, misses;
} reserve = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void *reserve_take(size_t bytes)
{
    if (bytes > SIZE_MAX - 2 * RESERVE_UNIT)
        return NULL;
    const size_t total = (HOST_HEADER + bytes + RESERVE_UNIT - 1) / RESERVE_UNIT * RESERVE_UNIT;
    void *out = NULL;
    pthread_mutex_lock(&reserve.mu);
    for (int i = 0; i < reserve.n && !out; i++) {
        chunk *c = &reserve.c[i];
        for (size_t k = 0; k < c->nfree; k++) {
            span *f = &c->free[k];
            if (f->len < total)
                continue;
            host_header *h = (host_header *)(c->base + f->off);
            f->off += total;
            f->len -= total;
            if (!f->len) {
                memmove(f, f + 1, (c->nfree - k - 1) * sizeof *f);
                c->nfree--;
            }
            h->total = total;
            h->pinned = 1;
            h->reserved = 1;
            reserve.used += total;
            out = (uint8_t *)h + HOST_HEADER;
            break;
        }
    }
    if (!out && reserve.n)
        reserve.misses++;
    pthread_mutex_unlock(&reserve.mu);
    return out;
}

static void reserve_give(host_header *h)
{
    pthread_mutex_lock(&reserve.mu);
    for (int i = 0; i < reserve.n; i++) {
        chunk *c = &reserve.c[i];
        if ((uint8_t *)h < c->base || (uint8_t *)h >= c->base + c->size)
            continue;
        const size_t off = (size_t)((uint8_t *)h - c->base), len = h->total;
        size_t k = 0;
        while (k < c->nfree && c->free[k].off < off)
            k++;
        const int join_prev = k > 0 && c->free[k - 1].off + c->free[k - 1].len == off;
        const int join_next = k < c->nfree && off + len == c->free[k].off;
        if (join_prev && join_next) {
            c->free[k - 1].len += len + c->free[k].len;
            memmove(&c->free[k], &c->free[k + 1], (c->nfree - k - 1) * sizeof *c->free);
            c->nfree--;
        } else if (join_prev) {
            c->free[k - 1].len += len;
        } else if (join_next) {
            c->free[k].off = off;
            c->free[k].len += len;
        } else {
            /* cap is one span per unit: never full */
            memmove(&c->free[k + 1], &c->free[k], (c->nfree - k) * sizeof *c->free);
            c->free[k] = (span){off, len};
            c->nfree++;
        }
        reserve.used -= len;
        break;
    }
    pthread_mutex_unlock(&reserve.mu);
}

int pl_host_reserve(size_t bytes)
{
    bytes = (bytes + RESERVE_UNIT - 1) / RESERVE_UNIT * RESERVE_UNIT;
    if (!bytes)
        return 0;
    pthread_mutex_lock(&reserve.mu);
    const int full = reserve.n == RESERVE_CHUNKS;
    pthread_mutex_unlock(&reserve.mu);
    if (full)
        return -1;
    /* A mapping like any other, pinned at once, split up later. */
    uint8_t *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    span *spans = malloc((bytes / RESERVE_UNIT) * sizeof *spans);
    const uint64_t t0 = xsf_clock_mono_ns();
    if (!spans || cudaHostRegister(m, bytes, cudaHostRegisterPortable) != cudaSuccess) {
        cudaGetLastError();
        free(spans);
        munmap(m, bytes);
        return -1;
    }
    const uint64_t ns = xsf_clock_mono_ns() - t0;
    __atomic_add_fetch(&pin_stats.pins, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&pin_stats.pin_bytes, bytes, __ATOMIC_RELAXED);
    __atomic_add_fetch(&pin_stats.pinned_bytes, bytes, __ATOMIC_RELAXED);
    __atomic_add_fetch(&pin_stats.pin_ns, ns, __ATOMIC_RELAXED);
    stat_max(&pin_stats.pin_ns_max, ns);
    pthread_mutex_lock(&reserve.mu);
    int ok = reserve.n < RESERVE_CHUNKS;
    if (ok) {
        chunk *c = &reserve.c[reserve.n++];
        c->base = m;
        c->size = bytes;
        c->free = spans;
        c->cap = bytes / RESERVE_UNIT;
        c->free[0] = (span){0, bytes};
        c->nfree = 1;
        reserve.bytes += bytes;
    }
    pthread_mutex_unlock(&reserve.mu);
    if (!ok) { /* another thread took the last chunk meanwhile */
        cudaHostUnregister(m);
        __atomic_sub_fetch(&pin_stats.pinned_bytes, bytes, __ATOMIC_RELAXED);
        free(spans);
        munmap(m, bytes);
        return -1;
    }
    return 0;
}

void pl_pin_stats_get(pl_pin_stats *out)
{
    out->pins = __atomic_load_n(&pin_stats.pins, __ATOMIC_RELAXED);
    out->pin_bytes = __atomic_load_n(&pin_stats.pin_bytes, __ATOMIC_RELAXED);
    out->pin_ns = __atomic_load_n(&pin_stats.pin_ns, __ATOMIC_RELAXED);
    out->pin_ns_max = __atomic_load_n(&pin_stats.pin_ns_max, __ATOMIC_RELAXED);
    out->unpins = __atomic_load_n(&pin_stats.unpins, __ATOMIC_RELAXED);
    out->unpin_ns = __atomic_load_n(&pin_stats.unpin_ns, __ATOMIC_RELAXED);
    out->unpin_ns_max = __atomic_load_n(&pin_stats.unpin_ns_max, __ATOMIC_RELAXED);
    out->pinned_bytes = __atomic_load_n(&pin_stats.pinned_bytes, __ATOMIC_RELAXED);
    pthread_mutex_lock(&reserve.mu);
    out->reserve_bytes = reserve.bytes;
    out->reserve_used = reserve.used;
    out->reserve_misses = reserve.misses;
    pthread_mutex_unlock(&reserve.mu);
}

static host_header *header_of(const void *ptr)
{
    return (host_header *)((uint8_t *)ptr - HOST_HEADER);
}

void *pl_host_map(size_t bytes)
{
    void *r = reserve_take(bytes);
    if (r)
        return r;
    if (bytes > SIZE_MAX - 2 * HOST_HEADER)
        return NULL;
    const size_t total = HOST_HEADER + (bytes + HOST_HEADER - 1) / HOST_HEADER * HOST_HEADER;
    uint8_t *m = mmap(NULL, total, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    host_header *h = (host_header *)m;
    h->total = total;
    h->pinned = 0;
    h->reserved = 0;
    return m + HOST_HEADER;
}

int pl_host_pin(void *ptr)
{
    host_header *h = header_of(ptr);
    if (h->pinned)
        return 0;
    const uint64_t t0 = xsf_clock_mono_ns();
    if (cudaHostRegister(h, h->total, cudaHostRegisterPortable) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    const uint64_t ns = xsf_clock_mono_ns() - t0;
    h->pinned = 1;
    __atomic_add_fetch(&pin_stats.pins, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&pin_stats.pin_bytes, h->total, __ATOMIC_RELAXED);
    __atomic_add_fetch(&pin_stats.pinned_bytes, h->total, __ATOMIC_RELAXED);
    __atomic_add_fetch(&pin_stats.pin_ns, ns, __ATOMIC_RELAXED);
    stat_max(&pin_stats.pin_ns_max, ns);
    return 0;
}

int pl_host_pinned(const void *ptr)
{
    return header_of(ptr)->pinned;
}

int pl_host_unpin_costs(const void *ptr)
{
    const host_header *h = header_of(ptr);
    return h->pinned && !h->reserved;
}

void *pl_host_alloc(size_t bytes, int pinned)
{
    if (!pinned)
        return malloc(bytes ? bytes : 1);
    void *m = pl_host_map(bytes);
    if (m && pl_host_pin(m)) {
        pl_host_free(m, 1);
        return NULL;
    }
    return m;
}

void pl_host_free(void *ptr, int pinned)
{
    if (!ptr)
        return;
    if (!pinned) {
        free(ptr);
        return;
    }
    host_header *h = header_of(ptr);
    if (h->reserved) {
        reserve_give(h);
        return;
    }
    const size_t total = h->total;
    if (h->pinned) {
        const uint64_t t0 = xsf_clock_mono_ns();
        cudaHostUnregister(h);
        const uint64_t ns = xsf_clock_mono_ns() - t0;
        __atomic_add_fetch(&pin_stats.unpins, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&pin_stats.unpin_ns, ns, __ATOMIC_RELAXED);
        __atomic_sub_fetch(&pin_stats.pinned_bytes, total, __ATOMIC_RELAXED);
        stat_max(&pin_stats.unpin_ns_max, ns);
    }
    munmap(h, total);
}

int pl_gpu_select(int device)
{
    return cudaSetDevice(device) == cudaSuccess ? 0 : -1;
}

int pl_gpu_context(int device)
{
    /* cudaFree(NULL) frees nothing; it needs the context, so it makes it. */
    if (cudaSetDevice(device) != cudaSuccess || cudaFree(NULL) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return 0;
}

int pl_gpu_save(void)
{
    xsf_cuda_device_saved s;
    xsf_cuda_device_save(&s);
    if (!s.restore)
        cudaGetLastError();
    return s.restore ? s.device : -1;
}

void pl_gpu_restore(int saved)
{
    xsf_cuda_device_saved s = {saved, saved >= 0};
    xsf_cuda_device_leave(&s);
}

int pl_gpu_set_sync(int device, int mode)
{
    static const unsigned schedule[4] = {cudaDeviceScheduleAuto, cudaDeviceScheduleSpin,
                                         cudaDeviceScheduleYield, cudaDeviceScheduleBlockingSync};
    if (mode < 0 || mode > 3)
        return -1;
    unsigned flags = 0;
    /* The device's flags with only the scheduling bits replaced. Since CUDA 11 a device
     * already initialized (xs_gpu_available may have touched it) takes the new flags; an
     * older runtime answers cudaErrorSetOnActiveProcess there. */
    if (cudaSetDevice(device) != cudaSuccess || cudaGetDeviceFlags(&flags) != cudaSuccess ||
        cudaSetDeviceFlags((flags & ~(unsigned)cudaDeviceScheduleMask) | schedule[mode]) !=
            cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return 0;
}

void *pl_gpu_stream_create(void)
{
    cudaStream_t s = NULL;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return (void *)s;
}

void pl_gpu_stream_destroy(void *s)
{
    if (s)
        cudaStreamDestroy((cudaStream_t)s);
}

void *pl_gpu_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return p;
}

void pl_gpu_free(void *ptr)
{
    if (ptr)
        cudaFree(ptr);
}

int pl_gpu_stream_sync(void *s)
{
    return cudaStreamSynchronize((cudaStream_t)s) == cudaSuccess ? 0 : -1;
}

void *pl_gpu_event_create(void)
{
    cudaEvent_t e = NULL;
    if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return (void *)e;
}

void pl_gpu_event_destroy(void *e)
{
    if (e)
        cudaEventDestroy((cudaEvent_t)e);
}

int pl_gpu_event_record(void *e, void *s)
{
    return cudaEventRecord((cudaEvent_t)e, (cudaStream_t)s) == cudaSuccess ? 0 : -1;
}

int pl_gpu_event_done(void *e)
{
    const cudaError_t r = cudaEventQuery((cudaEvent_t)e);
    if (r != cudaSuccess && r != cudaErrorNotReady)
        cudaGetLastError();
    return r == cudaSuccess;
}

#else /* no CUDA */

int pl_gpu_count(void)
{
    return 0;
}

void pl_gpu_name(int device, char *out, size_t cap)
{
    snprintf(out, cap, "device %d", device);
}

void *pl_host_alloc(size_t bytes, int pinned)
{
    (void)pinned;
    return malloc(bytes ? bytes : 1);
}

void pl_host_free(void *ptr, int pinned)
{
    (void)pinned;
    free(ptr);
}

void *pl_host_map(size_t bytes)
{
    return malloc(bytes ? bytes : 1);
}

int pl_host_pin(void *ptr)
{
    (void)ptr;
    return -1;
}

int pl_host_pinned(const void *ptr)
{
    (void)ptr;
    return 0;
}

int pl_host_unpin_costs(const void *ptr)
{
    (void)ptr;
    return 0;
}

int pl_host_reserve(size_t bytes)
{
    (void)bytes;
    return -1;
}

void pl_pin_stats_get(pl_pin_stats *out)
{
    memset(out, 0, sizeof *out);
}

int pl_gpu_select(int device)
{
    (void)device;
    return -1;
}

int pl_gpu_context(int device)
{
    (void)device;
    return -1;
}

int pl_gpu_save(void)
{
    return -1;
}

void pl_gpu_restore(int saved)
{
    (void)saved;
}

int pl_gpu_set_sync(int device, int mode)
{
    (void)device, (void)mode;
    return -1;
}

void *pl_gpu_stream_create(void)
{
    return NULL;
}

void pl_gpu_stream_destroy(void *s)
{
    (void)s;
}

void *pl_gpu_alloc(size_t bytes)
{
    (void)bytes;
    return NULL;
}

void pl_gpu_free(void *ptr)
{
    (void)ptr;
}

int pl_gpu_stream_sync(void *s)
{
    (void)s;
    return -1;
}

void *pl_gpu_event_create(void)
{
    return NULL;
}

void pl_gpu_event_destroy(void *e)
{
    (void)e;
}

int pl_gpu_event_record(void *e, void *s)
{
    (void)e, (void)s;
    return -1;
}

int pl_gpu_event_done(void *e)
{
    (void)e;
    return 1;
}

#endif
