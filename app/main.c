/* xsflow: receive and decode JPEG XS (and BPC-PaCo) video. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "pipeline.h"
#include "service.h"
#include "xsf_cli.h"

static const xsf_command commands[] = {
    {"info", "print what the headers of a .jxs file say", cmd_info},
    {"decode", "decode a .jxs file to .yuv, .y4m, .ppm or .pgm", cmd_decode},
    {"encode", "encode .yuv, .y4m, .ppm or .pgm frames to a .jxs file", cmd_encode},
    {"demo", "decode the bundled example and say what it decoded", cmd_demo},
    {"play", "show a .jxs file in a window (or render a picture offscreen)", cmd_play},
    {"send", "send a .jxs file as an ST 2110-22 stream (RTP, RFC 9134) or into a .pcap", cmd_send},
    {"recv", "receive an ST 2110-22 stream (UDP, SDP or .pcap) into .jxs, .yuv or .y4m", cmd_recv},
    {"bpc-train", "estimate BPC-PaCo probability tables from pictures (for encode --codec bpc)",
     cmd_bpc_train},
#ifdef XSF_HAVE_NMOS
    {"node", "run an AMWA NMOS node (IS-04, IS-05): receivers a controller connects", cmd_node},
#endif
    {"compare", "JPEG XS against BPC-PaCo: rate, PSNR, SSIM and throughput per bitrate",
     cmd_compare},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: xsflow COMMAND [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'xsflow COMMAND --help' describes a command's options; 'xsflow --version' (-V)\n"
               "prints the version and the parts built in (CUDA, GL, GStreamer, NMOS, libpcap).\n");
}

int main(int argc, char **argv)
{
    static char version[1024];
    svc_build_describe(version, sizeof version);
    cli_set_program("xsflow");
    cli_set_version(version); /* xsflow COMMAND --version */
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
        fputs(version, stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            const int status = commands[i].run(argc - 1, argv + 1);
            /* A GPU start still under way (the work ended first): the process ends without
             * CUDA's exit handlers, which would wait for it or race it (pipeline.h). Every
             * file the command wrote is closed by now; standard streams are flushed here. */
            if (pl_gpu_starts_pending()) {
                fflush(NULL);
                _exit(status);
            }
            return status;
        }
    fprintf(stderr, "xsflow: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
