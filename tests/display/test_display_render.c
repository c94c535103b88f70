/* The display's headless path against the C conversion: every 8-bit and
 * 10-bit vector of vectors/xs, decoded by the C reference decoder (or, with
 * --gpu, by the GPU decoder with the planes handed over in device memory
 * through CUDA-GL interop), rendered offscreen at the picture's size and
 * read back; every pixel within 1 code value of dsp_convert_rgb8. The
 * colour description cycles over every matrix and range.
 *
 * Also: pacing through the display (late pictures dropped and counted), the
 * multiviewer (pictures land in their tiles' rectangles, letterbox black),
 * and the statistics overlay (it changes pixels only where the text is).
 *
 *   test_display_render VECTOR_DIR [--gpu]
 * Skips (77) where no EGL display can be opened, or with --gpu where no GPU
 * or no interop is available. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "display.h"
#include "test.h"
#include "vector_manifest.h"
#include "xs.h"

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n == cap) {
            uint8_t *b = realloc(buf, cap = cap ? 2 * cap : 1 << 16);
            if (!b) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = b;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    *len = n;
    return buf;
}

/* The colours in the words of --colour (common/include/xsf_colour.h). */
static const char *const colours[] = {"709,narrow", "601,narrow", "2020,narrow",
                                      "709,full",   "601,full",   "2020,full"};

static xsf_colour colour_of(const char *words)
{
    xsf_colour c;
    xsf_colour_default(&c);
    xsf_colour_parse(words, &c, NULL);
    return c;
}

static int use_gpu;
static dsp_convert convert_mode = DSP_CONVERT_AUTO;
static int scaled_compared, scaled_worst;
static xs_decoder *cdec;
static xs_gpu_decoder *gdec;

/* Decodes the codestream at buf with the C decoder (host picture `host`)
 * and, with --gpu, the GPU decoder too (device picture `dev`). */
static xsf_status decode(const uint8_t *buf, size_t len, size_t *consumed, xsf_picture *host,
                         xsf_picture *dev)
{
    const xsf_picture *img = NULL;
    xsf_status st = xs_decode(cdec, buf, len, consumed, &img);
    if (st != XSF_OK)
        return st;
    *host = *img;
    host->fmt.nc = img->fmt.nc > 3 ? 3 : img->fmt.nc;
    for (int c = 0; c < host->fmt.nc; c++)
        if (img->fmt.depth[c] != img->fmt.depth[0])
            return XSF_ERR_UNSUPPORTED;
    if (!use_gpu)
        return XSF_OK;
    size_t gconsumed = 0;
    st = xs_gpu_decode(gdec, buf, len, &gconsumed);
    if (st == XSF_OK)
        st = xs_gpu_sync(gdec);
    const xsf_picture *gi = xs_gpu_decoder_picture(gdec);
    if (st != XSF_OK || !gi || gconsumed != *consumed)
        return st != XSF_OK ? st : XSF_ERR_INVALID;
    *dev = *gi; /* submitted without a stream: the decoder's is the default one */
    dev->fmt.nc = host->fmt.nc;
    return XSF_OK;
}

/* Renders `pic` alone in a headless display of its size and compares with
 * the C conversion of `ref`. Returns the largest difference. */
static int render_compare(const char *name, const xsf_picture *pic, const xsf_picture *ref)
{
    dsp_options opt;
    dsp_options_init(&opt);
    opt.headless = 1;
    opt.vsync = 0;
    opt.width = ref->fmt.width[0];
    opt.height = ref->fmt.height[0];
    opt.convert = convert_mode;
    dsp_display *d = NULL;
    xsf_error err = {0};
    if (dsp_create(&d, &opt, &err) != XSF_OK) {
        CHECK(0, "%s: dsp_create: %s", name, err.msg);
        return 255;
    }
    const size_t n = (size_t)opt.width * opt.height * 3;
    uint8_t *want = malloc(n), *got = malloc(n);
    int maxdiff = 255;
    if (want && got && dsp_convert_rgb8(ref, want, n, &err) == XSF_OK &&
        dsp_submit(d, 0, pic, NULL, dsp_now_ns()) == XSF_OK && dsp_present(d) == XSF_OK &&
        dsp_read_rgb(d, got, n) == XSF_OK) {
        maxdiff = 0;
        size_t worst = 0;
        for (size_t i = 0; i < n; i++) {
            const int diff = abs(want[i] - got[i]);
            if (diff > maxdiff)
                maxdiff = diff, worst = i;
        }
        CHECK(maxdiff <= 1, "%s: pixel (%zu, %zu) channel %zu: %d, the C conversion %d", name,
              (worst / 3) % (size_t)opt.width, worst / 3 / (size_t)opt.width, worst % 3, got[worst],
              want[worst]);
    } else {
        CHECK(0, "%s: %s%s", name, err.msg, dsp_error(d));
    }
    free(want);
    free(got);
    dsp_destroy(d);
    return maxdiff;
}

