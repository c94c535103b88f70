/* The GPU decoder writing its pictures in the output pixel formats
 * (xs_gpu_set_output_format; xsf_picture.h's containers): for every
 * codestream of the conformance vectors (and the UHD ones where present),
 * and of the project's encoder for what no vector has (4:0:0, 4 components,
 * RCT, NLT, 16 bits, odd sizes), and every pixel format:
 *   - where the format applies (xsf_format_convert), the picture in the
 *     decoder's own planes and in caller planes at odd addresses and
 *     pitches must be byte for byte xsf_picture_convert of the C decoder's
 *     picture (the reference), and nothing outside the rows' bytes of the
 *     caller's buffer may be written;
 *   - where it does not, the decode is refused with XSF_ERR_UNSUPPORTED;
 *   - v210, NV12 and P010 also through the incremental path (begin, more at
 *     every slice, end): every row xs_gpu_decode_rows reports final is the
 *     reference's once the work has run, and the rows grow to the whole
 *     picture;
 *   - an R'G'B' (RCT) stream told to be Y'CbCr (a colour given) converts
 *     through the Y'CbCr formats too.
 * Through the codec table (xsf_codec.h) too: cpu_decode and gpu_decode into
 * pictures of a converted format, gpu_decode into the decoder's own planes
 * of frame->format's and gpu_download_rows of them, equal to the reference;
 * a picture of another shape refused.
 * Exits 77 (skipped) where no GPU is present. On the host emulation of CUDA
 * (XSF_TEST_EMULATED) the vectors that vary only the entropy coding (not the
 * output stage's input: sampling, depth, size, colour transform) and the HD
 * ones go through one pixel format each, in turn.
 * Usage: test_gpu_pixfmt VECTOR_DIR [UHD_DIR...] */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "vector_files.h"
#include "xs.h"
#include "xsf_codec.h"
#include "xsf_colour.h"

#define FILL 0xee /* what the caller's buffer holds outside the picture's rows */

static cudaStream_t stream; /* the decoder's */

/* Which pixel formats a codestream goes through (bit F). */
static unsigned formats_for(const char *name, size_t samples)
{
    const unsigned all = ((1u << XSF_CONTAINERS) - 1) & ~1u;
#ifdef XSF_TEST_EMULATED
    static int rotation; /* the format a vector of the short list takes */
    const int output_input =
        !strncmp(name, "fmt_", 4) || !strncmp(name, "geom_", 5) || !strncmp(name, "enc ", 4);
    if (!output_input || vf_subset(samples))
        return 1u << (1 + rotation++ % (XSF_CONTAINERS - 1));
#else
    (void)name, (void)samples;
#endif
    return all;
}

/* The plane bytes of picture p (host) row by row against `got`, tightly
 * packed rows of the same format; says where the first difference is. */
static int same_planes(const xsf_picture *ref, uint8_t *const got[], const char *name,
                       const char *what)
{
    const xsf_format *f = &ref->fmt;
    for (int p = 0; p < xsf_format_planes(f); p++) {
        const size_t row = xsf_format_row_bytes(f, p);
        for (int y = 0; y < xsf_format_plane_rows(f, p); y++) {
            const uint8_t *a = ref->data[p] + (size_t)y * ref->stride[p], *b = got[p] + y * row;
            if (memcmp(a, b, row)) {
                size_t i = 0;
                while (a[i] == b[i])
                    i++;
                fprintf(stderr, "%s (%s, %s): plane %d row %d byte %zu is %02x, want %02x\n", name,
                        xsf_container_name(f->container), what, p, y, i, b[i], a[i]);
                return 0;
            }
        }
    }
    return 1;
}

/* Host planes, tightly packed, for a picture of format f. */
static int host_planes(const xsf_format *f, uint8_t *planes[XS_MAX_COMPONENTS])
{
    memset(planes, 0, XS_MAX_COMPONENTS * sizeof *planes);
    int ok = 1;
    for (int p = 0; p < xsf_format_planes(f); p++)
        ok &= (planes[p] = malloc(xsf_format_plane_bytes(f, p))) != NULL;
    return ok;
}

