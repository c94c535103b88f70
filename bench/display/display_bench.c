/* bench/display: decode to presented frame, through the pipeline and the
 * display sink, offscreen (EGL), no vsync. In the same run:
 *   A  the pipeline alone: frames decoded to GPU memory, released at once
 *   B  the same frames shown: CUDA-GL interop into the textures, drawn and
 *      presented, one present per frame
 *   C  a 16-tile multiviewer: 16 streams of HD frames, each in its tile
 * The display's added time per frame is 1/fps(B) - 1/fps(A).
 * usage: display_bench UHD.jxs HD.jxs [FRAMES [cpu|gpu [CONTEXTS [A|all [auto|shader|cuda]]]]]
 * (--help)
 *   cpu: the C decoders, host pictures uploaded (to try the program where no
 *   GPU is); CONTEXTS: decoder contexts per GPU (0: the pipeline's default);
 *   A: figure A alone (to compare context counts); the last word: where
 *   pictures become R'G'B' (dsp_convert). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "display.h"
#include "pipeline.h"
#include "xsf_cli.h"
#include "xsf_clock.h"

static int die(const char *what, const char *msg)
{
    fprintf(stderr, "display_bench: %s: %s\n", what, msg);
    return 1;
}

/* Runs `frames` frames of each of `nstreams` streams (the codestream in
 * cs[0..len)) through `p` into `sinks`; returns the seconds taken. */
static double run(pl_pipeline *p, const pl_sink *sinks, int nstreams, const uint8_t *cs, size_t len,
                  int frames, const char *name)
{
    int sid[64];
    xsf_error err;
    xsf_error_clear(&err);
    for (int k = 0; k < nstreams; k++) {
        /* 16 frames: the display keeps the pictures it shows (and those
         * its last composition read) while the decoders fill the rest. */
        pl_stream_config sc = {
            .name = name, .backpressure = PL_BLOCK, .frames = 16, .sink = sinks[k]};
        if (pl_stream_add(p, &sc, &sid[k], &err) != XSF_OK) {
            fprintf(stderr, "display_bench: %s\n", err.msg);
            return -1;
        }
    }
    /* One warm-up frame per stream (allocations, first interop mapping). */
    uint64_t n;
    for (int k = 0; k < nstreams; k++)
        pl_jxs_source_run(p, sid[k], cs, len, 0, 1, &n, &err);
    for (int k = 0; k < nstreams; k++)
        pl_stream_finish(p, sid[k]);
    const double t0 = xsf_clock_mono_s();
    for (int f = 0; f < frames; f++)
        for (int k = 0; k < nstreams; k++)
            if (pl_jxs_source_run(p, sid[k], cs, len, 0, 1, &n, &err) != XSF_OK) {
                fprintf(stderr, "display_bench: %s\n", err.msg);
                return -1;
            }
    for (int k = 0; k < nstreams; k++)
        pl_stream_finish(p, sid[k]);
    return xsf_clock_mono_s() - t0;
}