/* `pic` drawn into a headless display of w x h (scaled into its tile) by
 * `mode`, read back; NULL on failure. */
static uint8_t *render_scaled(const xsf_picture *pic, int w, int h, dsp_convert mode, int deep,
                              const char *name)
{
    dsp_options opt;
    dsp_options_init(&opt);
    opt.headless = 1;
    opt.vsync = 0;
    opt.width = w;
    opt.height = h;
    opt.convert = mode;
    opt.deep_colour = deep;
    dsp_display *d = NULL;
    xsf_error err = {0};
    uint8_t *rgb = malloc((size_t)w * (size_t)h * 3);
    if (!rgb || dsp_create(&d, &opt, &err) != XSF_OK ||
        dsp_submit(d, 0, pic, NULL, dsp_now_ns()) != XSF_OK || dsp_present(d) != XSF_OK ||
        dsp_read_rgb(d, rgb, (size_t)w * (size_t)h * 3) != XSF_OK) {
        CHECK(0, "%s: scaled render (%s): %s%s", name, mode == DSP_CONVERT_CUDA ? "cuda" : "shader",
              err.msg, d ? dsp_error(d) : "");
        free(rgb);
        rgb = NULL;
    }
    dsp_destroy(d);
    return rgb;
}

/* The CUDA compositor against the shader path where the picture is scaled
 * (bilinear, letterboxed): at most 1 code value apart at 8 bits (both
 * compute in float32 and round the same intermediate). `deep`: a 10-bit
 * target, which the compositor reaches through its RGBA16 texture and a
 * copy (as for a window), not by writing the target. */
static void compare_scaled(const xsf_picture *pic, const char *name, int deep)
{
    const int w = pic->fmt.width[0] * 2 / 3 + 7, h = pic->fmt.height[0] * 3 / 4 + 3;
    uint8_t *a = render_scaled(pic, w, h, DSP_CONVERT_SHADER, deep, name);
    uint8_t *b = render_scaled(pic, w, h, DSP_CONVERT_CUDA, deep, name);
    if (a && b) {
        int maxdiff = 0;
        size_t worst = 0;
        for (size_t i = 0; i < (size_t)w * (size_t)h * 3; i++) {
            const int diff = abs(a[i] - b[i]);
            if (diff > maxdiff)
                maxdiff = diff, worst = i;
        }
        CHECK(maxdiff <= 1,
              "%s scaled to %dx%d%s: pixel (%zu, %zu) channel %zu: cuda %d, shader %d", name, w, h,
              deep ? " (10-bit target)" : "", (worst / 3) % (size_t)w, worst / 3 / (size_t)w,
              worst % 3, b[worst], a[worst]);
        scaled_worst = maxdiff > scaled_worst ? maxdiff : scaled_worst;
        scaled_compared++;
    }
    free(a);
    free(b);
}