static void free_planes(uint8_t *planes[XS_MAX_COMPONENTS])
{
    for (int p = 0; p < XS_MAX_COMPONENTS; p++)
        free(planes[p]);
}

/* The caller's planes in one device buffer: each at an odd offset with an
 * odd pitch (the byte stores) and a gap after it, FILL everywhere. */
typedef struct caller {
    uint8_t *dev;
    size_t bytes;
    uint8_t *plane[XS_MAX_COMPONENTS];
    size_t pitch[XS_MAX_COMPONENTS], offset[XS_MAX_COMPONENTS];
} caller;

static int caller_alloc(caller *o, const xsf_format *f)
{
    memset(o, 0, sizeof *o);
    size_t at = 1;
    for (int p = 0; p < xsf_format_planes(f); p++) {
        o->pitch[p] = xsf_format_row_bytes(f, p) + 3 + 2 * (size_t)p;
        o->offset[p] = at;
        at += o->pitch[p] * (size_t)xsf_format_plane_rows(f, p) + 5;
    }
    o->bytes = at + 64;
    if (cudaMalloc((void **)&o->dev, o->bytes) != cudaSuccess ||
        cudaMemset(o->dev, FILL, o->bytes) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
        return 0;
    for (int p = 0; p < xsf_format_planes(f); p++)
        o->plane[p] = o->dev + o->offset[p];
    return 1;
}

/* The rows hold the reference's bytes, every other byte is FILL. */
static int caller_check(const caller *o, const xsf_picture *ref, const char *name)
{
    uint8_t *h = malloc(o->bytes), *want = malloc(o->bytes);
    int ok = h && want && cudaMemcpy(h, o->dev, o->bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
    if (ok) {
        memset(want, FILL, o->bytes);
        for (int p = 0; p < xsf_format_planes(&ref->fmt); p++)
            for (int y = 0; y < xsf_format_plane_rows(&ref->fmt, p); y++)
                memcpy(want + o->offset[p] + (size_t)y * o->pitch[p],
                       ref->data[p] + (size_t)y * ref->stride[p],
                       xsf_format_row_bytes(&ref->fmt, p));
        for (size_t i = 0; ok && i < o->bytes; i++)
            if (h[i] != want[i]) {
                fprintf(stderr,
                        "%s (%s, caller planes): byte %zu of the buffer is %02x, want %02x\n", name,
                        xsf_container_name(ref->fmt.container), i, h[i], want[i]);
                ok = 0;
            }
    }
    free(h);
    free(want);
    return ok;
}

/* The incremental path into the own planes, the header and first slice
 * marker, then a slice more each call: the rows reported final are the
 * reference's as they come. */
static void check_incremental(xs_gpu_decoder *g, const uint8_t *cs, size_t len,
                              const xsf_picture *ref, const xsf_colour *colour, const char *name)
{
    const xsf_format *f = &ref->fmt;
    xs_layout lay;
    xsf_error err;
    xsf_error_clear(&err);
    uint8_t *work = NULL, *got[XS_MAX_COMPONENTS];
    if (xs_scan_layout(cs, len, &lay, &err) != XSF_OK) {
        CHECK(0, "%s: layout: %s", name, err.msg);
        return;
    }
    if (cudaMallocHost((void **)&work, len) != cudaSuccess || !host_planes(f, got)) {
        CHECK(0, "%s: out of memory", name);
        goto out;
    }
    const char *fmt = xsf_container_name(f->container);
    const int planes = xsf_format_planes(f);
    memset(work, 0xa5, len);
    size_t have = lay.slice_offset[0] + 2, used = 0;
    memcpy(work, cs, have);
    int rows[XS_MAX_COMPONENTS] = {0}, prev[XS_MAX_COMPONENTS] = {0}, grew = 1;
    xsf_status st = xs_gpu_set_output_format(g, f->container, colour, NULL, NULL);
    if (st == XSF_OK)
        st = xs_gpu_decode_begin(g, work, have);
    for (size_t s = 1; st == XSF_OK && s < lay.nslices; s++) {
        memcpy(work + have, cs + have, lay.slice_offset[s] - have);
        have = lay.slice_offset[s];
        st = xs_gpu_decode_more(g, work, have);
        xs_gpu_decode_rows(g, rows);
        for (int p = 0; p < planes; p++)
            grew &= rows[p] >= prev[p] && rows[p] <= xsf_format_plane_rows(f, p);
        /* The 4:2:0 formats' luma rows come in pairs, a chroma row each. */
        if (f->container == XSF_NV12 || f->container == XSF_P010)
            grew &= rows[0] % 2 == 0 && rows[1] == rows[0] / 2;
        if (st == XSF_OK)
            st = xs_gpu_download_planes(g, got, prev, rows);
        if (st == XSF_OK && cudaStreamSynchronize(stream) != cudaSuccess)
            st = XSF_ERR_CUDA;
        memcpy(prev, rows, sizeof prev);
    }
    if (st == XSF_OK) {
        memcpy(work + have, cs + have, len - have);
        st = xs_gpu_decode_end(g, work, len, &used);
    }
    for (int p = 0; p < planes; p++)
        rows[p] = xsf_format_plane_rows(f, p);
    if (st == XSF_OK)
        st = xs_gpu_download_planes(g, got, prev, rows);
    if (st == XSF_OK)
        st = xs_gpu_sync(g);
    else
        xs_gpu_decode_abort(g);
    CHECK(st == XSF_OK && used == len, "%s (%s, incremental): %s", name, fmt,
          xs_gpu_decoder_error(g));
    CHECK(grew, "%s (%s, incremental): the rows reported do not grow as they should", name, fmt);
    if (st == XSF_OK) /* every row was downloaded once, when it was reported final */
        CHECK(same_planes(ref, got, name, "incremental"),
              "%s (%s, incremental): differs from the reference", name, fmt);
out:
    free_planes(got);
    if (work)
        cudaFreeHost(work);
    xs_layout_free(&lay);
}

/* One codestream in every pixel format of formats_for; `colour` (or NULL:
 * the codestream's) is the decoded picture's for the conversion. */
static void check_formats(xs_decoder *c, xs_gpu_decoder *g, const uint8_t *cs, size_t len,
                          const char *name, const xsf_colour *colour)
{
    const xsf_picture *img = NULL;
    size_t used_c = 0, used = 0;
    if (xs_decode(c, cs, len, &used_c, &img) != XSF_OK) {
        CHECK(0, "%s: C decoder: %s", name, xs_decoder_error(c));
        return;
    }
    xsf_picture src = *img;
    if (colour)
        src.colour = *colour;
    size_t samples = 0;
    for (int k = 0; k < img->fmt.nc; k++)
        samples += (size_t)img->fmt.width[k] * img->fmt.height[k];
    const unsigned formats = formats_for(name, samples);
    for (int F = 1; F < XSF_CONTAINERS; F++) {
        if (!(formats >> F & 1))
            continue;
        const char *fmt = xsf_container_name((xsf_container)F);
        xsf_error err;
        xsf_error_clear(&err);
        xsf_format cf;
        const xsf_status applies = xsf_format_convert(&src.fmt, &src.colour, F, &cf, &err);
        CHECK(xs_gpu_set_output_format(g, (xsf_container)F, colour, NULL, NULL) == XSF_OK,
              "%s (%s): set: %s", name, fmt, xs_gpu_decoder_error(g));
        if (applies != XSF_OK) {
            CHECK(xs_gpu_decode(g, cs, used_c, &used) == XSF_ERR_UNSUPPORTED &&
                      xs_gpu_decoder_error(g)[0],
                  "%s (%s): a format that does not apply (%s) is not refused: %s", name, fmt,
                  err.msg, xs_gpu_decoder_error(g));
            continue;
        }
        xsf_picture ref;
        xsf_picture_init(&ref);
        ref.fmt = cf;
        uint8_t *got[XS_MAX_COMPONENTS];
        if (xsf_picture_alloc(&ref, NULL, &err) != XSF_OK || !host_planes(&cf, got) ||
            xsf_picture_convert(&ref, &src, &err) != XSF_OK) {
            CHECK(0, "%s (%s): the reference: %s", name, fmt, err.msg);
            xsf_picture_unref(&ref);
            continue;
        }
        /* The own planes (pitched: the vector stores). */
        int from[XS_MAX_COMPONENTS] = {0}, to[XS_MAX_COMPONENTS] = {0};
        for (int p = 0; p < xsf_format_planes(&cf); p++)
            to[p] = xsf_format_plane_rows(&cf, p);
        const int ok = xs_gpu_decode(g, cs, used_c, &used) == XSF_OK && xs_gpu_sync(g) == XSF_OK &&
                       used == used_c && xs_gpu_download_planes(g, got, from, to) == XSF_OK &&
                       xs_gpu_sync(g) == XSF_OK;
        CHECK(ok, "%s (%s): %s", name, fmt, xs_gpu_decoder_error(g));
        if (ok) {
            CHECK(same_planes(&ref, got, name, "own planes"),
                  "%s (%s, own planes): differs from the reference", name, fmt);
            const xsf_picture *gp = xs_gpu_decoder_picture(g);
            CHECK(gp && xsf_format_equal(&gp->fmt, &cf) &&
                      !memcmp(&gp->colour, &ref.colour, sizeof ref.colour),
                  "%s (%s): xs_gpu_decoder_picture's format or colour", name, fmt);
        }
        /* Caller planes at odd addresses and pitches. */
        caller o;
        if (caller_alloc(&o, &cf)) {
            CHECK(xs_gpu_set_output_format(g, (xsf_container)F, colour, o.plane, o.pitch) ==
                          XSF_OK &&
                      xs_gpu_decode(g, cs, used_c, &used) == XSF_OK && xs_gpu_sync(g) == XSF_OK,
                  "%s (%s, caller planes): %s", name, fmt, xs_gpu_decoder_error(g));
            CHECK(caller_check(&o, &ref, name), "%s (%s, caller planes): differ", name, fmt);
        } else {
            CHECK(0, "%s (%s): out of device memory", name, fmt);
        }
        cudaFree(o.dev);
        if (F == XSF_V210 || F == XSF_NV12 || F == XSF_P010)
            check_incremental(g, cs, used_c, &ref, colour, name);
        free_planes(got);
        xsf_picture_unref(&ref);
    }
    CHECK(xs_gpu_set_output(g, NULL, NULL) == XSF_OK, "%s: back to planar16", name);
}

static void check_codestream(xs_decoder *c, xs_gpu_decoder *g, const uint8_t *cs, size_t len,
                             const char *name)
{
    check_formats(c, g, cs, len, name, NULL);
}

/* What the vectors do not have, from the project's encoder (as test_gpu_roundtrip's). */
typedef struct variant {
    const char *name, *sampling;
    int width, height, depth, cpih, tnlt;
} variant;

static const variant variants[] = {
    {"enc 400 8-bit", "400", 100, 34, 8, 0, 0},
    {"enc 4444 10-bit", "4444", 64, 32, 10, 0, 0},
    {"enc 444 16-bit", "444", 64, 24, 16, 0, 0},
    {"enc 420 10-bit odd", "420", 102, 38, 10, 0, 0},
    {"enc 444 odd", "444", 131, 37, 10, 0, 0},
    {"enc RCT", "444", 96, 40, 10, 1, 0},
    {"enc NLT quadratic", "422", 96, 32, 10, 0, 1},
    {"enc NLT extended", "444", 64, 32, 12, 0, 2},
};

static void check_encoded(xs_decoder *c, xs_gpu_decoder *g)
{
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
        const variant *vt = &variants[v];
        xs_encoder_config cfg;
        xs_encoder_config_init(&cfg);
        xsf_error err;
        xsf_error_clear(&err);
        xs_encoder *enc = NULL;
        if (xs_encoder_config_format(&cfg, vt->sampling, vt->width, vt->height, vt->depth) !=
            XSF_OK) {
            CHECK(0, "%s: format", vt->name);
            continue;
        }
        cfg.bpp = 4;
        cfg.cpih = vt->cpih;
        cfg.tnlt = vt->tnlt;
        if (vt->tnlt == 2) {
            cfg.nlt_t1 = 1u << 17;
            cfg.nlt_t2 = 3u << 18;
            cfg.nlt_e = 3;
        }
        if (xs_encoder_create(&enc, &cfg, &err) != XSF_OK) {
            CHECK(0, "%s: encoder: %s", vt->name, err.msg);
            continue;
        }
        xsf_picture pic;
        xsf_picture_init(&pic);
        pic.fmt.nc = cfg.nc;
        for (int k = 0; k < cfg.nc; k++) {
            pic.fmt.width[k] = cfg.width / cfg.sx[k];
            pic.fmt.height[k] = cfg.height / cfg.sy[k];
            pic.fmt.depth[k] = cfg.depth[k];
        }
        const size_t cap = xs_encoder_max_bytes(enc);
        uint8_t *cs = NULL;
        size_t len = 0;
        if (xsf_picture_alloc(&pic, NULL, &err) != XSF_OK ||
            cudaMallocHost((void **)&cs, cap) != cudaSuccess) {
            CHECK(0, "%s: out of memory", vt->name);
            xs_encoder_destroy(enc);
            xsf_picture_unref(&pic);
            continue;
        }
        /* Gradients, edges and noise over the whole range. */
        for (int k = 0; k < pic.fmt.nc; k++) {
            const int maxv = (1 << pic.fmt.depth[k]) - 1, w = pic.fmt.width[k];
            for (int y = 0; y < pic.fmt.height[k]; y++)
                for (int x = 0; x < w; x++) {
                    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                    int s = (int)((long long)x * maxv / (w > 1 ? w - 1 : 1));
                    s += (x / 5 + y / 3 + k) % 4 == 0 ? maxv / 2 : 0;
                    s += (int)(rng % (unsigned)(maxv / 8 + 1)) - maxv / 16;
                    xsf_picture_row16(&pic, k, y)[x] = (uint16_t)(s < 0 ? 0 : s > maxv ? maxv : s);
                }
        }
        CHECK(xs_encode(enc, &pic, cs, cap, &len) == XSF_OK, "%s: %s", vt->name,
              xs_encoder_error(enc));
        if (len) {
            check_formats(c, g, cs, len, vt->name, NULL);
            if (vt->cpih == 1) { /* R'G'B' told to be Y'CbCr: the RCT through every format */
                xsf_colour ycc;
                CHECK(xsf_colour_parse("709", &ycc, &err) == XSF_OK, "colour");
                char name[64];
                snprintf(name, sizeof name, "%s as 709", vt->name);
                check_formats(c, g, cs, len, name, &ycc);
            }
        }
        cudaFreeHost(cs);
        xsf_picture_unref(&pic);
        xs_encoder_destroy(enc);
    }
    printf("%zu encoder streams decoded in every pixel format\n",
           sizeof variants / sizeof *variants);
}

/* The codec table's decoders into converted pictures, for one vector. */
static void check_codec(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/geom_346x199.jxs", dir);
    size_t len;
    uint8_t *cs = vf_read(path, &len);
    const xsf_codec *codec = &xs_codec;
    xsf_error err;
    xsf_error_clear(&err);
    xsf_codec_frame frame;
    void *cpu = NULL, *gpu = NULL;
    CHECK(cs && codec->parse_header(cs, len, &frame, &err) == XSF_OK &&
              codec->cpu_create(&cpu, &err) == XSF_OK &&
              codec->gpu_create(&gpu, 0, stream, &err) == XSF_OK,
          "%s: %s", path, err.msg);
    xsf_picture planar;
    xsf_picture_init(&planar);
    planar.fmt = frame.format;
    planar.colour = frame.colour;
    if (!cs || !cpu || !gpu || xsf_picture_alloc(&planar, NULL, &err) != XSF_OK ||
        codec->cpu_decode(cpu, &frame, NULL, cs, len, &planar, &err) != XSF_OK) {
        CHECK(0, "%s: setting up the codec checks: %s", path, err.msg);
        goto out;
    }
    static const xsf_container formats[] = {XSF_V210, XSF_NV12, XSF_RGBA8, XSF_PLANAR_U8};
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
        const char *fmt = xsf_container_name(formats[i]);
        xsf_picture ref, host;
        xsf_picture_init(&ref);
        xsf_picture_init(&host);
        CHECK(xsf_format_convert(&frame.format, &frame.colour, formats[i], &ref.fmt, &err) ==
                      XSF_OK &&
                  xsf_picture_alloc(&ref, NULL, &err) == XSF_OK &&
                  xsf_picture_convert(&ref, &planar, &err) == XSF_OK,
              "%s (%s): reference: %s", path, fmt, err.msg);
        /* cpu_decode into the converted picture: its description stays the caller's. */
        host.fmt = ref.fmt;
        host.props.index = 7;
        CHECK(xsf_picture_alloc(&host, NULL, &err) == XSF_OK &&
                  codec->cpu_decode(cpu, &frame, NULL, cs, len, &host, &err) == XSF_OK,
              "%s (%s): cpu_decode: %s", path, fmt, err.msg);
        uint8_t *got[XS_MAX_COMPONENTS] = {0};
        for (int p = 0; p < xsf_format_planes(&host.fmt); p++)
            got[p] = host.data[p]; /* the host allocator's rows are padded: compare row by row */
        int same = 1;
        for (int p = 0; p < xsf_format_planes(&host.fmt); p++)
            for (int y = 0; y < xsf_format_plane_rows(&host.fmt, p); y++)
                same &= !memcmp(ref.data[p] + y * ref.stride[p], got[p] + y * host.stride[p],
                                xsf_format_row_bytes(&host.fmt, p));
        CHECK(same && host.props.index == 7, "%s (%s): cpu_decode differs from the reference", path,
              fmt);
        xsf_picture_unref(&host);
        /* gpu_decode into caller device planes. */
        caller o;
        if (caller_alloc(&o, &ref.fmt)) {
            xsf_picture dev;
            xsf_picture_wrap(&dev, &ref.fmt, o.plane, o.pitch, XSF_MEMORY_DEVICE, 0);
            CHECK(codec->gpu_decode(gpu, &frame, NULL, cs, len, &dev, &err) == XSF_OK &&
                      codec->gpu_sync(gpu, &err) == XSF_OK,
                  "%s (%s): gpu_decode: %s", path, fmt, err.msg);
            CHECK(caller_check(&o, &ref, path), "%s (%s): gpu_decode differs", path, fmt);
            /* A picture of another size is refused. */
            dev.fmt.width[0] += 2;
            xsf_error_clear(&err);
            CHECK(codec->gpu_decode(gpu, &frame, NULL, cs, len, &dev, &err) == XSF_ERR_ARG &&
                      err.msg[0],
                  "%s (%s): a picture of another shape is taken", path, fmt);
            cudaFree(o.dev);
        }
        /* gpu_decode into the own planes (frame->format the converted one),
         * then gpu_download_rows into a tightly packed host picture. */
        xsf_codec_frame conv = frame;
        conv.format = ref.fmt;
        uint8_t *planes[XS_MAX_COMPONENTS];
        size_t stride[XS_MAX_COMPONENTS] = {0};
        if (host_planes(&ref.fmt, planes)) {
            for (int p = 0; p < xsf_format_planes(&ref.fmt); p++)
                stride[p] = xsf_format_row_bytes(&ref.fmt, p);
            xsf_picture_wrap(&host, &ref.fmt, planes, stride, XSF_MEMORY_HOST, -1);
            int from[XSF_MAX_COMPONENTS] = {0}, to[XSF_MAX_COMPONENTS] = {0};
            for (int c = 0; c < ref.fmt.nc; c++)
                to[c] = ref.fmt.height[c];
            xsf_error_clear(&err);
            CHECK(codec->gpu_decode(gpu, &conv, NULL, cs, len, NULL, &err) == XSF_OK &&
                      codec->gpu_download_rows(gpu, &host, from, to, &err) == XSF_OK &&
                      codec->gpu_sync(gpu, &err) == XSF_OK,
                  "%s (%s): gpu_decode into the own planes: %s", path, fmt, err.msg);
            CHECK(same_planes(&ref, planes, path, "codec, own planes"),
                  "%s (%s): the own planes differ", path, fmt);
            free_planes(planes);
        }
        xsf_picture_unref(&ref);
    }
    /* A format that does not apply: an R'G'B' colour for a Y'CbCr format. */
    xsf_codec_frame rgb = frame;
    xsf_colour_rgb(&rgb.colour, XSF_COLOUR_USER);
    rgb.format.container = XSF_V210;
    rgb.format.width[1] = rgb.format.width[2] = (rgb.format.width[0] + 1) / 2;
    for (int c = 0; c < 3; c++)
        rgb.format.depth[c] = 10;
    xsf_error_clear(&err);
    CHECK(codec->gpu_decode(gpu, &rgb, NULL, cs, len, NULL, &err) == XSF_ERR_UNSUPPORTED &&
              err.msg[0],
          "an R'G'B' picture in v210 is not refused: %s", err.msg);
out:
    xsf_picture_unref(&planar);
    if (cpu)
        codec->cpu_destroy(cpu);
    if (gpu)
        codec->gpu_destroy(gpu);
    free(cs);
}

