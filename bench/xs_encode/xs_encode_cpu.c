/* bench/xs_encode cpu: the C JPEG XS encoder on 1, 2, 4, ... threads, and
 * SVT-JPEG-XS's encoder on the same cores, for one 1080p frame.
 *
 * The frame: the middle 1920x1080 of the UHD 4:2:2 10-bit vector
 * (uhd_422_10b_bpp3.jxs decoded; .vec, ../shared/vectors/xs-uhd or --uhd
 * DIR), else a synthetic one. For each thread count: the median of --frames
 * encodes (after one not timed) in ms a frame, and a check that the
 * codestream is byte for byte the one of 1 thread. With --svt PATH
 * (SvtJpegxsEncApp, scripts/svt-build.sh): SVT's time on the same frame at
 * the same bits per pixel and --lp of the same count, as `xsflow compare`
 * measures it (its own figure over repeats of the frame, compare.h: so a
 * rate with frames in flight, where ours is one frame at a time), and the
 * ratio ours / SVT's (below 1: ours is faster).
 *
 * Usage: xs_encode_cpu [--bpp B] [--frames N] [--threads LIST] [--svt PATH]
 *        [--uhd DIR] (--help) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "image_io.h"
#include "xs.h"
#include "xsf_cli.h"
#include "xsf_clock.h"
#include "xsf_pool.h"

#define W 1920
#define H 1080
#define MAX_COUNTS 16

/* The frame: its own planes. */
typedef struct frame {
    xsf_picture img;
    uint16_t *buf;
    const char *origin;
} frame;