/* Every vector of dir's MANIFEST.tsv, in its order (a missing or empty one fails). */
static void test_vectors(const char *dir)
{
    static vm_list list;
    CHECK(vm_read(dir, &list) > 0, "no MANIFEST.tsv in %s", dir);
    int rendered = 0, pictures = 0, worst = 0;
    for (int i = 0; i < list.n; i++) {
        const char *const name = list.name[i];
        char path[1024];
        if (!vm_check_file(dir, name, path, sizeof path))
            continue;
        size_t len = 0;
        uint8_t *data = read_all(path, &len);
        CHECK(data != NULL, "cannot read %s", path);
        int frame = 0, used = 0;
        for (size_t off = 0; data && off < len; frame++) {
            xsf_picture host, dev;
            size_t consumed = 0;
            const xsf_status st = decode(data + off, len - off, &consumed, &host, &dev);
            CHECK(st == XSF_OK && consumed > 0, "%s frame %d: decode: %s", name, frame,
                  xsf_status_name(st));
            if (st != XSF_OK || !consumed)
                break;
            off += consumed;
            if (host.fmt.depth[0] != 8 && host.fmt.depth[0] != 10)
                break;
            const int rgb = xs_decoder_header(cdec)->nc >= 3 && strstr(name, "rgb");
            host.colour = colour_of(rgb ? "gbr,full" : colours[rendered % 6]);
            dev.colour = host.colour;
            char label[300];
            snprintf(label, sizeof label, "%s frame %d (%dx%d %s %d-bit, colour %d)", name, frame,
                     host.fmt.width[0], host.fmt.height[0],
                     dsp_chroma_name(dsp_picture_chroma(&host, NULL)), host.fmt.depth[0],
                     rgb ? -1 : rendered % 6);
            const int diff = render_compare(label, use_gpu ? &dev : &host, &host);
            worst = diff > worst ? diff : worst;
            if (use_gpu && convert_mode == DSP_CONVERT_CUDA && pictures % 4 == 0)
                compare_scaled(&dev, label, pictures % 8 == 0);
            pictures++;
            used = 1;
        }
        rendered += used;
        free(data);
    }
    printf("%d vectors (%d pictures) of 8 and 10 bits rendered through the %s path (%s "
           "conversion); largest "
           "difference %d\n",
           rendered, pictures, use_gpu ? "interop" : "host-upload",
           convert_mode == DSP_CONVERT_CUDA     ? "CUDA"
           : convert_mode == DSP_CONVERT_SHADER ? "shader"
                                                : "default",
           worst);
    if (scaled_compared)
        printf(
            "%d pictures scaled by the CUDA compositor and by the shaders: largest difference %d\n",
            scaled_compared, scaled_worst);
    CHECK(rendered >= 50, "only %d vectors of 8 or 10 bits in %s", rendered, dir);
}

/* Pictures no vector has: gray, 12 to 16 bits, odd sizes, RGB in narrow
 * range; random samples (of every value, out-of-range ones included). */
static void test_synthetic(void)
{
    static const struct {
        int nc, w, h, sx, sy, depth;
        const char *colour;
    } cases[] = {
        {1, 37, 21, 1, 1, 8, "709,narrow"},   {1, 40, 20, 1, 1, 16, "709,full"},
        {3, 33, 17, 2, 2, 12, "2020,narrow"}, {3, 35, 18, 2, 1, 16, "601,full"},
        {3, 31, 9, 1, 1, 14, "rgb,narrow"},   {3, 64, 48, 1, 1, 9, "gbr,full"},
    };
    static uint16_t buf[3][(64 + 3) * 48]; /* the largest case, rows padded */
    uint32_t rng = 12345;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        xsf_picture p;
        xsf_picture_init(&p);
        p.fmt.nc = cases[k].nc;
        p.colour = colour_of(cases[k].colour);
        for (int c = 0; c < p.fmt.nc; c++) {
            p.fmt.width[c] = c ? (cases[k].w + cases[k].sx - 1) / cases[k].sx : cases[k].w;
            p.fmt.height[c] = c ? (cases[k].h + cases[k].sy - 1) / cases[k].sy : cases[k].h;
            p.fmt.depth[c] = cases[k].depth;
            p.stride[c] = 2 * (size_t)p.fmt.width[c] + 6; /* rows with padding */
            CHECK(p.stride[c] / 2 * (size_t)p.fmt.height[c] <= sizeof buf[c] / 2, "case %d fits",
                  (int)k);
            for (size_t i = 0; i < sizeof buf[c] / 2; i++) {
                rng = rng * 1664525u + 1013904223u;
                buf[c][i] = (uint16_t)((rng >> 8) & ((1u << cases[k].depth) - 1));
            }
            p.data[c] = (uint8_t *)buf[c];
        }
        char name[64];
        snprintf(name, sizeof name, "synthetic %d: %dx%d nc %d, %d-bit", (int)k, cases[k].w,
                 cases[k].h, p.fmt.nc, cases[k].depth);
        render_compare(name, &p, &p);
    }
}

