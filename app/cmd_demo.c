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

/* The clip in a window until q closes it. */
static void show(const char *subject)
{
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
    svc_failure f;
    if (raw && svc_demo_live_config(&ec, raw, bpp, frames, pc.engine, &f) != XSF_OK) {
        cli_error(f.subject, "%s", f.err.msg);
        return f.usage ? 2 : 1;
    } else if (!raw && (bpp > 0 || frames)) {
        cli_error(bpp > 0 ? "--bpp" : "--frames", "only with --raw IN.y4m");
        return 2;
    }
    char subject[64], clip[256];
    snprintf(subject, sizeof subject, "built-in %s.jxs", demo_vector_name);
    static svc_demo_config dc;
    dc = (svc_demo_config){.name = raw ? raw : subject,
                           .clip = demo_vector_data,
                           .len = demo_vector_size,
                           .loops = DEMO_LOOPS,
                           .pl = pc,
                           .out = out,
                           .writer = wo,
                           .expect_md5 = demo_vector_md5,
                           .expect_bytes = demo_vector_decoded_bytes,
                           .encode = raw ? &ec : NULL};
    static svc_demo_result res;
    svc_demo_run(&dc, &res);
    int status = res.nfailures != 0 ? (res.refused ? 2 : 1) : 0;
    for (int i = 0; i < res.nfailures; i++)
        cli_error(res.failure[i].subject, "%s", res.failure[i].err.msg);
    snprintf(clip, sizeof clip, "the built-in clip %s.jxs (%u frames, %dx%d %s, %d bits)",
             demo_vector_name, res.clip_frames, demo_vector_width, demo_vector_height,
             demo_vector_format, demo_vector_depth);
    if (!quiet && !status) {
        svc_demo_format(stdout, &dc, &res, clip);
        fflush(stdout);
    }
    if (res.write_failed) {
        cli_error(out, "%s", res.write_failure.err.msg);
        status = 1;
    }
    if (raw) {
        if (!status && !res.all_ok) {
            cli_error(raw,
                      "%u of %u frames arrived, %u matched the C reference decoder; MD5 %s, "
                      "reference %s",
                      res.frames, res.clip_frames, res.matched, res.clip_md5, res.reference_md5);
            status = 1;
        }
        return status;
    }
    /* Where a window can open, show the clip (q closes it). */
    if (!status && res.all_ok && !quiet && dsp_window_possible())
        show(subject);
    if (!status && !res.all_ok) {
        cli_error(subject,
                  "%u of %u frames arrived, %u matched the C reference decoder; clip MD5 %s, "
                  "manifest %s",
                  res.frames, res.clip_frames * DEMO_LOOPS, res.matched, res.clip_md5,
                  demo_vector_md5);
        status = 1;
    }
    return status;
}
