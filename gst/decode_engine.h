/* The decoder behind xsflowdec: codestreams in, pictures out in submission
 * order, with several frames in flight. Internal to gst/; a small interface
 * so that the element does not care whether a ring of GPU decoder contexts
 * (each on its own CUDA stream), a ring of C decoder threads, or the
 * pipeline/ library's decode stage does the work.
 *
 * Threading: every call from one thread (the element's streaming thread);
 * the picture callback runs on that thread too, from inside
 * xsfd_engine_submit (for the oldest frame, when every slot is busy) or
 * xsfd_engine_finish. The picture's planes are valid during the callback.
 * Backpressure: submit blocks while every slot is busy until the oldest
 * frame is done (never drops). */
#ifndef XSF_GST_DECODE_ENGINE_H
#define XSF_GST_DECODE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "xs.h"
#include "xsf.h"

typedef enum xsfd_device { XSFD_AUTO = 0, XSFD_GPU, XSFD_CPU } xsfd_device;

/* One finished frame: status XSF_OK and `img`/`hdr`, or the error and its
 * message (img NULL). `user` is what submit was given. */
typedef struct xsfd_result {
    xsf_status status;
    const char *message;
    const xs_image *img;
    const xs_header *hdr;
    void *user;
} xsfd_result;

typedef void (*xsfd_picture_cb)(void *ctx, const xsfd_result *r);

typedef struct xsfd_engine xsfd_engine;

/* `in_flight` frames at once (0: 3 on the GPU, one per core on the CPU).
 * XSFD_GPU fails with XSF_ERR_NODEVICE where no GPU is usable; XSFD_AUTO
 * then falls back to the CPU. `msg` (XSF_ERRMSG_LEN) says why on failure. */
xsf_status xsfd_engine_create(xsfd_engine **e, xsfd_device device, int gpu_id, unsigned in_flight,
                              xsfd_picture_cb cb, void *ctx, char *msg);
void xsfd_engine_destroy(xsfd_engine *e);

/* Queues a codestream (copied: the caller's buffer may go at once). The
 * callback may run for older frames first. Returns an error only for a
 * failure of the engine itself (CUDA, memory); a codestream that does not
 * decode is reported through the callback. */
xsf_status xsfd_engine_submit(xsfd_engine *e, const uint8_t *cs, size_t len, void *user);

/* Waits for every frame in flight and reports each, in order; with discard
 * the callback still runs, with status XSF_ERR_AGAIN and no picture. */
void xsfd_engine_finish(xsfd_engine *e, int discard);

unsigned xsfd_engine_in_flight(const xsfd_engine *e);
/* "GPU" or "CPU". */
const char *xsfd_engine_name(const xsfd_engine *e);

#endif
