/* Deferred copies (rtp_depacketizer_config.defer_copies): the same packets
 * into a depacketizer that copies every payload itself and into one that
 * keeps pointers to them (packets_kept) and lists its copies past each
 * segment's prefix for the caller. Once the caller has made the listed
 * copies, every frame handed over must be the same, whole or partial (each
 * whole slice of a partial frame), and so must every statistic; the lists
 * must be in offset order, past the prefix, inside the buffer and without
 * overlap. Under loss, reordering, duplicates, a buffer source that refuses
 * now and then, segments that outgrow their buffer, both packetization
 * modes.
 *
 * usage: test_rtp_defer VECTOR_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md5.h"
#include "rtp_test_util.h"
#include "test.h"

/* What one depacketizer handed over. */
typedef struct record {
    int deferred;      /* this one defers its copies */
    unsigned acquires; /* calls to acquire, for the refusal pattern */
    size_t frames, ncopies, bad_lists;
    char (*digest)[33]; /* one per frame: its fields and bytes */
    size_t cap;
} record;

static int acquire(void *ctx, size_t min_bytes, rtp_frame_buffer *b)
{
    record *r = ctx;
    ++r->acquires;
    if (r->acquires % 7 == 3 || r->acquires % 7 == 4)
        return 1; /* refused twice (the size wanted, then the size needed): the segment is
                     dropped (frames_dropped_no_buffer) */
    b->data = malloc(min_bytes);
    b->capacity = min_bytes;
    b->handle = b->data;
    return b->data ? 0 : 1;
}

static void release(void *ctx, rtp_frame_buffer *b)
{
    (void)ctx;
    free(b->data);
}

static void on_frame(void *ctx, const rtp_frame *f)
{
    record *r = ctx;
    uint8_t *buf = f->buffer.data;
    /* The list: in offset order, none overlapping, all past the prefix and inside. */
    size_t end = RTP_DEFER_PREFIX_BYTES;
    for (size_t i = 0; i < f->ncopies; i++) {
        const rtp_copy *c = &f->copies[i];
        if (c->offset < end || c->bytes > f->buffer.capacity ||
            c->offset > f->buffer.capacity - c->bytes) {
            r->bad_lists++;
            break;
        }
        end = c->offset + c->bytes;
        memcpy(buf + c->offset, c->src, c->bytes);
    }
    if (f->ncopies && !r->deferred)
        r->bad_lists++;
    r->ncopies += f->ncopies;
    app_md5 m;
    app_md5_init(&m);
    const uint64_t head[] = {f->timestamp, f->f_counter,          f->scan,
                             f->mode,      (uint64_t)f->complete, f->bytes,
                             f->first_seq, f->last_seq,           (uint64_t)f->header_whole,
                             f->nslices};
    app_md5_update(&m, (const uint8_t *)head, sizeof head);
    if (f->complete) {
        app_md5_update(&m, f->data, f->bytes);
    } else {
        for (size_t i = 0; i < f->nslices; i++) {
            const uint64_t sl[] = {f->slices[i].index, f->slices[i].offset, f->slices[i].bytes};
            app_md5_update(&m, (const uint8_t *)sl, sizeof sl);
            app_md5_update(&m, f->data + f->slices[i].offset, f->slices[i].bytes);
        }
    }
    if (r->frames == r->cap) {
        const size_t cap = r->cap ? 2 * r->cap : 64;
        char(*d)[33] = realloc(r->digest, cap * sizeof *d);
        if (!d) {
            free(buf);
            return;
        }
        r->digest = d;
        r->cap = cap;
    }
    app_md5_final_hex(&m, r->digest[r->frames++]);
    free(buf);
}

static uint64_t rng_state;
static unsigned rng(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((rng_state >> 33) % n);
}

/* The packets of a clip, with loss, swaps and duplicates (per mille). */
static void make_packets(rtp_jxs_mode mode, uint8_t *const *cs, const size_t *len, size_t n,
                         unsigned loss, unsigned swap, unsigned dup, tu_list *out)
{
    tu_list clean = {0};
    xsf_error err = {0};
    rtp_packetizer_config pc = {.mode = mode,
                                .packet_bytes = 900,
                                .payload_type = 112,
                                .ssrc = 77,
                                .first_seq = 65300,
                                .boxes = 1};
    rtp_packetizer *pk = NULL;
    CHECK(rtp_packetizer_create(&pk, &pc, &err) == XSF_OK, "packetizer: %s", err.msg);
    for (size_t i = 0; pk && i < n; i++)
        CHECK(rtp_packetize(pk, cs[i], len[i], (uint32_t)(1000 + 1800 * i), (unsigned)i,
                            RTP_JXS_PROGRESSIVE, tu_collect, &clean, &err) == XSF_OK,
              "packetize: %s", err.msg);
    rtp_packetizer_destroy(pk);
    for (size_t i = 0; i < clean.n; i++) {
        if (rng(1000) < loss)
            continue;
        if (rng(1000) < swap && i + 1 < clean.n) {
            tu_push(out, clean.p[i + 1].data, clean.p[i + 1].len);
            tu_push(out, clean.p[i].data, clean.p[i].len);
            i++;
            continue;
        }
        tu_push(out, clean.p[i].data, clean.p[i].len);
        if (rng(1000) < dup)
            tu_push(out, clean.p[i].data, clean.p[i].len);
    }
    tu_free(&clean);
}

