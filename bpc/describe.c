/* A BPC-PaCo header in words (bpc_info_describe, bpc.h): what `xsflow
 * info` prints of a frame. */
#include <stdarg.h>
#include <stdio.h>

#include "bpc.h"

typedef struct text {
    char *buf;
    size_t cap, used;
} text;

/* Appends as snprintf would, counting what did not fit. */
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const size_t room = t->used < t->cap ? t->cap - t->used : 0;
    const int n = vsnprintf(room ? t->buf + t->used : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->used += (size_t)n;
}

size_t bpc_info_describe(const bpc_info *info, char *buf, size_t cap)
{
    text t = {buf, buf ? cap : 0, 0};
    if (t.buf && t.cap)
        t.buf[0] = '\0';
    for (int c = 0; c < info->nc; c++)
        put(&t, "  component %d: %dx%d, %d bits\n", c, info->width[c], info->height[c],
            info->depth[c]);
    put(&t, "  %d coding passes per bitplane, %s DWT, %d levels, colour transform %s\n",
        (int)info->variant, info->filter == BPC_FILTER_53 ? "5/3 reversible" : "9/7 irreversible",
        info->levels,
        info->colour == BPC_COLOUR_RCT   ? "RCT"
        : info->colour == BPC_COLOUR_ICT ? "ICT"
                                         : "none");
    if (info->filter == BPC_FILTER_97)
        put(&t, "  quantization step %g (8-bit units)\n", (double)info->qstep);
    if (info->tables_id)
        put(&t, "  probability tables: external, id %08x\n", info->tables_id);
    else
        put(&t, "  probability tables: built-in\n");
    put(&t, "  %zu code blocks; header %zu, index %zu, data %zu bytes\n", info->codeblocks,
        info->header_bytes, info->index_bytes, info->data_bytes);
    return t.used;
}
