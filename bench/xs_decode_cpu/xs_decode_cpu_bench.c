/* bench/xs_decode_cpu: the C reference decoder, one host thread, on whole
 * files (every frame). Prints frames per second and megasamples per second.
 * Usage: xs_decode_cpu_bench [--seconds S] FILE.jxs... */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xs.h"
#include "xsf_clock.h"

int main(int argc, char **argv)
{
    double seconds = 2.0;
    int first = 1;
    if (argc > 2 && !strcmp(argv[1], "--seconds")) {
        seconds = atof(argv[2]);
        first = 3;
    }
    xs_decoder *dec;
    if (xs_decoder_create(&dec) != XSF_OK)
        return 1;
    printf("%-32s %10s %10s %10s %10s %10s\n", "codestream", "size", "bytes", "ms/frame", "fps",
           "Msamples/s");
    for (int a = first; a < argc; a++) {
        FILE *f = fopen(argv[a], "rb");
        if (!f) {
            fprintf(stderr, "%s: cannot open\n", argv[a]);
            continue;
        }
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *buf = n > 0 ? malloc((size_t)n) : NULL;
        if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
            fclose(f);
            free(buf);
            continue;
        }
        fclose(f);
        long frames = 0;
        size_t samples = 0;
        int w = 0, h = 0;
        const double t0 = xsf_clock_mono_s();
        double t1 = t0;
        do {
            size_t off = 0;
            while (off < (size_t)n) {
                size_t used;
                const xsf_picture *img;
                if (xs_decode(dec, buf + off, (size_t)n - off, &used, &img) != XSF_OK) {
                    fprintf(stderr, "%s: %s\n", argv[a], xs_decoder_error(dec));
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
        const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        char size[32];
        snprintf(size, sizeof size, "%dx%d", w, h);
        printf("%-32s %10s %10ld %10.2f %10.1f %10.1f\n", name, size, n, per * 1e3, 1.0 / per,
               samples / per / 1e6);
        free(buf);
    }
    xs_decoder_destroy(dec);
    return 0;
}
