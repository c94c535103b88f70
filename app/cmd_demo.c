/* xsflow demo: the main job in miniature. Sends the clip built into the
 * program as an ST 2110-22 stream over UDP loopback to itself, receives it
 * through the pipeline, decodes it (GPU where usable, else every CPU core),
 * checks every frame's MD5 against the C reference decoder and the clip's
 * against vectors/xs/MANIFEST.tsv, prints the stream's statistics and
 * writes the pictures. Needs no file and no network beyond loopback.
 * With --raw IN --bpp B the whole link: IN's pictures encoded on the way
 * (service.h, svc_demo_config.encode). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "demo_vector.h"
#include "service.h"
#include "xsf_cli.h"
#include "xsf_codecs.h"

#define DEMO_DEFAULT_OUT "xsflow-demo.y4m"
#define DEMO_LOOPS 2

/* The text before the options (a buffer of 1024 bytes). */
static const char *about(char *buf, size_t cap)
{
    snprintf(buf, cap,
             "Sends the JPEG XS clip built into this program (vectors/xs/%s.jxs, %dx%d %s,\n"
             "%d bits) %d times as an ST 2110-22 stream (RTP, RFC 9134) over UDP loopback to\n"
             "itself, receives and decodes it through the pipeline (GPU where usable, else every\n"
             "CPU core), checks each frame's MD5 against the C reference decoder's and the clip's\n"
             "against vectors/xs/MANIFEST.tsv (which two independent decoders agree on), prints\n"
             "the stream's statistics and writes the pictures to OUT (default " DEMO_DEFAULT_OUT
             ";\n"
             ".yuv, .y4m, or .ppm/.pgm with one file per frame). Exits with 0 when every frame\n"
             "arrived and matched.\n",
             demo_vector_name, demo_vector_width, demo_vector_height, demo_vector_format,
             demo_vector_depth, DEMO_LOOPS);
    return buf;
}

static void print_summary(const svc_demo_result *r, const char *out, imgio_format format,
                          int all_ok)
{
    const rtp_stats *rs = &r->received;
    const pl_stream_stats *ps = &r->stream;
    printf("xsflow demo: sent the built-in clip %s.jxs (%u frames, %dx%d %s, %d bits) %d "
           "times\n"
           "  as ST 2110-22 (RTP, RFC 9134) over UDP loopback to port %u, and received it\n"
           "  through the pipeline, decoding on %s\n",
           demo_vector_name, r->clip_frames, demo_vector_width, demo_vector_height,
           demo_vector_format, demo_vector_depth, DEMO_LOOPS, r->port, r->engine);
    printf("  sent      %llu frames in %llu packets\n", (unsigned long long)r->sent.segments,
           (unsigned long long)r->sent.packets);
    printf("  received  %llu packets, %llu lost, %llu reordered; %llu frames whole, %llu "
           "dropped; jitter %.3f ms\n",
           (unsigned long long)rs->packets, (unsigned long long)rs->lost,
           (unsigned long long)rs->reordered, (unsigned long long)ps->delivered,
           (unsigned long long)(rs->frames_dropped + rs->frames_partial + ps->dropped_total),
           rs->jitter_ms);
    printf("  latency   last packet to picture in host memory: p50 %.0f us, p99 %.0f us, "
           "max %.0f us\n",
           ps->latency.p50_us, ps->latency.p99_us, ps->latency.max_us);
    printf("  frames    %u of %u decoded, %u equal to the C reference decoder's MD5\n", r->frames,
           r->clip_frames * DEMO_LOOPS, r->matched);
    printf("  clip      MD5 %s over %llu bytes in .yuv layout\n", r->clip_md5,
           (unsigned long long)r->clip_bytes);
    printf("  manifest  MD5 %s over %zu bytes (vectors/xs/MANIFEST.tsv)\n", demo_vector_md5,
           demo_vector_decoded_bytes);
    printf("  match     %s\n", all_ok ? "yes" : "NO");
    if (!r->write_failed && !r->removed)
        printf("  wrote     %s (%s, %llu bytes)\n", out, imgio_format_name(format),
               (unsigned long long)r->written);
    fflush(stdout);
}

