#include "xsf.h"

#include <stdarg.h>
#include <stdio.h>

const char *xsf_status_name(xsf_status s)
{
    switch (s) {
    case XSF_OK: return "ok";
    case XSF_ERR_INVALID: return "invalid input";
    case XSF_ERR_UNSUPPORTED: return "unsupported";
    case XSF_ERR_TRUNCATED: return "truncated input";
    case XSF_ERR_NOMEM: return "out of memory";
    case XSF_ERR_ARG: return "bad argument";
    case XSF_ERR_IO: return "i/o error";
    case XSF_ERR_CUDA: return "cuda error";
    case XSF_ERR_NODEVICE: return "no gpu";
    case XSF_ERR_AGAIN: return "need more input";
    }
    return "unknown status";
}

xsf_status xsf_error_set(xsf_error *e, xsf_status s, const char *fmt, ...)
{
    if (e && e->status == XSF_OK) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        e->status = s;
    }
    return s;
}

void xsf_error_clear(xsf_error *e)
{
    e->status = XSF_OK;
    e->msg[0] = '\0';
}
