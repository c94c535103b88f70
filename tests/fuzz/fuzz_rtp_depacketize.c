/* libFuzzer target: the RTP / RFC 9134 depacketizer on arbitrary packets.
 *
 * Input: one configuration byte, then packets as records of a 16-bit
 * big-endian length and that many bytes (a record cut short by the end of
 * the input is fed as it is). Configuration bits: 0-1 the reorder window
 * (4, 16, 64, 512 packets), 2 codestream validation, 3 payload type 112
 * only, 4 a time limit on holes, 5-6 the arrival-time step, 7 frame
 * buffers from a tiny pool (two of 4 KiB and one of 64 KiB, given back at
 * the next frame: growth, exhaustion and reuse; every buffer must be back at
 * the end). With the pool, the same packets go a second time through a
 * depacketizer that keeps pointers to them and defers its payload copies
 * (packets_kept, defer_copies): once the copies are made, every frame and
 * every count must be the first run's.
 * Every complete frame must hold a codestream that xs_scan_layout accepts
 * whole (when validation is on); partial frames' slices must lie inside the
 * frame's data. Seeds: tests/fuzz/corpus/rtp (packetized small vectors,
 * with losses, duplicates and reordering; slice_out_of_order: T=0, units sent
 * last to first; codestream_padding: empty packets after each frame; *_large_pooled:
 * segments past the deferred copies' prefix, clean and with loss). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rtp.h"
#include "xs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define POOL 3

typedef struct check_ctx {
    int validate;
    int pooled;
    uint8_t *mem[POOL];
    size_t cap[POOL];
    int busy[POOL];
    int handed;      /* the buffer the last frame came in, +1; 0 none */
    uint64_t digest; /* FNV-1a over every frame handed over */
    uint64_t frames;
} check_ctx;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static int pool_acquire(void *ctx, size_t min_bytes, rtp_frame_buffer *b)
{
    check_ctx *c = ctx;
    for (size_t i = 0; i < POOL; i++) {
        if (!c->busy[i] && c->cap[i] >= min_bytes) {
            c->busy[i] = 1;
            b->data = c->mem[i];
            b->capacity = c->cap[i];
            b->handle = (void *)(uintptr_t)(i + 1);
            return 0;
        }
    }
    return 1;
}

static void pool_release(void *ctx, rtp_frame_buffer *b)
{
    check_ctx *c = ctx;
    const size_t i = (size_t)(uintptr_t)b->handle - 1;
    if (i >= POOL || !c->busy[i] || b->data != c->mem[i])
        abort(); /* given back twice, or never lent */
    c->busy[i] = 0;
}

static void on_frame(void *ctx, const rtp_frame *f)
{
    check_ctx *c = ctx;
    size_t end = RTP_DEFER_PREFIX_BYTES;
    for (size_t i = 0; i < f->ncopies; i++) { /* deferred: made here, checked first */
        const rtp_copy *k = &f->copies[i];
        if (k->offset < end || k->bytes > f->buffer.capacity ||
            k->offset > f->buffer.capacity - k->bytes)
            abort(); /* out of order, overlapping, in the prefix or outside the buffer */
        memcpy(f->buffer.data + k->offset, k->src, k->bytes);
        end = k->offset + k->bytes;
    }
    const uint64_t head[] = {f->timestamp, f->f_counter,          f->scan,
                             f->mode,      (uint64_t)f->complete, f->bytes,
                             f->first_seq, f->last_seq,           (uint64_t)f->header_whole,
                             f->nslices};
    c->digest = fnv(c->digest, head, sizeof head);
    c->digest = fnv(c->digest, f->data, f->complete ? f->bytes : 0);
    for (size_t i = 0; !f->complete && i < f->nslices; i++)
        if (f->slices[i].offset <= f->bytes && f->slices[i].bytes <= f->bytes - f->slices[i].offset)
            c->digest = fnv(c->digest, f->data + f->slices[i].offset, f->slices[i].bytes);
    c->frames++;
    if (c->pooled) {
        const size_t i = (size_t)(uintptr_t)f->buffer.handle - 1;
        if (i >= POOL || !c->busy[i] || f->buffer.data != c->mem[i] || f->data < f->buffer.data ||
            (size_t)(f->data - f->buffer.data) + f->bytes > f->buffer.capacity)
            abort();   /* a frame outside the buffer it came with */
        if (c->handed) /* the consumer gives the previous one back */
            c->busy[c->handed - 1] = 0;
        c->handed = (int)i + 1;
    }
    volatile uint8_t sink = 0;
    if (f->bytes)
        sink ^= f->data[0] ^ f->data[f->bytes - 1]; /* a short buffer shows under ASan */
    if (f->complete) {
        if (c->validate) {
            xs_layout l;
            xsf_error err;
            xsf_error_clear(&err);
            memset(&l, 0, sizeof l);
            if (xs_scan_layout(f->data, f->bytes, &l, &err) != XSF_OK ||
                l.codestream_bytes != f->bytes)
                abort(); /* a frame passed on as whole that is not one codestream */
            xs_layout_free(&l);
        }
        return;
    }
    for (size_t i = 0; i < f->nslices; i++) {
        const rtp_jxs_slice *s = &f->slices[i];
        if (s->offset > f->bytes || s->bytes > f->bytes - s->offset)
            abort();
        if (s->bytes)
            sink ^= f->data[s->offset] ^ f->data[s->offset + s->bytes - 1];
    }
    (void)sink;
}