/* The live run's figures: raw -> encode -> RTP -> receive -> decode. */
static void print_live(const svc_demo_result *r, const char *raw, double bpp, const char *out,
                       imgio_format format, int all_ok)
{
    const pl_encode_stats *e = &r->encoded;
    const rtp_stats *rs = &r->received;
    const pl_stream_stats *ps = &r->stream;
    printf("xsflow demo: the whole link on UDP loopback: %s (%dx%d) encoded by the %s JPEG XS\n"
           "  encoder at %g bpp, sent as ST 2110-22 (RTP, RFC 9134) to port %u, received and\n"
           "  decoded through the pipeline on %s\n",
           raw, e->format.width[0], e->format.height[0], e->device < 0 ? "C" : "GPU", bpp, r->port,
           r->engine);
    printf("  encoded   %llu frames, %llu bytes; time per frame mean %.2f ms, p99 %.2f ms, max "
           "%.2f ms\n",
           (unsigned long long)e->frames, (unsigned long long)e->bytes, e->encode.mean_us / 1e3,
           e->encode.p99_us / 1e3, e->encode.max_us / 1e3);
    printf("  sent      %llu frames in %llu packets\n", (unsigned long long)r->sent.segments,
           (unsigned long long)r->sent.packets);
    printf("  received  %llu packets, %llu lost; %llu frames whole, %llu dropped\n",
           (unsigned long long)rs->packets, (unsigned long long)rs->lost,
           (unsigned long long)ps->delivered,
           (unsigned long long)(rs->frames_dropped + rs->frames_partial + ps->dropped_total));
    printf("  frames    %u of %u decoded, %u equal to the C reference decoder's picture of the "
           "codestream sent\n",
           r->frames, r->clip_frames, r->matched);
    printf("  decoded   MD5 %s over %llu bytes in .yuv layout\n", r->clip_md5,
           (unsigned long long)r->clip_bytes);
    printf("  reference MD5 %s over %llu bytes (the C decoder on the codestreams sent)\n",
           r->reference_md5, (unsigned long long)r->reference_bytes);
    printf("  match     %s\n", all_ok ? "yes" : "NO");
    if (!r->write_failed && !r->removed)
        printf("  wrote     %s (%s, %llu bytes)\n", out, imgio_format_name(format),
               (unsigned long long)r->written);
    fflush(stdout);
}

/* The live run of --raw (the pictures' format from the file's name). 0, or the exit status
 * of an option that does not fit. */
static int live_config(const char *raw, double bpp, int frames, pl_engine engine,
                       pl_encode_config *ec)
{
    memset(ec, 0, sizeof *ec);
    ec->in = raw;
    ec->format = imgio_format_from_path(raw);
    ec->codec = xsf_codec_find("jpeg-xs"); /* RFC 9134 carries JPEG XS */
    ec->max_frames = frames;
    xsf_encode_settings_init(&ec->settings);
    ec->settings.bpp = bpp;
    if (ec->format == IMGIO_FORMAT_NONE || ec->format == IMGIO_FORMAT_YUV) {
        cli_error(raw, "--raw takes a picture file with a header: .y4m, .ppm or .pgm");
        return 2;
    }
    if (!(bpp > 0)) {
        cli_error(raw, "--raw needs the rate to encode at: --bpp B");
        return 2;
    }
    xsf_error err;
    xsf_error_clear(&err);
    const int want = engine == PL_ENGINE_CPU ? 0 : engine == PL_ENGINE_GPU ? 1 : -1;
    if (pl_encode_pick_device(ec->codec, want, &ec->device, &err) != XSF_OK) {
        cli_error("--gpu", "%s", err.msg);
        return 1;
    }
    return 0;
}

