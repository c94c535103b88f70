/* libFuzzer target: the whole receive path, packet bytes to decoded
 * frames: the RTP source of the pipeline (depacketizer assembling into
 * the pipeline's frames, field pairing) and the pipeline's CPU decode stage
 * (the C decoder), to a sink that reads every sample of every picture.
 *
 * Input: the format of fuzz_rtp_depacketize (one configuration byte, then
 * packets as records of a 16-bit big-endian length and that many bytes).
 * Configuration bits: 0-1 the reorder window (4, 16, 64, 512 packets),
 * 2 codestream validation before the decoder, 3 payload type 112 only,
 * 4 slices (frames handed to the pipeline before they are whole).
 * Checks: nothing crashes or leaks (ASan); every frame delivered has a
 * picture whose planes hold the sizes the picture header gives; every
 * frame taken in is delivered or counted as refused by the decoder (or, with
 * slices, as never completed); every
 * frame buffer comes back to the pool. Seeds: tests/fuzz/corpus/rtp. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_deliver(void *ctx, pl_frame *f)
{
    (void)ctx;
    const xsf_picture *pic = &f->picture[0];
    volatile uint32_t sum = 0;
    if (!pic->fmt.nc || pic->fmt.nc > XSF_MAX_COMPONENTS || !(f->described & 1u))
        abort(); /* a frame delivered without its picture */
    if (!xsf_format_equal(&pic->fmt, &f->desc[0].format))
        abort(); /* a picture of another size than its header says */
    for (int c = 0; c < pic->fmt.nc; c++) {
        const uint16_t *p = xsf_picture_row16(pic, c, 0);
        const size_t pitch = pic->stride[c] / sizeof(uint16_t);
        if (!p || pic->fmt.width[c] <= 0 || pic->fmt.height[c] <= 0)
            abort();
        /* The first and last sample of every row: a short plane shows under ASan. */
        for (int y = 0; y < pic->fmt.height[c]; y++)
            sum += p[(size_t)y * pitch] + p[(size_t)y * pitch + (size_t)pic->fmt.width[c] - 1];
    }
    (void)sum;
    pl_frame_release(f);
}

static pl_pipeline *pipeline;
static int stream = -1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    xsf_error err;
    xsf_error_clear(&err);
    if (!pipeline) {
        pl_config pc;
        memset(&pc, 0, sizeof pc);
        pc.engine = PL_ENGINE_CPU;
        pc.cpu_threads = 2;
        if (pl_create(&pipeline, &pc, &err) != XSF_OK)
            abort();
        pl_stream_config sc = {.name = "fuzz",
                               .backpressure = PL_BLOCK,
                               .frames = 4,
                               .codestream_bytes = 4096,
                               .sink = {check_deliver, NULL, NULL, PL_PICTURE_HOST, NULL, NULL, 0}};
        if (pl_stream_add(pipeline, &sc, &stream, &err) != XSF_OK)
            abort();
    }
    static const unsigned windows[4] = {4, 16, 64, 512};
    const uint8_t cfgb = data[0];
    pl_rtp_config rc;
    memset(&rc, 0, sizeof rc);
    rc.kind = PL_RTP_PUSH;
    rc.depacketizer.payload_type = (cfgb >> 3) & 1 ? 112 : -1;
    rc.depacketizer.reorder_packets = windows[cfgb & 3];
    rc.depacketizer.max_packet_bytes = 2048;
    rc.depacketizer.max_frame_bytes = 1 << 20;
    rc.depacketizer.max_slices = 256;
    rc.depacketizer.validate = (cfgb >> 2) & 1;
    rc.slices = (cfgb >> 4) & 1;
    pl_rtp_source *src;
    if (pl_rtp_source_open(&src, &rc, &err) != XSF_OK ||
        pl_rtp_source_start(src, pipeline, stream, &err) != XSF_OK)
        abort();
    pl_stream_stats before;
    pl_stream_stats_get(pipeline, stream, &before);
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
            abort();
        memcpy(pkt, data + off, len);
        pl_rtp_source_push(src, pkt, len, now += 1000);
        free(pkt);
        off += len;
    }
    pl_rtp_source_flush(src);
    pl_stream_finish(pipeline, stream);
    pl_stream_stats after;
    pl_stream_stats_get(pipeline, stream, &after);
    const uint64_t in = after.submitted - before.submitted;
    const uint64_t out = (after.delivered - before.delivered) +
                         (after.dropped[PL_DROP_DECODE] - before.dropped[PL_DROP_DECODE]) +
                         (after.dropped[PL_DROP_INCOMPLETE] - before.dropped[PL_DROP_INCOMPLETE]);
    if (in != out)
        abort(); /* a frame neither delivered nor counted */
    pl_rtp_source_destroy(src);
    return 0;
}
