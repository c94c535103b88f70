/* xsflow common definitions: status codes and the error-message buffer every
 * library layer uses. Nothing here prints or exits.
 *
 * The error convention of every library:
 * - A function that can fail returns xsf_status (XSF_OK = 0): never -1, an
 *   errno value or a bool. A function that cannot fail returns what it
 *   computes (a size, a count, a name, a predicate as int 0/1).
 * - The message: a call on a handle records it in the handle (the first error
 *   wins: xsf_error_set), read with the handle's <prefix>_error(handle) until
 *   the next call on it. A call without a handle (a create, an open, a parse,
 *   a one-shot function) takes `xsf_error *err` as its last argument, which
 *   may be NULL (then only the status is reported). The status alone is
 *   enough only where it says everything (XSF_ERR_ARG for a NULL argument, a
 *   word that is not in a vocabulary, XSF_ERR_NODEVICE from *_gpu_available).
 * - No `char *msg, size_t cap` message buffers, no printing, no exit(): the
 *   program decides what the user sees.
 * - Out-parameters are cleared first (NULL, 0), so that a failed call leaves
 *   nothing for the caller to free.
 * - XSF_ERR_AGAIN means "need more input": the data is not wrong (yet).
 * - Callbacks the caller provides follow their own documented protocol (a
 *   sink returns non-zero to stop, which is passed back unchanged). */
#ifndef XSF_H
#define XSF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum xsf_status {
    XSF_OK = 0,
    XSF_ERR_INVALID = 1,     /* the input violates the format */
    XSF_ERR_UNSUPPORTED = 2, /* valid, but a feature this build does not implement */
    XSF_ERR_TRUNCATED = 3,   /* the input ends before the structure does */
    XSF_ERR_NOMEM = 4,       /* an allocation failed */
    XSF_ERR_ARG = 5,         /* the caller passed a bad argument */
    XSF_ERR_IO = 6,          /* a file or socket operation failed */
    XSF_ERR_CUDA = 7,        /* a CUDA runtime call failed */
    XSF_ERR_NODEVICE = 8,    /* no usable GPU */
    XSF_ERR_AGAIN = 9,       /* need more input */
} xsf_status;

const char *xsf_status_name(xsf_status s);

/* A fixed-size message buffer carried by handles; the first error wins. */
#define XSF_ERRMSG_LEN 256
typedef struct xsf_error {
    xsf_status status;
    char msg[XSF_ERRMSG_LEN];
} xsf_error;

/* Records an error (if none is recorded yet) and returns its status. */
xsf_status xsf_error_set(xsf_error *e, xsf_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void xsf_error_clear(xsf_error *e);

#ifdef __cplusplus
}
#endif
#endif
