/* Helpers shared by the RTP tests: files, codestream splitting, packet lists. */
#ifndef XSF_RTP_TEST_UTIL_H
#define XSF_RTP_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtp.h"
#include "xs.h"

static inline uint8_t *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = n > 0 ? (size_t)n : 0;
    return b;
}

/* Byte length of the codestream at data[0], or 0 when it does not parse. */
static inline size_t tu_codestream_bytes(const uint8_t *data, size_t len)
{
    xsf_error e;
    xsf_error_clear(&e);
    size_t n = 0;
    return xs_jxs_next(data, len, 0, &n, NULL, &e) == XSF_OK ? n : 0;
}

/* A list of packets. */
typedef struct tu_packet {
    uint8_t *data;
    size_t len;
} tu_packet;

typedef struct tu_list {
    tu_packet *p;
    size_t n, cap;
} tu_list;

static inline int tu_push(tu_list *l, const uint8_t *data, size_t len)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        tu_packet *p = realloc(l->p, cap * sizeof *p);
        if (!p)
            return -1;
        l->p = p;
        l->cap = cap;
    }
    l->p[l->n].data = malloc(len ? len : 1);
    if (!l->p[l->n].data)
        return -1;
    memcpy(l->p[l->n].data, data, len);
    l->p[l->n].len = len;
    l->n++;
    return 0;
}

static inline void tu_free(tu_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->p[i].data);
    free(l->p);
    memset(l, 0, sizeof *l);
}

static inline int tu_collect(void *ctx, const uint8_t *pkt, size_t len, int last)
{
    (void)last;
    return tu_push((tu_list *)ctx, pkt, len);
}

/* Collected frames: the codestreams concatenated, with counts. */
typedef struct tu_sink {
    uint8_t *data;
    size_t len, cap;
    size_t frames, partial;
    size_t partial_slices; /* whole slices seen in partial frames */
    const uint8_t *ref;    /* optional: slices of partial frames are compared with it */
    size_t ref_len;
    size_t slice_mismatch;
} tu_sink;

static inline void tu_on_frame(void *ctx, const rtp_frame *f)
{
    tu_sink *s = ctx;
    if (!f->complete) {
        s->partial++;
        s->partial_slices += f->nslices;
        if (s->ref) {
            /* Each whole slice must be the reference's slice of that index. */
            xs_layout l;
            xsf_error e;
            xsf_error_clear(&e);
            if (xs_scan_layout(s->ref, s->ref_len, &l, &e) == XSF_OK) {
                for (size_t i = 0; i < f->nslices; i++) {
                    const rtp_jxs_slice *sl = &f->slices[i];
                    size_t start = sl->index < l.nslices ? l.slice_offset[sl->index] : 0;
                    size_t end = sl->index + 1 < l.nslices ? l.slice_offset[sl->index + 1]
                                                           : l.codestream_bytes;
                    if (sl->index >= l.nslices || end - start != sl->bytes ||
                        memcmp(s->ref + start, f->data + sl->offset, sl->bytes))
                        s->slice_mismatch++;
                }
                xs_layout_free(&l);
            }
        }
        return;
    }
    if (s->len + f->bytes > s->cap) {
        size_t cap = s->cap ? s->cap : 65536;
        while (cap < s->len + f->bytes)
            cap *= 2;
        uint8_t *d = realloc(s->data, cap);
        if (!d)
            return;
        s->data = d;
        s->cap = cap;
    }
    memcpy(s->data + s->len, f->data, f->bytes);
    s->len += f->bytes;
    s->frames++;
}

/* Sends a clip over `u` with the library's sender: each frame's packets at once at its
 * time (cfg.pacing, usually RTP_PACING_FRAME), `loops` times; its counts in *res. */
static inline xsf_status tu_send_clip(rtp_udp *u, rtp_sender_config cfg, const uint8_t *data,
                                      size_t len, unsigned loops, rtp_sender_stats *res,
                                      xsf_error *err)
{
    memset(res, 0, sizeof *res);
    rtp_clip clip;
    xsf_status st = rtp_clip_open(&clip, data, len, err);
    if (st != XSF_OK)
        return st;
    rtp_sender *s = NULL;
    cfg.sock = u;
    st = rtp_sender_create(&s, &cfg, err);
    if (st == XSF_OK)
        st = rtp_sender_send_clip(s, &clip, loops, err);
    if (s)
        *res = *rtp_sender_get_stats(s);
    rtp_sender_destroy(s);
    rtp_clip_free(&clip);
    return st;
}

#endif