int main(int argc, char **argv)
{
    const char *uhd_path = NULL, *hd_path = NULL, *convert = "auto";
    int frames = 600, engine = 1, contexts = 0, figures = 1;
    const cli_option args[] = {
        CLI_ARG_REQUIRED("UHD.jxs", CLI_STRING, &uhd_path, "the codestream of figures A and B"),
        CLI_ARG_REQUIRED("HD.jxs", CLI_STRING, &hd_path, "the codestream of each tile of C"),
        CLI_ARG("FRAMES", CLI_INT, &frames, "frames per figure (default 600; C: a quarter)",
                .lo = 1, .hi = 1e9),
        CLI_ARG("cpu|gpu", CLI_CHOICE, &engine,
                "the decoders (default gpu; cpu: the C decoders, pictures\nuploaded)",
                .choices = "cpu|gpu"),
        CLI_ARG("CONTEXTS", CLI_INT, &contexts,
                "decoder contexts per GPU (default 0: the pipeline's choice)", .lo = 0, .hi = 64),
        CLI_ARG("A|all", CLI_CHOICE, &figures,
                "A: figure A alone (to compare context counts); default all", .choices = "A|all"),
        CLI_ARG("auto|shader|cuda", CLI_STRING, &convert,
                "where pictures become R'G'B' (dsp_convert; default auto)"),
        CLI_TABLE_END,
    };
    const cli_command cmd = {
        .about = "Decode to presented frame through the pipeline and the display sink, offscreen "
                 "(EGL),\nno vsync: A the decode alone, B the same frames presented, C a 16-tile "
                 "multiviewer.\n",
        .options = args};
    const int parsed = cli_exit_status(cli_parse(&cmd, argc, argv));
    if (parsed >= 0)
        return parsed;
    dsp_convert conversion;
    if (dsp_convert_parse(convert, &conversion) != XSF_OK) {
        cli_error(convert, "not auto, shader or cuda");
        return 2;
    }
    xsf_error err;
    xsf_error_clear(&err);
    uint8_t *uhd, *hd;
    size_t uhd_len, hd_len;
    if (imgio_read_file(uhd_path, &uhd, &uhd_len, &err) != XSF_OK)
        return die(uhd_path, err.msg);
    if (imgio_read_file(hd_path, &hd, &hd_len, &err) != XSF_OK)
        return die(hd_path, err.msg);
    pl_config pc;
    memset(&pc, 0, sizeof pc);
    pc.engine = engine == 0 ? PL_ENGINE_CPU : PL_ENGINE_GPU;
    pc.contexts_per_gpu = (unsigned)contexts;
    const int only_a = figures == 0;
    pl_pipeline *p;
    if (pl_create(&p, &pc, &err) != XSF_OK)
        return die("pipeline", err.msg);
    printf("bench/display: %s; interop %s; conversion %s; %d frames per figure, EGL offscreen, no "
           "vsync\n",
           pl_describe(p), dsp_have_interop() ? "yes" : "no (host upload)", convert, frames);

    /* A: decode alone, pictures left in GPU memory. */
    const int gpu = pl_uses_gpu(p);
    pl_sink null = pl_null_sink(gpu ? PL_PICTURE_DEVICE : PL_PICTURE_HOST);
    const double ta = run(p, &null, 1, uhd, uhd_len, frames, "A");
    if (ta < 0)
        return 1;
    if (only_a) {
        printf("A: %u contexts: %d frames in %.3f s: %.1f frames/s\n", pc.contexts_per_gpu, frames,
               ta, frames / ta);
        pl_destroy(p);
        return 0;
    }

    /* B: the same frames presented. */
    dsp_view_options vo;
    dsp_view_options_init(&vo);
    vo.display.tiles = 1;
    vo.display.vsync = 0;
    vo.display.headless = 1;
    vo.display.width = 1920;
    vo.display.convert = conversion;
    vo.display.height = 1080;
    dsp_view *v;
    if (dsp_view_start(&v, &vo, &err) != XSF_OK)
        return die("display", err.msg);
    pl_sink show = dsp_view_sink(v, 0, gpu);
    const double tb = run(p, &show, 1, uhd, uhd_len, frames, "B");
    dsp_tile_stats st[DSP_MAX_TILES];
    if (tb < 0 || dsp_view_stop(v, st, &err) != XSF_OK)
        return die("display", tb < 0 ? "run failed" : err.msg);
    const uint64_t shown_b = st[0].presented;
    const double submit_us = st[0].submitted ? st[0].submit_ns / 1e3 / (double)st[0].submitted : 0;
    const double present_us = st[0].presents ? st[0].present_ns / 1e3 / (double)st[0].presents : 0;

    /* C: 16 tiles of HD streams. */
    vo.display.tiles = 16;
    if (dsp_view_start(&v, &vo, &err) != XSF_OK)
        return die("display", err.msg);
    pl_sink tiles[16];
    for (int k = 0; k < 16; k++)
        tiles[k] = dsp_view_sink(v, k, gpu);
    const int hd_frames = frames / 4;
    const double tc = run(p, tiles, 16, hd, hd_len, hd_frames, "C");
    if (tc < 0 || dsp_view_stop(v, st, &err) != XSF_OK)
        return die("display", tc < 0 ? "run failed" : err.msg);
    uint64_t shown_c = 0;
    for (int k = 0; k < 16; k++)
        shown_c += st[k].presented;

    const double fa = frames / ta, fb = frames / tb, fc = 16.0 * hd_frames / tc;
    printf("\n| figure | frames | seconds | frames/s | presented |\n| --- | ---: | ---: | ---: | "
           "---: |\n");
    printf("| A: UHD 4:2:2 decode to GPU memory (no display) | %d | %.3f | %.1f | - |\n", frames,
           ta, fa);
    printf("| B: UHD 4:2:2 decode to presented frame | %d | %.3f | %.1f | %llu |\n", frames, tb, fb,
           (unsigned long long)shown_b);
    printf("| C: 16-tile multiviewer, HD 4:2:2 streams (all tiles) | %d | %.3f | %.1f | %llu |\n",
           16 * hd_frames, tc, fc, (unsigned long long)shown_c);
    printf("\ndisplay stage added time per UHD frame: %.3f ms (1/B - 1/A); B / A = %.2f\n",
           1e3 * (1.0 / fb - 1.0 / fa), fb / fa);
    printf(
        "display thread in B: %.1f us per picture in dsp_submit (into the textures), %.1f us per "
        "dsp_present (convert, draw, swap)\n",
        submit_us, present_us);
    pl_destroy(p);
    free(uhd);
    free(hd);
    return 0;
}