static void run(record *r, int deferred, const tu_list *pk, rtp_stats *st)
{
    memset(r, 0, sizeof *r);
    r->deferred = deferred;
    rtp_depacketizer_config dc = {.payload_type = 112,
                                  .reorder_packets = 64,
                                  .on_frame = on_frame,
                                  .ctx = r,
                                  .acquire = acquire,
                                  .release = release,
                                  .buffer_ctx = r,
                                  .packets_kept = deferred,
                                  .defer_copies = deferred};
    rtp_depacketizer *d = NULL;
    xsf_error err = {0};
    CHECK(rtp_depacketizer_create(&d, &dc, &err) == XSF_OK, "depacketizer: %s", err.msg);
    if (!d)
        return;
    for (size_t i = 0; i < pk->n; i++)
        rtp_depacketizer_push(d, pk->p[i].data, pk->p[i].len, 1000 + i);
    rtp_depacketizer_flush(d);
    *st = *rtp_depacketizer_stats(d);
    rtp_depacketizer_destroy(d);
}

static void check_case(const char *name, rtp_jxs_mode mode, uint8_t *const *cs, const size_t *len,
                       size_t n, unsigned loss, unsigned swap, unsigned dup)
{
    rng_state = 12345 + loss * 7 + swap * 13 + dup * 17 + (unsigned)mode;
    tu_list pk = {0};
    make_packets(mode, cs, len, n, loss, swap, dup, &pk);
    record a, b;
    rtp_stats sa, sb;
    memset(&sa, 0, sizeof sa);
    memset(&sb, 0, sizeof sb);
    run(&a, 0, &pk, &sa);
    run(&b, 1, &pk, &sb);
    CHECK(b.ncopies > 0, "%s: no copy was deferred", name);
    CHECK(sb.frames_dropped_no_buffer > 0, "%s: the buffer source never refused", name);
    CHECK(!a.bad_lists && !b.bad_lists, "%s: copy lists out of order, overlapping or outside",
          name);
    CHECK(a.frames == b.frames && a.frames > 0, "%s: %zu frames vs %zu deferred", name, a.frames,
          b.frames);
    size_t differ = 0;
    for (size_t i = 0; i < a.frames && i < b.frames; i++)
        differ += strcmp(a.digest[i], b.digest[i]) != 0;
    CHECK(!differ, "%s: %zu frames differ", name, differ);
    CHECK(a.acquires == b.acquires, "%s: %u acquires vs %u", name, a.acquires, b.acquires);
#define SAME(f)                                                                                    \
    CHECK(sa.f == sb.f, "%s: " #f " %llu vs %llu", name, (unsigned long long)sa.f,                 \
          (unsigned long long)sb.f)
    SAME(packets);
    SAME(lost);
    SAME(lost_edge);
    SAME(reordered);
    SAME(duplicated);
    SAME(late);
    SAME(invalid);
    SAME(frames_complete);
    SAME(frames_dropped);
    SAME(frames_partial);
    SAME(frames_invalid);
    SAME(frames_dropped_edge);
    SAME(frames_dropped_no_buffer);
    SAME(on_probation);
    SAME(highest_seq);
    printf("%s: %zu packets, %zu frames (%llu whole, %llu partial, %llu dropped, %llu without a "
           "buffer), %zu copies deferred\n",
           name, pk.n, b.frames, (unsigned long long)sb.frames_complete,
           (unsigned long long)sb.frames_partial, (unsigned long long)sb.frames_dropped,
           (unsigned long long)sb.frames_dropped_no_buffer, b.ncopies);
    free(a.digest);
    free(b.digest);
    tu_free(&pk);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_rtp_defer VECTOR_DIR\n");
        return 2;
    }
    /* Small and large segments in turn: buffers from the source outgrow each other. */
    const char *names[] = {"slice_h16",          "hd_422_10b_bpp3", "rate_bpp8",
                           "hd_444_12b_bpp6_v1", "slice_h180",      "hd_420_8b_bpp1"};
    enum { NV = sizeof names / sizeof *names, REPS = 3 };
    uint8_t *file[NV], *cs[NV * REPS];
    size_t flen[NV], len[NV * REPS];
    int have = 1;
    for (int i = 0; i < NV; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.jxs", argv[1], names[i]);
        file[i] = tu_read_file(path, &flen[i]);
        CHECK(file[i] && flen[i] > RTP_DEFER_PREFIX_BYTES, "%s", path);
        have &= file[i] != NULL;
    }
    if (have) {
        for (int i = 0; i < NV * REPS; i++) {
            cs[i] = file[i % NV];
            len[i] = tu_codestream_bytes(cs[i], flen[i % NV]);
        }
        for (int mode = 0; mode < 2; mode++) {
            const rtp_jxs_mode m = mode ? RTP_JXS_SLICE : RTP_JXS_CODESTREAM;
            const char *k = mode ? "slice" : "codestream";
            char name[64];
            snprintf(name, sizeof name, "%s, clean", k);
            check_case(name, m, cs, len, NV * REPS, 0, 0, 0);
            snprintf(name, sizeof name, "%s, loss", k);
            check_case(name, m, cs, len, NV * REPS, 4, 0, 0);
            snprintf(name, sizeof name, "%s, loss, swaps, duplicates", k);
            check_case(name, m, cs, len, NV * REPS, 2, 20, 10);
        }
    }
    for (int i = 0; i < NV; i++)
        free(file[i]);
    return xsf_test_finish();
}
