/* xsflow common definitions: status codes and the error-message buffer every
 * library layer uses. Nothing here prints or exits. */
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
