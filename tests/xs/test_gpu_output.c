/* The GPU decoder writing its picture into the caller's device planes
 * (xs_gpu_set_output): every conformance vector (and the UHD ones where
 * present) decoded into the decoder's own planes and into caller planes
 *   - tight:  one buffer, rows width * 2 bytes apart, planes one after the
 *             other (the pipeline's layout);
 *   - padded: rows 8-byte aligned with room after each (the 8-byte stores);
 *   - odd:    planes and pitches only 2-byte aligned (the sample stores);
 * and through the incremental path (begin / more / end, the output set
 * between begin and end) must give the C decoder's samples exactly, leave
 * every byte outside the rows alone, and be what xs_gpu_decoder_picture
 * reports and xs_gpu_download reads. Bad arguments are refused with
 * XSF_ERR_ARG and write nothing. Exits 77 (skipped) where no GPU is present.
 * Usage: test_gpu_output VECTOR_DIR [UHD_DIR...] */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "vector_files.h"
#include "xs.h"

#define FILL 0xee /* what the caller's buffer holds outside the picture's rows */

enum layout { TIGHT, PADDED, ODD, LAYOUTS };
static const char *const layout_name[LAYOUTS] = {"tight", "padded", "odd"};

/* Caller planes in one device buffer, with FILL everywhere to start. */
typedef struct out_planes {
    uint8_t *dev; /* the allocation */
    size_t bytes;
    uint16_t *plane[XS_MAX_COMPONENTS];
    size_t pitch_bytes[XS_MAX_COMPONENTS];
    size_t offset[XS_MAX_COMPONENTS]; /* of each plane in the buffer */
} out_planes;

/* FILL everywhere, finished before the decoder's stream runs on. */
static int out_fill(out_planes *o)
{
    return cudaMemset(o->dev, FILL, o->bytes) == cudaSuccess &&
           cudaDeviceSynchronize() == cudaSuccess;
}

static int out_alloc(out_planes *o, const xsf_picture *img, enum layout lay)
{
    memset(o, 0, sizeof *o);
    size_t at = lay == ODD ? 2 : 0;
    for (int c = 0; c < img->fmt.nc; c++) {
        const size_t row = (size_t)img->fmt.width[c] * sizeof(uint16_t);
        o->pitch_bytes[c] = lay == TIGHT    ? row
                            : lay == PADDED ? (row + 7) / 8 * 8 + 24
                                            : row + 2 + 4 * (size_t)c;
        if (lay == PADDED)
            at = (at + 7) / 8 * 8;
        o->offset[c] = at;
        at += o->pitch_bytes[c] * (size_t)img->fmt.height[c];
        if (lay != TIGHT)
            at += 2 * sizeof(uint16_t); /* a gap after the plane */
    }
    o->bytes = at + 64; /* and a guard at the end */
    if (cudaMalloc((void **)&o->dev, o->bytes) != cudaSuccess || !out_fill(o))
        return 0;
    for (int c = 0; c < img->fmt.nc; c++)
        o->plane[c] = (uint16_t *)(o->dev + o->offset[c]);
    return 1;
}

static void out_free(out_planes *o)
{
    cudaFree(o->dev);
    memset(o, 0, sizeof *o);
}

/* The whole caller buffer back: the rows hold the C decoder's samples and
 * every other byte is still FILL. */
