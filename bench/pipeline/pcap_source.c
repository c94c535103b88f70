/* The RTP capture source alone: a .pcap read as fast as it reads into the
 * pipeline, whose frames go to a sink that decodes nothing (each frame's
 * picture header is parsed, nothing else), so the figure is what one
 * pl_rtp_source delivers: what `xsflow recv --pcap` can feed a decoder.
 *
 *   pipeline_pcap_source CAPTURE [--copy-threads N] [--reps R] [--queue N] [--md5]
 *   pipeline_pcap_source CAPTURE --headers [--reps R]
 *
 * --copy-threads N  threads copying payloads into frames (pl_rtp_config.copy_threads:
 *                   0 the default choice, -1 none: the serial path)
 * --reps R          runs (default 3); the best is reported, every run is printed
 * --queue N         frames in the stream's pool (default 16)
 * --md5             the MD5 of every codestream, in order (slower: it is a sink)
 * --headers         what the receiving thread does alone when the copies go to the
 *                   copy pool: the mapped capture read and depacketized (rtp/ only,
 *                   no pipeline), the copies listed and not made: the ceiling of
 *                   one capture source however many copy threads it has
 * source_fps is frames over the whole run (first touches of the frame pool
 * included); delivery_fps from the first frame delivered to the last, as
 * `xsflow recv --stats-json` reports it.
 * Output: one line "name value unit" per figure, for bench/pipeline/run.sh.
 * --help lists the options. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipeline.h"
#include "xsf_cli.h"
#include "xsf_clock.h"

typedef struct run_result {
    double seconds;
    rtp_stats rs;
    pl_stream_stats ps;
    char md5[33];
} run_result;

static int run_once(const char *path, int copy_threads, unsigned queue, int md5, run_result *res)
{
    xsf_error err;
    xsf_error_clear(&err);
    pl_config pc;
    memset(&pc, 0, sizeof pc);
    pc.engine = PL_ENGINE_CPU;
    pc.cpu_threads = 1; /* nothing is decoded: the thread parses one header a frame */
    pl_pipeline *p = NULL;
    pl_writer *w = NULL;
    pl_rtp_source *src = NULL;
    int rc = 1;
    pl_rtp_config rc_cfg;
    memset(&rc_cfg, 0, sizeof rc_cfg);
    rc_cfg.kind = PL_RTP_PCAP;
    rc_cfg.path = path;
    rc_cfg.copy_threads = copy_threads;
    rc_cfg.depacketizer.payload_type = -1; /* any */
    if (pl_rtp_source_open(&src, &rc_cfg, &err) != XSF_OK || pl_create(&p, &pc, &err) != XSF_OK)
        goto out;
    pl_sink sink = pl_null_sink(PL_PICTURE_NONE);
    if (md5) {
        pl_writer_options wo;
        memset(&wo, 0, sizeof wo);
        wo.kind = PL_WRITE_JXS;
        wo.md5 = 1;
        if (pl_writer_open(&w, NULL, &wo, &err) != XSF_OK)
            goto out;
        sink = pl_writer_sink(w);
    }
    pl_stream_config sc = {.name = path, .backpressure = PL_BLOCK, .frames = queue, .sink = sink};
    int stream;
    if (pl_stream_add(p, &sc, &stream, &err) != XSF_OK)
        goto out;
    const double t0 = xsf_clock_mono_s();
    if (pl_rtp_source_start(src, p, stream, &err) != XSF_OK ||
        pl_rtp_source_join(src, &err) != XSF_OK)
        goto out;
    pl_stream_finish(p, stream);
    res->seconds = xsf_clock_mono_s() - t0;
    pl_rtp_source_stats(src, &res->rs, NULL);
    pl_stream_stats_get(p, stream, &res->ps);
    res->md5[0] = 0;
    if (w)
        pl_writer_md5(w, res->md5);
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "%s: %s\n", path, err.msg);
    pl_rtp_source_destroy(src);
    pl_destroy(p);
    if (w)
        (void)pl_writer_close(w, &err);
    return rc;
}

/* --headers: the depacketizer with deferred copies into two buffers of its own. */
static uint8_t *headers_buf[2];
static int headers_next;
static int headers_acquire(void *ctx, size_t min_bytes, rtp_frame_buffer *b)
{
    (void)ctx;
    const size_t cap = (size_t)64 << 20;
    if (min_bytes > cap)
        return 1;
    headers_next ^= 1;
    if (!headers_buf[headers_next] && !(headers_buf[headers_next] = malloc(cap)))
        return 1;
    b->data = headers_buf[headers_next];
    b->capacity = cap;
    b->handle = NULL;
    return 0;
}

static void headers_frame(void *ctx, const rtp_frame *f)
{
    uint64_t *n = ctx;
    n[0]++;
    n[1] += f->ncopies;
}