/* One run over the packets; the pool's memory is `mem`. */
static int run(const uint8_t cfgb, uint8_t *const *pkts, const size_t *lens, size_t n,
               uint8_t (*mem)[65536], int deferred, check_ctx *c, rtp_stats *out)
{
    static const unsigned windows[4] = {4, 16, 64, 512};
    memset(c, 0, sizeof *c);
    c->validate = (cfgb >> 2) & 1;
    c->pooled = cfgb >> 7;
    c->digest = 0xcbf29ce484222325ull;
    const size_t caps[POOL] = {4096, 4096, 65536};
    for (size_t i = 0; i < POOL; i++) {
        c->mem[i] = mem[i];
        c->cap[i] = caps[i];
    }
    rtp_depacketizer_config cfg = {
        .payload_type = (cfgb >> 3) & 1 ? 112 : -1,
        .reorder_packets = windows[cfgb & 3],
        .reorder_ns = (cfgb >> 4) & 1 ? 5000 : 0,
        .max_packet_bytes = 2048,
        .max_frame_bytes = 1 << 20,
        .max_slices = 256,
        .validate = c->validate,
        .on_frame = on_frame,
        .ctx = c,
        .acquire = c->pooled ? pool_acquire : NULL,
        .release = pool_release,
        .buffer_ctx = c,
        .packets_kept = deferred,
        .defer_copies = deferred,
    };
    const uint64_t step = (uint64_t)(cfgb >> 5 & 3) * 1000;
    rtp_depacketizer *d = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_depacketizer_create(&d, &cfg, &err) != XSF_OK)
        return -1;
    uint64_t now = 1;
    for (size_t i = 0; i < n; i++) {
        rtp_depacketizer_push(d, pkts[i], lens[i], now);
        now += step;
        if (step && (now / step) % 7 == 0)
            rtp_depacketizer_poll(d, now + 10000);
    }
    rtp_depacketizer_flush(d);
    *out = *rtp_depacketizer_stats(d);
    if (out->frames_complete && !out->packets)
        abort();
    rtp_depacketizer_destroy(d);
    if (c->handed)
        c->busy[c->handed - 1] = 0;
    for (size_t i = 0; i < POOL; i++)
        if (c->busy[i])
            abort(); /* a buffer neither handed over nor given back */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t cfgb = data[0];
    /* The packets, each an exact-size copy (a read past one is caught), kept
     * until both runs are done (packets_kept). */
    size_t n = 0, cap = 0;
    uint8_t **pkts = NULL;
    size_t *lens = NULL;
    size_t off = 1;
    int ok = 1;
    while (off < size && ok) {
        size_t len = size - off >= 2 ? (size_t)data[off] << 8 | data[off + 1] : 0;
        off += size - off >= 2 ? 2 : 1;
        if (len > size - off)
            len = size - off;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            uint8_t **np = realloc(pkts, cap * sizeof *np);
            size_t *nl = np ? realloc(lens, cap * sizeof *nl) : NULL;
            if (np)
                pkts = np;
            if (nl)
                lens = nl;
            if (!np || !nl)
                break;
        }
        uint8_t *pkt = malloc(len ? len : 1);
        if (!pkt)
            break;
        memcpy(pkt, data + off, len);
        pkts[n] = pkt;
        lens[n++] = len;
        off += len;
    }
    static uint8_t mem[POOL][65536], mem2[POOL][65536];
    check_ctx c, c2;
    rtp_stats a, b;
    if (!run(cfgb, pkts, lens, n, mem, 0, &c, &a) && c.pooled &&
        !run(cfgb, pkts, lens, n, mem2, 1, &c2, &b)) {
        if (c.digest != c2.digest || c.frames != c2.frames || a.packets != b.packets ||
            a.lost != b.lost || a.lost_edge != b.lost_edge || a.reordered != b.reordered ||
            a.duplicated != b.duplicated || a.late != b.late || a.invalid != b.invalid ||
            a.frames_complete != b.frames_complete || a.frames_dropped != b.frames_dropped ||
            a.frames_partial != b.frames_partial || a.frames_invalid != b.frames_invalid ||
            a.frames_dropped_edge != b.frames_dropped_edge ||
            a.frames_dropped_no_buffer != b.frames_dropped_no_buffer ||
            a.on_probation != b.on_probation || a.highest_seq != b.highest_seq)
            abort(); /* deferred copies changed a frame or a count */
    }
    for (size_t i = 0; i < n; i++)
        free(pkts[i]);
    free(pkts);
    free(lens);
    return 0;
}