static int out_check(const out_planes *o, const xsf_picture *img, const char *name,
                     const char *what)
{
    uint8_t *h = malloc(o->bytes);
    uint8_t *want = malloc(o->bytes);
    int ok = h && want && cudaMemcpy(h, o->dev, o->bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
    if (ok) {
        memset(want, FILL, o->bytes);
        for (int c = 0; c < img->fmt.nc; c++)
            for (int y = 0; y < img->fmt.height[c]; y++)
                memcpy(want + o->offset[c] + (size_t)y * o->pitch_bytes[c],
                       xsf_picture_row16(img, c, y), (size_t)img->fmt.width[c] * sizeof(uint16_t));
        for (size_t i = 0; i < o->bytes; i++) {
            if (h[i] != want[i]) {
                fprintf(stderr, "%s (%s): byte %zu of the caller's buffer is %02x, want %02x\n",
                        name, what, i, h[i], want[i]);
                ok = 0;
                break;
            }
        }
    }
    free(h);
    free(want);
    return ok;
}

/* The buffer holds FILL alone (nothing was written). */
static int out_untouched(const out_planes *o)
{
    uint8_t *h = malloc(o->bytes);
    int ok = h && cudaMemcpy(h, o->dev, o->bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
    for (size_t i = 0; ok && i < o->bytes; i++)
        ok = h[i] == FILL;
    free(h);
    return ok;
}

/* xs_gpu_download of the last picture equals the C decoder's. */
static int download_same(xs_gpu_decoder *g, const xsf_picture *img)
{
    uint16_t *planes[XS_MAX_COMPONENTS] = {0};
    int ok = 1;
    for (int c = 0; c < img->fmt.nc; c++)
        ok &= (planes[c] = malloc((size_t)img->fmt.width[c] * img->fmt.height[c] *
                                  sizeof(uint16_t))) != NULL;
    ok = ok && xs_gpu_download(g, planes, 1) == XSF_OK;
    for (int c = 0; ok && c < img->fmt.nc; c++)
        for (int y = 0; ok && y < img->fmt.height[c]; y++)
            ok = !memcmp(planes[c] + (size_t)y * img->fmt.width[c], xsf_picture_row16(img, c, y),
                         (size_t)img->fmt.width[c] * sizeof(uint16_t));
    for (int c = 0; c < XS_MAX_COMPONENTS; c++)
        free(planes[c]);
    return ok;
}

/* xs_gpu_decoder_picture names the caller's planes (o) or, with o NULL,
 * planes outside `not_in` (the decoder's own), with the picture's shape. */
static int image_is(xs_gpu_decoder *g, const xsf_picture *img, const out_planes *o,
                    const out_planes *not_in)
{
    const xsf_picture *gi = xs_gpu_decoder_picture(g);
    if (!gi || gi->fmt.nc != img->fmt.nc)
        return 0;
    for (int c = 0; c < img->fmt.nc; c++) {
        if (gi->fmt.width[c] != img->fmt.width[c] || gi->fmt.height[c] != img->fmt.height[c] ||
            gi->fmt.depth[c] != img->fmt.depth[c])
            return 0;
        if (o && ((uint16_t *)gi->data[c] != o->plane[c] || gi->stride[c] != o->pitch_bytes[c]))
            return 0;
        if (!o &&
            (!gi->data[c] || gi->stride[c] < (size_t)gi->fmt.width[c] * 2 ||
             (not_in && gi->data[c] >= not_in->dev && gi->data[c] < not_in->dev + not_in->bytes)))
            return 0;
    }
    return 1;
}

/* The output set to `o` (NULL: the own planes), then begin with the header
 * and first slice marker, more at every slice boundary, then end. A new
 * setting during the frame is refused and changes nothing. */
static xsf_status decode_incremental(xs_gpu_decoder *g, uint8_t *work, const uint8_t *cs,
                                     size_t len, const xs_layout *lay, const out_planes *o,
                                     size_t *consumed)
{
    memset(work, 0xa5, len); /* not yet received */
    size_t have = lay->slice_offset[0] + 2;
    memcpy(work, cs, have);
    xsf_status st = xs_gpu_set_output(g, o ? o->plane : NULL, o ? o->pitch_bytes : NULL);
    if (st == XSF_OK)
        st = xs_gpu_decode_begin(g, work, have);
    if (st != XSF_OK)
        return st;
    CHECK(xs_gpu_set_output(g, NULL, NULL) == XSF_ERR_ARG, "a setting during the frame is refused");
    for (size_t s = 1; st == XSF_OK && s < lay->nslices; s++) {
        memcpy(work + have, cs + have, lay->slice_offset[s] - have);
        have = lay->slice_offset[s];
        st = xs_gpu_decode_more(g, work, have);
    }
    if (st != XSF_OK) {
        xs_gpu_decode_abort(g);
        return st;
    }
    memcpy(work + have, cs + have, len - have);
    return xs_gpu_decode_end(g, work, len, consumed);
}

static void check_codestream(xs_decoder *c, xs_gpu_decoder *g, const uint8_t *cs, size_t len,
                             const char *name)
{
    const xsf_picture *img = NULL;
    size_t used_c = 0, used = 0;
    if (xs_decode(c, cs, len, &used_c, &img) != XSF_OK) {
        CHECK(0, "%s: C decoder: %s", name, xs_decoder_error(c));
        return;
    }
    xs_layout lay;
    xsf_error err;
    xsf_error_clear(&err);
    if (xs_scan_layout(cs, used_c, &lay, &err) != XSF_OK) {
        CHECK(0, "%s: layout: %s", name, err.msg);
        return;
    }
    uint8_t *work = NULL;
    cudaMallocHost((void **)&work, used_c);
    out_planes o[LAYOUTS];
    memset(o, 0, sizeof o);
    int have_all = work != NULL;
    for (int l = 0; l < LAYOUTS; l++)
        have_all &= out_alloc(&o[l], img, (enum layout)l);
    CHECK(have_all, "%s: out of memory", name);
    if (!have_all)
        goto out;

    size_t samples = 0;
    for (int k = 0; k < img->fmt.nc; k++)
        samples += (size_t)img->fmt.width[k] * img->fmt.height[k];
    /* The subset (vf_subset): the own planes and the tight layout, whole and incremental. */
    const int subset = vf_subset(samples);

    /* The decoder's own planes. */
    CHECK(xs_gpu_set_output(g, NULL, NULL) == XSF_OK, "%s: back to the own planes", name);
    CHECK(xs_gpu_decode(g, cs, used_c, &used) == XSF_OK && xs_gpu_sync(g) == XSF_OK &&
              used == used_c,
          "%s (own planes): %s", name, xs_gpu_decoder_error(g));
    CHECK(image_is(g, img, NULL, NULL) && download_same(g, img),
          "%s (own planes): differs from the C decoder", name);

    /* Each caller layout, whole frame. */
    for (int l = 0; l < LAYOUTS; l++) {
        if (subset && l != TIGHT)
            continue;
        CHECK(xs_gpu_set_output(g, o[l].plane, o[l].pitch_bytes) == XSF_OK, "%s (%s): set: %s",
              name, layout_name[l], xs_gpu_decoder_error(g));
        CHECK(xs_gpu_decode(g, cs, used_c, &used) == XSF_OK && xs_gpu_sync(g) == XSF_OK &&
                  used == used_c,
              "%s (%s): %s", name, layout_name[l], xs_gpu_decoder_error(g));
        CHECK(out_check(&o[l], img, name, layout_name[l]),
              "%s (%s): caller's planes differ from the C decoder", name, layout_name[l]);
        CHECK(image_is(g, img, &o[l], NULL),
              "%s (%s): xs_gpu_decoder_picture does not name the caller's planes", name,
              layout_name[l]);
        CHECK(download_same(g, img), "%s (%s): download from the caller's planes differs", name,
              layout_name[l]);
        CHECK(out_fill(&o[l]), "refill");
    }

    /* Incremental, into each caller layout, and into the own planes again
     * afterwards. */
    for (int l = 0; l < LAYOUTS; l++) {
        if (subset && l != TIGHT)
            continue;
        const xsf_status st = decode_incremental(g, work, cs, used_c, &lay, &o[l], &used);
        CHECK(st == XSF_OK && xs_gpu_sync(g) == XSF_OK && used == used_c,
              "%s (%s, incremental): %s", name, layout_name[l], xs_gpu_decoder_error(g));
        CHECK(out_check(&o[l], img, name, layout_name[l]),
              "%s (%s, incremental): caller's planes differ from the C decoder", name,
              layout_name[l]);
        CHECK(image_is(g, img, &o[l], NULL) && download_same(g, img),
              "%s (%s, incremental): image or download", name, layout_name[l]);
        CHECK(out_fill(&o[l]), "refill");
    }
    if (!subset) {
        const xsf_status st = decode_incremental(g, work, cs, used_c, &lay, NULL, &used);
        CHECK(st == XSF_OK && xs_gpu_sync(g) == XSF_OK && used == used_c,
              "%s (own planes, incremental): %s", name, xs_gpu_decoder_error(g));
        CHECK(image_is(g, img, NULL, &o[TIGHT]) && download_same(g, img),
              "%s (own planes, incremental): differs from the C decoder", name);
        for (int l = 0; l < LAYOUTS; l++)
            CHECK(out_untouched(&o[l]), "%s: the %s buffer was written after the output went back",
                  name, layout_name[l]);
    }
    /* The setting holds for later frames until changed. */
    if (subset)
        goto out;
    CHECK(xs_gpu_set_output(g, o[PADDED].plane, o[PADDED].pitch_bytes) == XSF_OK, "%s: set", name);
    for (int k = 0; k < 2; k++)
        CHECK(xs_gpu_decode(g, cs, used_c, &used) == XSF_OK && xs_gpu_sync(g) == XSF_OK,
              "%s (frame %d): %s", name, k, xs_gpu_decoder_error(g));
    CHECK(out_check(&o[PADDED], img, name, "padded, twice") && image_is(g, img, &o[PADDED], NULL),
          "%s: the second frame with the same setting", name);
out:
    /* Also where the subset skipped the frames above: the decoder must not
     * keep the caller's planes past their buffers (the next file's first
     * frame would be written into freed memory). */
    CHECK(xs_gpu_set_output(g, NULL, NULL) == XSF_OK, "%s: back to the own planes", name);
    for (int l = 0; l < LAYOUTS; l++)
        out_free(&o[l]);
    if (work)
        cudaFreeHost(work);
    xs_layout_free(&lay);
}

/* Each codestream of the directory's files on its own. */
static int run_dir(xs_decoder *c, xs_gpu_decoder *g, const char *dir)
{
    return vf_check_dir(c, g, dir, check_codestream, "decoded into caller planes");
}

/* Bad settings: refused with XSF_ERR_ARG and a message, and nothing written. */
static void check_bad_arguments(xs_decoder *c, xs_gpu_decoder *g, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/fmt_yuv444_10b.jxs", dir);
    size_t len, used;
    uint8_t *cs = vf_read(path, &len);
    const xsf_picture *img = NULL;
    CHECK(cs && xs_decode(c, cs, len, &used, &img) == XSF_OK && img->fmt.nc == 3, "%s: C decoder",
          path);
    if (!cs || !img) {
        if (cs)
            free(cs);
        return;
    }
    xs_layout lay;
    xsf_error err;
    xsf_error_clear(&err);
    out_planes o;
    uint8_t *work = NULL;
    cudaMallocHost((void **)&work, len);
    if (xs_scan_layout(cs, len, &lay, &err) != XSF_OK || !out_alloc(&o, img, PADDED) || !work) {
        CHECK(0, "setting up the bad-argument checks");
        free(cs);
        return;
    }
    uint16_t *planes[XS_MAX_COMPONENTS];
    size_t pitch[XS_MAX_COMPONENTS];
    memcpy(planes, o.plane, sizeof planes);
    memcpy(pitch, o.pitch_bytes, sizeof pitch);

    CHECK(xs_gpu_set_output(NULL, planes, pitch) == XSF_ERR_ARG, "no decoder");
    CHECK(xs_gpu_set_output(g, planes, NULL) == XSF_ERR_ARG && xs_gpu_decoder_error(g)[0],
          "planes without pitches");
    planes[1] = (uint16_t *)((uint8_t *)o.plane[1] + 1);
    CHECK(xs_gpu_set_output(g, planes, pitch) == XSF_ERR_ARG && xs_gpu_decoder_error(g)[0],
          "odd plane address");
    planes[1] = o.plane[1];
    pitch[2] += 1;
    CHECK(xs_gpu_set_output(g, planes, pitch) == XSF_ERR_ARG && xs_gpu_decoder_error(g)[0],
          "odd pitch");
    pitch[2] -= 1;
    /* The refused settings changed nothing: the own planes are still used. */
    CHECK(xs_gpu_decode(g, cs, len, &used) == XSF_OK && xs_gpu_sync(g) == XSF_OK &&
              image_is(g, img, NULL, &o) && out_untouched(&o),
          "a refused setting was taken: %s", xs_gpu_decoder_error(g));

    /* A component without a plane, a pitch below the row: the decode refuses. */
    planes[2] = NULL;
    CHECK(xs_gpu_set_output(g, planes, pitch) == XSF_OK,
          "a NULL plane is only checked against the picture");
    CHECK(xs_gpu_decode(g, cs, len, &used) == XSF_ERR_ARG && xs_gpu_decoder_error(g)[0],
          "decode with no plane for component 2");
    planes[2] = o.plane[2];
    pitch[0] = (size_t)img->fmt.width[0] * 2 - 2;
    CHECK(xs_gpu_set_output(g, planes, pitch) == XSF_OK, "set");
    CHECK(xs_gpu_decode(g, cs, len, &used) == XSF_ERR_ARG && xs_gpu_decoder_error(g)[0],
          "decode with a pitch below the row");
    CHECK(xs_gpu_decode_begin(g, cs, len) == XSF_ERR_ARG, "begin with a pitch below the row");
    CHECK(xs_gpu_decode_more(g, cs, len) == XSF_ERR_ARG, "a refused begin left a frame under way");
    /* A setting during an incremental frame is refused: the frame goes on
     * into the planes it began with. */
    CHECK(xs_gpu_set_output(g, NULL, NULL) == XSF_OK, "back to the own planes");
    memcpy(work, cs, len);
    CHECK(xs_gpu_decode_begin(g, work, lay.slice_offset[0] + 2) == XSF_OK, "begin: %s",
          xs_gpu_decoder_error(g));
    CHECK(xs_gpu_set_output(g, planes, pitch) == XSF_ERR_ARG && xs_gpu_decoder_error(g)[0],
          "set during the frame refused");
    CHECK(xs_gpu_decode_end(g, work, len, &used) == XSF_OK && xs_gpu_sync(g) == XSF_OK,
          "end after a refused setting: %s", xs_gpu_decoder_error(g));
    CHECK(xs_gpu_decode_more(g, work, len) == XSF_ERR_ARG, "no frame under way after end");
    CHECK(out_untouched(&o), "a refused setting's buffer was written");
    /* And the decoder goes on. */
    pitch[0] = o.pitch_bytes[0];
    CHECK(xs_gpu_set_output(g, planes, pitch) == XSF_OK, "set");
    CHECK(xs_gpu_decode(g, cs, len, &used) == XSF_OK && xs_gpu_sync(g) == XSF_OK &&
              out_check(&o, img, "bad", "after"),
          "a good decode after the refusals: %s", xs_gpu_decoder_error(g));
    xs_gpu_set_output(g, NULL, NULL);
    out_free(&o);
    xs_layout_free(&lay);
    cudaFreeHost(work);
    free(cs);
}

int main(int argc, char **argv)
{
    if (xs_gpu_available() != XSF_OK) {
        printf("no GPU: GPU output-plane tests skipped\n");
        return XSF_TEST_SKIP;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: %s VECTOR_DIR [UHD_DIR...]\n", argv[0]);
        return 2;
    }
    cudaStream_t stream;
    /* Non-blocking, as the pipeline's: nothing orders it after the legacy stream. */
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess, "stream");
    xs_gpu_decoder *g = NULL;
    xs_decoder *c = NULL;
    CHECK(xs_gpu_decoder_create(&g, 0, stream, NULL) == XSF_OK, "cannot create the GPU decoder");
    CHECK(xs_decoder_create(&c, NULL) == XSF_OK, "cannot create the C decoder");
    if (!g || !c)
        return xsf_test_finish();
    CHECK(xs_gpu_decoder_picture(g) == NULL, "a picture before the first decode");
    CHECK(run_dir(c, g, argv[1]) > 0, "no vectors in %s", argv[1]);
    for (int i = 2; i < argc; i++)
        run_dir(c, g, argv[i]);
    check_bad_arguments(c, g, argv[1]);
    xs_gpu_decoder_destroy(g);
    xs_decoder_destroy(c);
    cudaStreamDestroy(stream);
    return xsf_test_finish();
}
