/* libFuzzer target: the RTP / RFC 9134 depacketizer on arbitrary packets.
 *
 * Input: one configuration byte, then packets as records of a 16-bit
 * big-endian length and that many bytes (a record cut short by the end of
 * the input is fed as it is). Configuration bits: 0-1 the reorder window
 * (4, 16, 64, 512 packets), 2 codestream validation, 3 payload type 112
 * only, 4 a time limit on holes, 5-6 the arrival-time step, 7 frame
 * buffers from a tiny pool (two of 4 KiB and one of 64 KiB, given back at
 * the next frame: growth, exhaustion and reuse; every buffer must be back at
 * the end).
 * Every complete frame must hold a codestream that xs_scan_layout accepts
 * whole (when validation is on); partial frames' slices must lie inside the
 * frame's data. Seeds: tests/fuzz/corpus/rtp (packetized small vectors,
 * with losses, duplicates and reordering; slice_out_of_order: T=0, units sent
 * last to first; codestream_padding: empty packets after each frame). */
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
    int handed; /* the buffer the last frame came in, +1; 0 none */
} check_ctx;

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
    if (c->pooled) {
        const size_t i = (size_t)(uintptr_t)f->buffer.handle - 1;
        if (i >= POOL || !c->busy[i] || f->buffer.data != c->mem[i] || f->data < f->buffer.data ||
            (size_t)(f->data - f->buffer.data) + f->bytes > f->buffer.capacity)
            abort(); /* a frame outside the buffer it came with */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const unsigned windows[4] = {4, 16, 64, 512};
    const uint8_t cfgb = data[0];
    check_ctx c = {.validate = (cfgb >> 2) & 1, .pooled = cfgb >> 7};
    static uint8_t mem[POOL][65536];
    const size_t caps[POOL] = {4096, 4096, 65536};
    for (size_t i = 0; i < POOL; i++) {
        c.mem[i] = mem[i];
        c.cap[i] = caps[i];
    }
    rtp_depacketizer_config cfg = {
        .payload_type = (cfgb >> 3) & 1 ? 112 : -1,
        .reorder_packets = windows[cfgb & 3],
        .reorder_ns = (cfgb >> 4) & 1 ? 5000 : 0,
        .max_packet_bytes = 2048,
        .max_frame_bytes = 1 << 20,
        .max_slices = 256,
        .validate = c.validate,
        .on_frame = on_frame,
        .ctx = &c,
        .acquire = c.pooled ? pool_acquire : NULL,
        .release = pool_release,
        .buffer_ctx = &c,
    };
    const uint64_t step = (uint64_t)(cfgb >> 5 & 3) * 1000;
    rtp_depacketizer *d = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_depacketizer_create(&d, &cfg, &err) != XSF_OK)
        return 0;
    size_t off = 1;
    uint64_t now = 1;
    while (off < size) {
        size_t len = size - off >= 2 ? (size_t)data[off] << 8 | data[off + 1] : 0;
        off += size - off >= 2 ? 2 : 1;
        if (len > size - off)
            len = size - off;
        /* An exact-size copy, so that a read past the packet is caught. */
        uint8_t *pkt = malloc(len ? len : 1);
        if (!pkt)
            break;
        memcpy(pkt, data + off, len);
        rtp_depacketizer_push(d, pkt, len, now);
        free(pkt);
        off += len;
        now += step;
        if (step && (now / step) % 7 == 0)
            rtp_depacketizer_poll(d, now + 10000);
    }
    rtp_depacketizer_flush(d);
    const rtp_stats *st = rtp_depacketizer_stats(d);
    if (st->frames_complete && !st->packets)
        abort();
    rtp_depacketizer_destroy(d);
    if (c.handed)
        c.busy[c.handed - 1] = 0;
    for (size_t i = 0; i < POOL; i++)
        if (c.busy[i])
            abort(); /* a buffer neither handed over nor given back */
    return 0;
}