/* Bad settings: refused with XSF_ERR_ARG, and the decoder goes on. */
static void check_bad_arguments(xs_gpu_decoder *g)
{
    uint8_t *plane[XS_MAX_COMPONENTS] = {0};
    size_t pitch[XS_MAX_COMPONENTS] = {0};
    CHECK(xs_gpu_set_output_format(NULL, XSF_V210, NULL, NULL, NULL) == XSF_ERR_ARG, "no decoder");
    CHECK(xs_gpu_set_output_format(g, (xsf_container)XSF_CONTAINERS, NULL, NULL, NULL) ==
                  XSF_ERR_ARG &&
              xs_gpu_decoder_error(g)[0],
          "a container that is not one");
    CHECK(xs_gpu_set_output_format(g, XSF_NV12, NULL, plane, NULL) == XSF_ERR_ARG,
          "planes without pitches");
    plane[0] = (uint8_t *)(uintptr_t)1;
    pitch[0] = 3;
    CHECK(xs_gpu_set_output_format(g, XSF_PLANAR_U16, NULL, plane, pitch) == XSF_ERR_ARG,
          "planar16 planes must be 2-byte aligned");
    CHECK(xs_gpu_set_output_format(g, XSF_NV12, NULL, plane, pitch) == XSF_OK,
          "other formats take any address: %s", xs_gpu_decoder_error(g));
    CHECK(xs_gpu_set_output(g, NULL, NULL) == XSF_OK, "back to planar16");
}

int main(int argc, char **argv)
{
    if (xs_gpu_available() != XSF_OK) {
        printf("no GPU: GPU pixel-format tests skipped\n");
        return XSF_TEST_SKIP;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: %s VECTOR_DIR [UHD_DIR...]\n", argv[0]);
        return 2;
    }
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess, "stream");
    xs_gpu_decoder *g = NULL;
    xs_decoder *c = NULL;
    CHECK(xs_gpu_decoder_create(&g, 0, stream, NULL) == XSF_OK, "cannot create the GPU decoder");
    CHECK(xs_decoder_create(&c, NULL) == XSF_OK, "cannot create the C decoder");
    if (!g || !c)
        return xsf_test_finish();
    check_bad_arguments(g);
    check_codec(argv[1]);
    check_encoded(c, g);
    CHECK(vf_check_dir(c, g, argv[1], check_codestream, "decoded in every pixel format") > 0,
          "no vectors in %s", argv[1]);
    for (int i = 2; i < argc; i++)
        vf_check_dir(c, g, argv[i], check_codestream, "decoded in every pixel format");
    xs_gpu_decoder_destroy(g);
    xs_decoder_destroy(c);
    cudaStreamDestroy(stream);
    return xsf_test_finish();
}