static int headers_once(const char *path, double *seconds, uint64_t *packets, uint64_t *frames,
                        uint64_t *copies)
{
    xsf_error err;
    xsf_error_clear(&err);
    rtp_pcap_reader *r = NULL;
    rtp_depacketizer *d = NULL;
    uint64_t count[2] = {0, 0};
    int rc = 1;
    if (rtp_pcap_open_file(&r, path, "udp", &err) != XSF_OK)
        goto out;
    if (!rtp_pcap_mapped(r)) {
        fprintf(stderr, "%s: not a classic .pcap file (not mapped)\n", path);
        goto out;
    }
    rtp_depacketizer_config dc;
    memset(&dc, 0, sizeof dc);
    dc.payload_type = -1;
    dc.on_frame = headers_frame;
    dc.ctx = count;
    dc.acquire = headers_acquire;
    dc.packets_kept = 1;
    dc.defer_copies = 1;
    if (rtp_depacketizer_create(&d, &dc, &err) != XSF_OK)
        goto out;
    const double t0 = xsf_clock_mono_s();
    rtp_pcap_packet pk;
    xsf_status st;
    while ((st = rtp_pcap_next(r, &pk, &err)) == XSF_OK)
        rtp_depacketizer_push(d, pk.udp_payload, pk.bytes, pk.arrival_ns);
    rtp_depacketizer_flush(d);
    *seconds = xsf_clock_mono_s() - t0;
    if (st != XSF_ERR_TRUNCATED)
        goto out;
    *packets = rtp_depacketizer_stats(d)->packets;
    *frames = count[0];
    *copies = count[1];
    rc = 0;
out:
    if (rc && err.msg[0])
        fprintf(stderr, "%s: %s\n", path, err.msg);
    rtp_depacketizer_destroy(d);
    rtp_pcap_close(r);
    return rc;
}

static int headers_main(const char *path, int reps)
{
    double best = 1e30;
    uint64_t packets = 0, frames = 0, copies = 0;
    for (int i = 0; i < reps; i++) {
        double t;
        if (headers_once(path, &t, &packets, &frames, &copies))
            return 1;
        fprintf(stderr, "run %d: %.4f s, %llu frames\n", i + 1, t, (unsigned long long)frames);
        best = t < best ? t : best;
    }
    printf("frames %llu frames\n", (unsigned long long)frames);
    printf("packets %llu packets\n", (unsigned long long)packets);
    printf("copies_deferred %llu copies\n", (unsigned long long)copies);
    printf("seconds %.4f s\n", best);
    printf("headers_fps %.1f frames/s\n", (double)frames / best);
    printf("headers_mpps %.2f Mpackets/s\n", (double)packets / best / 1e6);
    printf("ns_per_packet %.1f ns\n", packets ? best * 1e9 / (double)packets : 0.0);
    free(headers_buf[0]);
    free(headers_buf[1]);
    return 0;
}

int main(int argc, char **argv)
{
    const char *capture = NULL;
    int copy_threads = 0, reps = 3, md5 = 0, headers = 0, queue = 16;
    const cli_option options[] = {
        CLI_ARG_REQUIRED("CAPTURE", CLI_STRING, &capture, "a .pcap file of one stream"),
        CLI_OPT("copy-threads", 0, CLI_INT, &copy_threads, "N",
                "threads copying payloads into frames (pl_rtp_config.copy_threads:\n"
                "0 the default choice, -1 none: the serial path)",
                .lo = -1, .hi = 64),
        CLI_OPT("reps", 0, CLI_INT, &reps, "R", "runs (default 3); the best is reported", .lo = 1,
                .hi = 1000),
        CLI_OPT("queue", 0, CLI_INT, &queue, "N",
                "frames in the stream's pool (default 16; 0: the pipeline's)", .lo = 0, .hi = 1024),
        CLI_OPT("md5", 0, CLI_FLAG, &md5, NULL, "the MD5 of every codestream, in order (slower)"),
        CLI_OPT("headers", 0, CLI_FLAG, &headers, NULL,
                "the receiving thread alone: the capture depacketized, the\n"
                "copies listed and not made (no pipeline)"),
        CLI_TABLE_END,
    };
    const cli_command cmd = {.about = "The RTP capture source alone: what one pl_rtp_source "
                                      "delivers from a .pcap.\n",
                             .options = options};
    const int parsed = cli_exit_status(cli_parse(&cmd, argc, argv));
    if (parsed >= 0)
        return parsed;
    if (headers)
        return headers_main(capture, reps);
    run_result best;
    memset(&best, 0, sizeof best);
    best.seconds = 1e30;
    for (int r = 0; r < reps; r++) {
        run_result res;
        if (run_once(capture, copy_threads, (unsigned)queue, md5, &res))
            return 1;
        fprintf(stderr, "run %d: %.3f s, %llu frames, %.1f frames/s, delivery %.1f frames/s\n",
                r + 1, res.seconds, (unsigned long long)res.ps.delivered,
                (double)res.ps.delivered / res.seconds, res.ps.fps);
        if (res.seconds < best.seconds)
            best = res;
    }
    const double fps = (double)best.ps.delivered / best.seconds;
    printf("frames %llu frames\n", (unsigned long long)best.ps.delivered);
    printf("packets %llu packets\n", (unsigned long long)best.rs.packets);
    printf("lost %llu packets\n", (unsigned long long)best.rs.lost);
    printf("seconds %.4f s\n", best.seconds);
    printf("source_fps %.1f frames/s\n", fps);
    printf("delivery_fps %.1f frames/s\n", best.ps.fps);
    printf("source_mpps %.2f Mpackets/s\n", (double)best.rs.packets / best.seconds / 1e6);
    printf("ns_per_packet %.1f ns\n",
           best.rs.packets ? best.seconds * 1e9 / (double)best.rs.packets : 0.0);
    printf("source_gbs %.2f GB/s\n", (double)best.rs.bytes / best.seconds / 1e9);
    if (md5)
        printf("md5 %s -\n", best.md5);
    return 0;
}