/* A 64x36 4:4:4 8-bit picture of one colour. */
static uint16_t flat_planes[3][64 * 36];
static xsf_picture flat(uint16_t y, uint16_t cb, uint16_t cr)
{
    xsf_picture p;
    xsf_picture_init(&p);
    p.fmt.nc = 3;
    const uint16_t v[3] = {y, cb, cr};
    for (int c = 0; c < 3; c++) {
        p.fmt.width[c] = 64;
        p.fmt.height[c] = 36;
        p.fmt.depth[c] = 8;
        p.stride[c] = 128;
        for (int i = 0; i < 64 * 36; i++)
            flat_planes[c][i] = v[c];
        p.data[c] = (uint8_t *)flat_planes[c];
    }
    return p;
}

static const uint8_t *px(const uint8_t *rgb, int w, int x, int y)
{
    return rgb + 3 * ((size_t)y * w + x);
}

static void test_pacing_and_tiles(void)
{
    dsp_options opt;
    dsp_options_init(&opt);
    opt.headless = 1;
    opt.vsync = 1; /* paced by time */
    opt.tiles = 4;
    opt.width = 320;
    opt.height = 240; /* 2x2 cells of 160x120; 16:9 pictures letterboxed to 160x90 */
    const char *labels[4] = {"CAM 1", "CAM 2", "CAM 3", "CAM 4"};
    opt.labels = labels;
    dsp_display *d = NULL;
    xsf_error err = {0};
    CHECK(dsp_create(&d, &opt, &err) == XSF_OK, "4 tiles: %s", err.msg);
    if (!d)
        return;
    const int64_t now = dsp_now_ns(), S = 1000000000;
    /* Tile 0: three pictures already due: the last is shown, two dropped.
     * Tile 1: one due now, one due in a minute (waits).
     * Tile 2: white; tile 3: nothing. */
    /* flat() refills one buffer: the samples are copied by dsp_submit. */
    xsf_picture grey = flat(126, 128, 128);
    CHECK(dsp_submit(d, 0, &grey, NULL, now - 3 * S) == XSF_OK, "submit");
    CHECK(dsp_submit(d, 0, &grey, NULL, now - 2 * S) == XSF_OK, "submit");
    xsf_picture red = flat(63, 102, 240);
    CHECK(dsp_submit(d, 0, &red, NULL, now - 1 * S) == XSF_OK, "submit");
    CHECK(dsp_submit(d, 1, &red, NULL, now + 60 * S) == XSF_OK, "submit");
    xsf_picture white = flat(235, 128, 128);
    CHECK(dsp_submit(d, 1, &white, NULL, now) == XSF_OK, "submit");
    CHECK(dsp_submit(d, 2, &white, NULL, now) == XSF_OK, "submit");
    CHECK(dsp_present(d) == XSF_OK, "present: %s", dsp_error(d));
    dsp_tile_stats st[4];
    for (int t = 0; t < 4; t++)
        dsp_tile_stats_get(d, t, &st[t]);
    CHECK(st[0].submitted == 3 && st[0].presented == 1 && st[0].dropped_late == 2,
          "tile 0: %llu %llu %llu", (unsigned long long)st[0].submitted,
          (unsigned long long)st[0].presented, (unsigned long long)st[0].dropped_late);
    CHECK(st[1].presented == 1 && st[1].dropped_late == 0, "tile 1: the future picture waits");
    CHECK(st[3].presented == 0, "tile 3 empty");
    int w, h;
    dsp_size(d, &w, &h);
    CHECK(w == 320 && h == 240, "size %dx%d", w, h);
    uint8_t *rgb = malloc((size_t)w * h * 3), *rgb2 = malloc((size_t)w * h * 3);
    if (rgb && rgb2 && dsp_read_rgb(d, rgb, (size_t)w * h * 3) == XSF_OK) {
        /* Centres of the picture rectangles (cells 160x120, pictures 160x90 at y+15). */
        const uint8_t *c0 = px(rgb, w, 80, 100), *c1 = px(rgb, w, 240, 100),
                      *c2 = px(rgb, w, 80, 180), *c3 = px(rgb, w, 240, 180);
        CHECK(c0[0] > 240 && c0[1] < 15 && c0[2] < 15, "tile 0 red: %d %d %d", c0[0], c0[1], c0[2]);
        CHECK(c1[0] > 250 && c1[1] > 250 && c1[2] > 250, "tile 1 white: %d %d %d", c1[0], c1[1],
              c1[2]);
        CHECK(c2[0] > 250 && c2[1] > 250 && c2[2] > 250, "tile 2 white: %d %d %d", c2[0], c2[1],
              c2[2]);
        CHECK(!c3[0] && !c3[1] && !c3[2], "tile 3 black: %d %d %d", c3[0], c3[1], c3[2]);
        /* Letterbox bars (first and last rows of cell 1 under the label) are black. */
        const uint8_t *bar = px(rgb, w, 300, 5), *bar2 = px(rgb, w, 300, 118);
        CHECK(!bar[0] && !bar[1] && !bar[2] && !bar2[0], "letterbox black");
        /* The label: ink in the top-left corner of cell 1, none in cell 3's
         * picture area away from its label. */
        int ink = 0;
        for (int y = 4; y < 20; y++)
            for (int x = 164; x < 210; x++)
                ink += px(rgb, w, x, y)[1] > 200;
        CHECK(ink > 10, "label of tile 1: %d ink pixels", ink);
        /* Overlay on: the statistics box grows below the label; pixels far
         * from the text stay the same. */
        CHECK(dsp_set_stats_text(d, 0, "25.00 FPS\n110.5 MBIT/S\nLOSS 0") == XSF_OK, "stats text");
        dsp_set_overlay(d, 1);
        CHECK(dsp_present(d) == XSF_OK, "present with overlay");
        CHECK(dsp_read_rgb(d, rgb2, (size_t)w * h * 3) == XSF_OK, "read back");
        int changed_text = 0, changed_far = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const int diff = memcmp(px(rgb, w, x, y), px(rgb2, w, x, y), 3) != 0;
                if ((x % 160) < 100 && (y % 120) < 60)
                    changed_text += diff;
                else
                    changed_far += diff;
            }
        CHECK(changed_text > 100 && changed_far == 0,
              "overlay changed %d pixels near the text, %d elsewhere", changed_text, changed_far);
    } else {
        CHECK(0, "read back: %s", dsp_error(d));
    }
    free(rgb);
    free(rgb2);
    /* Errors: a bad tile, a picture of bad shape. */
    CHECK(dsp_submit(d, 4, &grey, NULL, now) == XSF_ERR_ARG, "tile out of range");
    xsf_picture bad = grey;
    bad.fmt.width[1] = 17;
    CHECK(dsp_submit(d, 0, &bad, NULL, now) != XSF_OK && dsp_error(d)[0],
          "bad chroma size refused: %s", dsp_error(d));
    dsp_destroy(d);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_display_render VECTOR_DIR [--gpu [shader|cuda]]\n");
        return 2;
    }
    use_gpu = argc > 2 && !strcmp(argv[2], "--gpu");
    /* Without --gpu the host-upload path: the shaders (CI has no CUDA). */
    convert_mode = !use_gpu                               ? DSP_CONVERT_SHADER
                   : argc > 3 && !strcmp(argv[3], "cuda") ? DSP_CONVERT_CUDA
                                                          : DSP_CONVERT_SHADER;
    if (!dsp_have_gl()) {
        printf("skipped: this build has no display (libepoxy/EGL missing)\n");
        return XSF_TEST_SKIP;
    }
    if (use_gpu && (xs_gpu_available() != XSF_OK || !dsp_have_interop())) {
        printf("skipped: %s\n",
               !dsp_have_interop() ? "this build has no CUDA-GL interop" : "no usable GPU");
        return XSF_TEST_SKIP;
    }
    /* Can this machine render at all? */
    dsp_options opt;
    dsp_options_init(&opt);
    opt.headless = 1;
    opt.width = opt.height = 16;
    dsp_display *probe = NULL;
    xsf_error err = {0};
    if (dsp_create(&probe, &opt, &err) != XSF_OK) {
        printf("skipped: no headless OpenGL here: %s\n", err.msg);
        return XSF_TEST_SKIP;
    }
    dsp_destroy(probe);
    if (xs_decoder_create(&cdec, NULL) != XSF_OK ||
        (use_gpu && xs_gpu_decoder_create(&gdec, 0, NULL, NULL) != XSF_OK)) {
        CHECK(0, "cannot create the decoders");
        return xsf_test_finish();
    }
    test_vectors(argv[1]);
    if (!use_gpu) {
        test_synthetic();
        test_pacing_and_tiles();
    }
    xs_decoder_destroy(cdec);
    xs_gpu_decoder_destroy(gdec);
    return xsf_test_finish();
}