static void make_frame(frame *f, const char *dir)
{
    memset(f, 0, sizeof *f);
    f->buf = malloc((size_t)W * H * 2 * sizeof *f->buf);
    if (!f->buf)
        exit(1);
    xsf_picture_init(&f->img);
    f->img.fmt.container = XSF_PLANAR_U16;
    f->img.fmt.nc = 3;
    size_t off = 0;
    for (int c = 0; c < 3; c++) {
        f->img.fmt.width[c] = c ? W / 2 : W;
        f->img.fmt.height[c] = H;
        f->img.fmt.depth[c] = 10;
        f->img.stride[c] = (size_t)f->img.fmt.width[c] * 2;
        f->img.data[c] = (uint8_t *)(f->buf + off);
        off += (size_t)f->img.fmt.width[c] * H;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/uhd_422_10b_bpp3.jxs", dir);
    uint8_t *cs = NULL;
    size_t n = 0, used;
    xs_decoder *dec = NULL;
    const xsf_picture *uhd = NULL;
    xsf_error err;
    if (imgio_read_file(path, &cs, &n, &err) == XSF_OK && xs_decoder_create(&dec, NULL) == XSF_OK &&
        xs_decode(dec, cs, n, &used, &uhd) == XSF_OK && uhd->fmt.nc == 3 &&
        uhd->fmt.width[0] >= W * 2 && uhd->fmt.height[0] >= H * 2 &&
        uhd->fmt.width[1] * 2 == uhd->fmt.width[0] && uhd->fmt.depth[0] == 10) {
        const int x0 = (uhd->fmt.width[0] - W) / 4 * 2, y0 = (uhd->fmt.height[0] - H) / 2;
        for (int c = 0; c < 3; c++) {
            const int sx = c ? 2 : 1;
            for (int y = 0; y < H; y++)
                memcpy(xsf_picture_row16(&f->img, c, y),
                       xsf_picture_row16(uhd, c, y0 + y) + x0 / sx,
                       (size_t)f->img.fmt.width[c] * 2);
        }
        f->origin = "the middle of uhd_422_10b_bpp3.jxs";
    } else {
        /* Synthetic: shading, edges, texture and noise. */
        uint32_t r = 12345;
        for (int c = 0; c < 3; c++)
            for (int y = 0; y < H; y++)
                for (int x = 0; x < f->img.fmt.width[c]; x++) {
                    const double fx = (double)x / f->img.fmt.width[c], fy = (double)y / H;
                    double v = 0.4 + 0.3 * fx * fy + 0.1 * ((x * 7 + y * 3 + c * 50) % 97) / 97.0;
                    if ((x / 97 + y / 61) % 7 == 0)
                        v += 0.15;
                    r = r * 1664525u + 1013904223u;
                    v += ((r >> 16) % 1000) / 1000.0 * 0.02;
                    xsf_picture_row16(&f->img, c, y)[x] = (uint16_t)(v > 1 ? 1023 : v * 1023);
                }
        f->origin = "synthetic (no UHD vector found)";
    }
    xs_decoder_destroy(dec);
    free(cs);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median ms a frame on `threads` threads; the codestream into cs (cap bytes). */
static double ours(const frame *f, double bpp, int threads, int frames, uint8_t *cs, size_t cap,
                   size_t *len, int *got_threads)
{
    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    xs_encoder_config_format(&cfg, "422", W, H, 10);
    cfg.bpp = bpp;
    cfg.threads = threads;
    xs_encoder *e;
    xsf_error err;
    if (xs_encoder_create(&e, &cfg, &err) != XSF_OK) {
        fprintf(stderr, "C encoder: %s\n", err.msg);
        exit(1);
    }
    *got_threads = xs_encoder_threads(e);
    double *ms = malloc((size_t)frames * sizeof *ms);
    if (!ms || xs_encode(e, &f->img, cs, cap, len) != XSF_OK) {
        fprintf(stderr, "C encoder: %s\n", xs_encoder_error(e));
        exit(1);
    }
    for (int i = 0; i < frames; i++) {
        const double t0 = xsf_clock_mono_s();
        xs_encode(e, &f->img, cs, cap, len);
        ms[i] = (xsf_clock_mono_s() - t0) * 1e3;
    }
    qsort(ms, (size_t)frames, sizeof *ms, cmp_double);
    const double med = ms[frames / 2];
    free(ms);
    xs_encoder_destroy(e);
    return med;
}

/* SVT-JPEG-XS's ms a frame on `threads` threads (0 where it did not run). */
static double svt(const frame *f, double bpp, int threads, const char *app, char *about,
                  size_t about_len)
{
    cmp_options opt = {.rates = &bpp,
                       .nrates = 1,
                       .variants = 1u << CMP_SVT,
                       .path = CMP_PATH_CPU,
                       .time_ms = 2000,
                       .svt_enc = app,
                       .svt_dec = "none",
                       .peer_threads = threads};
    cmp_session *s;
    xsf_error err;
    if (cmp_session_create(&s, &opt, &err) != XSF_OK) {
        fprintf(stderr, "SVT-JPEG-XS: %s\n", err.msg);
        return 0;
    }
    double ms = 0;
    if (cmp_session_add_picture(s, "frame", &f->img, 0) == XSF_OK && cmp_session_rows(s) > 0) {
        const cmp_row *r = cmp_session_row(s, 0);
        if (r->coded && r->enc_fps > 0)
            ms = 1e3 / r->enc_fps;
        else
            fprintf(stderr, "SVT-JPEG-XS: %s\n", r->note);
    } else {
        fprintf(stderr, "SVT-JPEG-XS: %s\n", cmp_session_error(s));
    }
    const char *line = cmp_session_peer(s, CMP_SVT);
    if (line)
        snprintf(about, about_len, "%s", line);
    cmp_session_destroy(s);
    return ms;
}

int main(int argc, char **argv)
{
    double bpp = 3;
    int frames = 30, counts[MAX_COUNTS], ncounts = 0;
    const char *dir = NULL, *app = NULL;
    const cli_option options[] = {
        CLI_OPT("bpp", 0, CLI_DOUBLE, &bpp, "B", "bits per pixel (default 3)", .lo = 0.1, .hi = 32),
        CLI_OPT("frames", 0, CLI_INT, &frames, "N", "timed encodes per thread count (default 30)",
                .lo = 1, .hi = 100000),
        CLI_OPT("threads", 0, CLI_INTS, counts, "LIST",
                "thread counts (default 1, 2, 4, ... and every online core)", .lo = 1,
                .hi = XS_MAX_THREADS, .max_items = MAX_COUNTS, .count = &ncounts),
        CLI_OPT("svt", 0, CLI_STRING, &app, "PATH",
                "SvtJpegxsEncApp: time it on the same frame, rate and cores"),
        CLI_OPT("uhd", 0, CLI_STRING, &dir, "DIR",
                "the UHD vectors (default: .vec, ../shared/vectors/xs-uhd or\n"
                "../../shared/vectors/xs-uhd; a synthetic frame where none is)"),
        CLI_TABLE_END,
    };
    const cli_command cmd = {.about = "The C JPEG XS encoder on 1, 2, 4, ... threads against "
                                      "SVT-JPEG-XS, 1080p 4:2:2 10-bit.\n",
                             .options = options};
    const int parsed = cli_exit_status(cli_parse(&cmd, argc, argv));
    if (parsed >= 0)
        return parsed;
    static const char *const dirs[] = {".vec", "../shared/vectors/xs-uhd",
                                       "../../shared/vectors/xs-uhd"};
    for (size_t i = 0; !dir && i < 3; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/uhd_422_10b_bpp3.jxs", dirs[i]);
        FILE *fp = fopen(p, "rb");
        if (fp) {
            fclose(fp);
            dir = dirs[i];
        }
    }
    const int cores = xsf_cpu_count();
    if (!ncounts) {
        for (int n = 1; n < cores && ncounts < MAX_COUNTS - 1; n *= 2)
            counts[ncounts++] = n;
        counts[ncounts++] = cores;
    }
    frame f;
    make_frame(&f, dir ? dir : dirs[0]);
    const size_t cap = (size_t)(bpp * W * H / 8) + 1;
    uint8_t *ref = malloc(cap), *cs = malloc(cap);
    size_t ref_len = 0, len = 0;
    if (!ref || !cs)
        return 1;
    printf("C JPEG XS encoder, 1920x1080 4:2:2 10-bit (%s), %.2f bpp, %d online cores, "
           "median of %d frames\n",
           f.origin, bpp, cores, frames);
    printf("%8s %10s %8s %10s %10s %8s\n", "threads", "ms/frame", "speedup", "same", "svt ms",
           "ours/svt");
    double one = 0;
    int failed = 0;
    char about[512] = "";
    for (int i = 0; i < ncounts; i++) {
        int got;
        const double ms =
            ours(&f, bpp, counts[i], frames, i ? cs : ref, cap, i ? &len : &ref_len, &got);
        if (i == 0)
            one = ms * counts[0];
        const int same = i == 0 || (len == ref_len && !memcmp(cs, ref, len));
        failed |= !same;
        const double s = app ? svt(&f, bpp, counts[i], app, about, sizeof about) : 0;
        char sv[16] = "-", ratio[16] = "-";
        if (s > 0) {
            snprintf(sv, sizeof sv, "%.2f", s);
            snprintf(ratio, sizeof ratio, "%.2f", ms / s);
        }
        printf("%8d %10.2f %8.2f %10s %10s %8s\n", got, ms, one / ms,
               i == 0 ? "(ref)" : (same ? "yes" : "NO"), sv, ratio);
        fflush(stdout);
    }
    if (about[0])
        printf("svt: %s\n", about);
    free(ref);
    free(cs);
    free(f.buf);
    if (failed)
        fprintf(stderr, "the codestream differs between thread counts\n");
    return failed;
}
