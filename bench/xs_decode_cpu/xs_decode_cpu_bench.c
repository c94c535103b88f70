/* bench/xs_decode_cpu: the C reference decoder, one host thread, on whole
 * files (every frame). Prints frames per second and megasamples per second.
 * Usage: xs_decode_cpu_bench [--seconds S] FILE.jxs... (--help) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "image_io.h"
#include "xs.h"
#include "xsf_cli.h"
#include "xsf_clock.h"

int main(int argc, char **argv)
{
    double seconds = 2.0;
    int nfiles = 0;
    static const char *files[256];
    const cli_option options[] = {
        CLI_OPT("seconds", 0, CLI_DOUBLE, &seconds, "S",
                "decode each file again until S seconds have passed (default 2)", .lo = 0,
                .hi = 86400),
        CLI_ARG("FILE.jxs", CLI_LIST, files, "codestreams, every frame of each decoded in turn",
                .max_items = 256, .count = &nfiles),
        CLI_TABLE_END,
    };
    const cli_command cmd = {.about = "The C decoder, one thread.\n", .options = options};
    const int parsed = cli_exit_status(cli_parse(&cmd, argc, argv));
    if (parsed >= 0)
        return parsed;
    xs_decoder *dec;
    if (xs_decoder_create(&dec, NULL) != XSF_OK)
        return 1;
    printf("%-32s %10s %10s %10s %10s %10s\n", "codestream", "size", "bytes", "ms/frame", "fps",
           "Msamples/s");
    for (int a = 0; a < nfiles; a++) {
        const char *path = files[a];
        uint8_t *buf = NULL;
        size_t n = 0;
        xsf_error err;
        if (imgio_read_file(path, &buf, &n, &err) != XSF_OK || !n) {
            fprintf(stderr, "%s: %s\n", path, buf ? "empty" : err.msg);
            free(buf);
            continue;
        }
        long frames = 0;
        size_t samples = 0;
        int w = 0, h = 0;
        const double t0 = xsf_clock_mono_s();
        double t1 = t0;
        do {
            size_t off = 0;
            while (off < n) {
                size_t used;
                const xsf_picture *img;
                if (xs_decode(dec, buf + off, n - off, &used, &img) != XSF_OK) {
                    fprintf(stderr, "%s: %s\n", path, xs_decoder_error(dec));
                    return 1;
                }
                off += used;
                frames++;
                if (!samples) {
                    for (int c = 0; c < img->fmt.nc; c++)
                        samples += (size_t)img->fmt.width[c] * img->fmt.height[c];
                    w = img->fmt.width[0];
                    h = img->fmt.height[0];
                }
            }
            t1 = xsf_clock_mono_s();
        } while (t1 - t0 < seconds);
        const double per = (t1 - t0) / frames;
        const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        char size[32];
        snprintf(size, sizeof size, "%dx%d", w, h);
        printf("%-32s %10s %10zu %10.2f %10.1f %10.1f\n", name, size, n, per * 1e3, 1.0 / per,
               samples / per / 1e6);
        free(buf);
    }
    xs_decoder_destroy(dec);
    return 0;
}
