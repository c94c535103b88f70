/* The depacketizer's frame buffers (its own, or the caller's buffer source),
 * the deferred copies (rtp_depacketizer_config.defer_copies), appending
 * payload bytes to the segment under way, and the slice table. */
#include "depack_internal.h"

void rtp_dp_fbuf_free(rtp_depacketizer *d, fbuf *b)
{
    if (b->pooled) {
        if (d->cfg.release)
            d->cfg.release(d->cfg.buffer_ctx, &b->pool);
    } else {
        free(b->data);
    }
    memset(b, 0, sizeof *b);
}

/* Makes room for `need` bytes in b, keeping its first `keep`. With a buffer
 * source (pooled), a first buffer is asked with the size guess and a larger
 * one with half again as much headroom; when the source refuses that, with
 * exactly `need` (a pool of fixed buffers smaller than the guess still
 * serves). */
int rtp_dp_fbuf_reserve(rtp_depacketizer *d, fbuf *b, size_t keep, size_t need, int pooled)
{
    if (need <= b->cap)
        return 0;
    const size_t max = d->cfg.max_frame_bytes;
    if (need > max)
        return APPEND_TOO_BIG;
    if (!pooled) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < need)
            cap = cap > max / 2 ? max : 2 * cap;
        uint8_t *n = realloc(b->data, cap);
        if (!n)
            return APPEND_TOO_BIG;
        b->data = n;
        b->cap = cap;
        rtp_dp_account(d);
        return 0;
    }
    /* Never more than the segment may hold (its picture header's bound), so that a
     * sender cannot make the pool's buffers grow past it. */
    const size_t lim =
        d->a.open && d->a.header_read && d->a.limit && d->a.limit < max ? d->a.limit : max;
    size_t want = b->cap ? need + need / 2 : (need > d->size_guess ? need : d->size_guess);
    if (want > lim || want < need)
        want = lim < need ? need : lim;
    rtp_frame_buffer nb;
    memset(&nb, 0, sizeof nb);
    int got = !d->cfg.acquire(d->cfg.buffer_ctx, want, &nb);
    if (got && (!nb.data || nb.capacity < need)) { /* not what was asked: give it back */
        if (d->cfg.release)
            d->cfg.release(d->cfg.buffer_ctx, &nb);
        got = 0;
    }
    if (!got && want > need) {
        memset(&nb, 0, sizeof nb);
        got = !d->cfg.acquire(d->cfg.buffer_ctx, need, &nb);
        if (got && (!nb.data || nb.capacity < need)) {
            if (d->cfg.release)
                d->cfg.release(d->cfg.buffer_ctx, &nb);
            got = 0;
        }
    }
    if (!got)
        return APPEND_NO_BUFFER;
    if (keep)
        memcpy(nb.data, b->data, keep);
    rtp_dp_fbuf_free(d, b);
    b->pool = nb;
    b->data = nb.data;
    b->cap = nb.capacity;
    b->pooled = 1;
    rtp_dp_account(d);
    return 0;
}

/* Makes the copies still pending into the frame buffer. */
void rtp_dp_make_copies(rtp_depacketizer *d)
{
    for (size_t i = 0; i < d->npend; i++)
        memcpy(d->asmb.data + d->pend[i].offset, d->pend[i].src, d->pend[i].bytes);
    d->npend = 0;
}

/* The segment's bytes end at `bytes` again (a broken slice unit given up):
 * copies at or past it are forgotten (each is one whole append, so none
 * straddles it). */
void rtp_dp_cut_back(rtp_depacketizer *d, size_t bytes)
{
    d->a.bytes = bytes;
    while (d->npend && d->pend[d->npend - 1].offset >= bytes)
        d->npend--;
}

/* Lists the copy of n bytes from p to the frame buffer at the segment's end,
 * when it may wait: deferred copies asked for, into a caller's buffer, past
 * the prefix, from a packet the caller keeps (not one of the depacketizer's
 * copies: packets held on probation). 0 when listed. */
static int defer_copy(rtp_depacketizer *d, const uint8_t *p, size_t n)
{
    const assembly *a = &d->a;
    if (!d->cfg.defer_copies || !d->cfg.packets_kept || a->ooo || !d->asmb.pooled ||
        a->bytes < RTP_DEFER_PREFIX_BYTES)
        return -1;
    const uintptr_t at = (uintptr_t)p, own = (uintptr_t)d->slot_data;
    if (at >= own && at - own < (uintptr_t)d->window * d->slot_bytes)
        return -1;
    if (d->npend == d->pend_cap) {
        const size_t cap = d->pend_cap ? 2 * d->pend_cap : 4096;
        rtp_copy *np = realloc(d->pend, cap * sizeof *np);
        if (!np)
            return -1; /* copied now */
        d->pend = np;
        d->pend_cap = cap;
    }
    rtp_copy *c = &d->pend[d->npend++];
    c->offset = a->bytes;
    c->src = p;
    c->bytes = n;
    return 0;
}

/* Where the segment under way is kept: T=0 packets as they come in the
 * depacketizer's own staging buffer, T=1 segments in the frame buffer. */
static fbuf *assembly_buffer(rtp_depacketizer *d)
{
    return d->a.ooo ? &d->stage : &d->asmb;
}

int rtp_dp_append(rtp_depacketizer *d, const uint8_t *p, size_t n)
{
    assembly *a = &d->a;
    if (!n)
        return 0; /* an empty payload adds nothing (and the buffer may still be absent) */
    if (a->no_buffer)
        return APPEND_NO_BUFFER;
    if (a->too_large || n > a->limit - a->bytes) {
        a->too_large = 1;
        return APPEND_TOO_BIG;
    }
    fbuf *b = assembly_buffer(d);
    if (d->npend && a->bytes + n > b->cap)
        rtp_dp_make_copies(d); /* the buffer may move, with what it holds */
    const int r = rtp_dp_fbuf_reserve(d, b, a->bytes, a->bytes + n, !a->ooo && d->cfg.acquire);
    if (r == APPEND_NO_BUFFER)
        a->no_buffer = 1;
    if (r)
        return r;
    if (defer_copy(d, p, n))
        memcpy(b->data + a->bytes, p, n);
    a->bytes += n;
    if (!a->ooo && !a->header_read)
        rtp_dp_limit_by_header(d);
    return 0;
}

/* Room for n entries in the slice table (n <= max_slices). */
int rtp_dp_reserve_slices(rtp_depacketizer *d, size_t n)
{
    if (n <= d->slices_cap)
        return 0;
    if (n > d->cfg.max_slices)
        return -1;
    size_t cap = d->slices_cap ? d->slices_cap : 64;
    while (cap < n)
        cap = cap > d->cfg.max_slices / 2 ? d->cfg.max_slices : 2 * cap;
    rtp_jxs_slice *s = realloc(d->slices, cap * sizeof *s);
    if (!s)
        return -1;
    d->slices = s;
    d->slices_cap = cap;
    rtp_dp_account(d);
    return 0;
}

int rtp_dp_add_slice(rtp_depacketizer *d, size_t *nslices, uint32_t index, size_t offset,
                     size_t bytes)
{
    if (rtp_dp_reserve_slices(d, *nslices + 1))
        return -1;
    rtp_jxs_slice *sl = &d->slices[(*nslices)++];
    sl->index = index;
    sl->offset = offset;
    sl->bytes = bytes;
    return 0;
}