int cmd_demo(int argc, char **argv)
{
    const char *out = NULL, *raw = NULL;
    pl_config pc;
    memset(&pc, 0, sizeof pc);
    int quiet = 0, frames = 0;
    double bpp = 0;
    char text[1024];
    const cli_option options[] = {
        CLI_OPT("output", 'o', CLI_STRING, &out, "OUT", "same as OUT"),
        CLI_OPT("cpu", 0, CLI_SET, &pc.engine, NULL,
                "decode on the CPU (C reference decoder, one thread per core)",
                .value = PL_ENGINE_CPU),
        CLI_OPT("gpu", 0, CLI_SET, &pc.engine, NULL,
                "decode on the GPU (the default where a GPU is usable)", .value = PL_ENGINE_GPU),
        CLI_OPT("quiet", 'q', CLI_FLAG, &quiet, NULL,
                "print nothing but errors (and open no window)"),
        CLI_HEAD("the whole link (raw -> encode -> RTP -> receive -> decode):"),
        CLI_OPT("raw", 0, CLI_STRING, &raw, "IN.y4m",
                "send these pictures instead of the clip, each encoded (JPEG XS,\n"
                "the engine of --cpu/--gpu) and sent as it is made; prints the\n"
                "MD5 of the pictures received beside the C reference decoder's\n"
                "of the codestreams sent (equal when nothing was lost)"),
        CLI_OPT("bpp", 0, CLI_DOUBLE, &bpp, "B", "the rate of --raw, bits per pixel", .lo = 0,
                .hi = 1024, .flags = CLI_ABOVE_LO),
        CLI_OPT("frames", 0, CLI_INT, &frames, "N",
                "the first N frames of --raw (default and at most 64)", .lo = 1, .hi = 64),
        CLI_TABLE_END};
    const cli_command cmd = {
        .name = "demo",
        .synopsis = "[OUT] [--cpu|--gpu] [--raw IN.y4m --bpp B] [-q]",
        .about = about(text, sizeof text),
        .options = options,
        .epilogue = "Where a window can open (DISPLAY or WAYLAND_DISPLAY set), the clip is then "
                    "shown\nin a loop until q is pressed.\n",
        .input = &out};
    const int r = cli_exit_status(cli_parse(&cmd, argc, argv));
    if (r >= 0)
        return r;
    if (!out)
        out = DEMO_DEFAULT_OUT;
    pl_writer_options wo;
    memset(&wo, 0, sizeof wo);
    wo.image.format = imgio_format_from_path(out);
    wo.image.frame_files = 1; /* .ppm/.pgm: one file per frame */
    if (wo.image.format == IMGIO_FORMAT_NONE) {
        cli_error(out, "unknown output format: name it .yuv, .y4m, .ppm or .pgm");
        return 2;
    }

    static pl_encode_config ec;
    if (raw) {
        const int st = live_config(raw, bpp, frames, pc.engine, &ec);
        if (st)
            return st;
    } else if (bpp > 0 || frames) {
        cli_error(bpp > 0 ? "--bpp" : "--frames", "only with --raw IN.y4m");
        return 2;
    }
    char subject[64];
    snprintf(subject, sizeof subject, "built-in %s.jxs", demo_vector_name);
    static svc_demo_config dc;
    dc = (svc_demo_config){.name = subject,
                           .clip = demo_vector_data,
                           .len = demo_vector_size,
                           .loops = DEMO_LOOPS,
                           .pl = pc,
                           .out = out,
                           .writer = wo,
                           .expect_md5 = demo_vector_md5,
                           .expect_bytes = demo_vector_decoded_bytes};
    if (raw) {
        dc.name = raw;
        dc.encode = &ec;
    }
    static svc_demo_result res;
    svc_demo_run(&dc, &res);
    int status = res.nfailures != 0 ? (res.refused ? 2 : 1) : 0;
    for (int i = 0; i < res.nfailures; i++)
        cli_error(res.failure[i].subject, "%s", res.failure[i].err.msg);
    if (raw) {
        if (!quiet && !status)
            print_live(&res, raw, bpp, out, wo.image.format, res.all_ok);
        if (res.write_failed) {
            cli_error(out, "%s", res.write_failure.err.msg);
            status = 1;
        }
        if (!status && !res.all_ok) {
            cli_error(raw,
                      "%u of %u frames arrived, %u matched the C reference decoder; MD5 %s, "
                      "reference %s",
                      res.frames, res.clip_frames, res.matched, res.clip_md5, res.reference_md5);
            status = 1;
        }
        return status;
    }
    const unsigned want = res.clip_frames * DEMO_LOOPS;
    const int all_ok = res.all_ok;
    if (!quiet && !status)
        print_summary(&res, out, wo.image.format, all_ok);
    if (res.write_failed) {
        cli_error(out, "%s", res.write_failure.err.msg);
        status = 1;
    }
    /* Where a window can open, show the clip (q closes it). */
    if (!status && all_ok && !quiet && dsp_window_possible()) {
        svc_play_options po;
        svc_play_options_init(&po);
        po.play.loop = 1;
        po.play.name = subject;
        po.play.title = "xsflow demo (q to close)";
        printf("  showing   the clip in a window (q closes it)\n");
        fflush(stdout);
        svc_play_result pr;
        svc_failure pf;
        if (svc_play(demo_vector_data, demo_vector_size, &po, &pr, &pf) != XSF_OK)
            cli_error(pf.subject, "%s", pf.err.msg);
    }
    if (!status && !all_ok) {
        cli_error(subject,
                  "%u of %u frames arrived, %u matched the C reference decoder; clip MD5 %s, "
                  "manifest %s",
                  res.frames, want, res.matched, res.clip_md5, demo_vector_md5);
        status = 1;
    }
    return status;
}
