/* Picture writers (.yuv, .y4m, .ppm, .pgm) and the helpers they share with
 * the readers in image_read.c. */
#define _POSIX_C_SOURCE 200809L /* strdup */

#include "image_io.h"
#include "xsf_output.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The factor that subsamples `full` samples into `part` (rounding up), or 0. */
static int subsampling(int full, int part)
{
    if (part < 1 || part > full)
        return 0;
    const int f = (full + part - 1) / part;
    return (full + f - 1) / f == part ? f : 0;
}

imgio_format imgio_format_from_path(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return IMGIO_FORMAT_NONE;
    static const struct {
        const char *ext;
        imgio_format format;
    } table[] = {
        {".yuv", IMGIO_FORMAT_YUV},
        {".y4m", IMGIO_FORMAT_Y4M},
        {".ppm", IMGIO_FORMAT_PPM},
        {".pgm", IMGIO_FORMAT_PGM},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const char *a = dot, *b = table[i].ext;
        while (*a && *b && tolower((unsigned char)*a) == *b) {
            a++;
            b++;
        }
        if (!*a && !*b)
            return table[i].format;
    }
    return IMGIO_FORMAT_NONE;
}

const char *imgio_format_name(imgio_format f)
{
    switch (f) {
    case IMGIO_FORMAT_YUV: return "YUV";
    case IMGIO_FORMAT_Y4M: return "Y4M";
    case IMGIO_FORMAT_PPM: return "PPM";
    case IMGIO_FORMAT_PGM: return "PGM";
    case IMGIO_FORMAT_NONE: break;
    }
    return "unknown";
}

const char *imgio_sampling_name(int nc, const int *sx, const int *sy)
{
    if (nc < 1 || sx[0] != 1 || sy[0] != 1)
        return "other";
    if (nc == 1)
        return "4:0:0";
    for (int c = 2; c < nc; c++)
        if (sx[c] != sx[1] || sy[c] != sy[1])
            return "other";
    if (nc != 3 && nc != 4)
        return "other";
    if (nc == 4)
        return sx[1] == 1 && sy[1] == 1 ? "4:4:4:4" : "other";
    if (sx[1] == 1 && sy[1] == 1)
        return "4:4:4";
    if (sx[1] == 2 && sy[1] == 1)
        return "4:2:2";
    if (sx[1] == 2 && sy[1] == 2)
        return "4:2:0";
    return "other";
}

const char *imgio_picture_sampling(const xsf_picture *pic)
{
    const xsf_format *f = &pic->fmt;
    int sx[IMGIO_MAX_COMPONENTS], sy[IMGIO_MAX_COMPONENTS];
    if (f->nc < 1 || f->nc > IMGIO_MAX_COMPONENTS)
        return "other";
    for (int c = 0; c < f->nc; c++) {
        sx[c] = subsampling(f->width[0], f->width[c]);
        sy[c] = subsampling(f->height[0], f->height[c]);
        if (!sx[c] || !sy[c])
            return "other";
    }
    return imgio_sampling_name(f->nc, sx, sy);
}

/* The Y4M colour-space tag of a picture, or NULL with the reason in err. */
static const char *y4m_tag(const xsf_picture *pic, char *tag, size_t tag_len, xsf_error *err)
{
    const xsf_format *f = &pic->fmt;
    if (f->nc != 1 && f->nc != 3) {
        xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                      "Y4M holds 1 or 3 components, the picture has %d (write .yuv)", f->nc);
        return NULL;
    }
    const int depth = f->depth[0];
    for (int c = 1; c < f->nc; c++) {
        if (f->depth[c] != depth) {
            xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                          "Y4M needs one depth for all components, the picture has %d and %d "
                          "bits (write .yuv)",
                          depth, f->depth[c]);
            return NULL;
        }
    }
    const char *sampling = imgio_picture_sampling(pic);
    const char *base = NULL;
    if (!strcmp(sampling, "4:0:0"))
        base = "mono";
    else if (!strcmp(sampling, "4:2:0"))
        base = "420";
    else if (!strcmp(sampling, "4:2:2"))
        base = "422";
    else if (!strcmp(sampling, "4:4:4"))
        base = "444";
    if (!base) {
        xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                      "Y4M has no tag for this sampling (%dx%d luma, %dx%d chroma; write .yuv)",
                      f->width[0], f->height[0], f->width[1], f->height[1]);
        return NULL;
    }
    /* The tags that Y4M readers (mjpegtools, FFmpeg) know. */
    const int mono_ok = depth == 8 || depth == 9 || depth == 10 || depth == 12 || depth == 16;
    const int yuv_ok =
        depth == 8 || depth == 9 || depth == 10 || depth == 12 || depth == 14 || depth == 16;
    if (!strcmp(base, "mono") ? !mono_ok : !yuv_ok) {
        xsf_error_set(err, XSF_ERR_UNSUPPORTED, "Y4M has no tag for %d-bit %s samples (write .yuv)",
                      depth, !strcmp(base, "mono") ? "monochrome" : sampling);
        return NULL;
    }
    if (depth == 8)
        snprintf(tag, tag_len, "%s", !strcmp(base, "420") ? "420jpeg" : base);
    else if (!strcmp(base, "mono"))
        snprintf(tag, tag_len, "mono%d", depth);
    else
        snprintf(tag, tag_len, "%sp%d", base, depth);
    return tag;
}

static xsf_status check_planes(const xsf_picture *pic, xsf_error *err)
{
    const xsf_format *f = &pic->fmt;
    if (f->nc < 1 || f->nc > IMGIO_MAX_COMPONENTS)
        return xsf_error_set(err, XSF_ERR_ARG, "picture with %d components", f->nc);
    if (pic->memory == XSF_MEMORY_DEVICE)
        return xsf_error_set(err, XSF_ERR_ARG, "the writers take pictures in host memory");
    if (f->container != XSF_PLANAR_U16) {
        /* The output pixel formats: the format's own planes. */
        xsf_status st = xsf_format_check(f, err);
        if (st != XSF_OK)
            return st;
        for (int p = 0; p < xsf_format_planes(f); p++)
            if (!pic->data[p] || pic->stride[p] < xsf_format_row_bytes(f, p))
                return xsf_error_set(err, XSF_ERR_ARG, "%s plane %d: not a picture",
                                     xsf_container_name(f->container), p);
        return XSF_OK;
    }
    for (int c = 0; c < f->nc; c++) {
        if (f->width[c] < 1 || f->height[c] < 1 || f->depth[c] < 1 || f->depth[c] > 16 ||
            pic->stride[c] < (size_t)f->width[c] * 2 || pic->stride[c] % 2 || !pic->data[c])
            return xsf_error_set(err, XSF_ERR_ARG, "component %d: %dx%d, %d bits: not a picture", c,
                                 f->width[c], f->height[c], f->depth[c]);
    }
    return XSF_OK;
}

/* Why `pic`'s container cannot be written as `format` (NULL: it can):
 * .yuv takes every container, .y4m the planar ones (planar16, planar8,
 * i420), .ppm planar16 and the packed R'G'B' ones of integer samples (rgb48,
 * rgba, bgra), .pgm planar16. */
static const char *container_refused(imgio_format format, xsf_container c)
{
    switch (format) {
    case IMGIO_FORMAT_YUV: return NULL;
    case IMGIO_FORMAT_Y4M:
        return c == XSF_PLANAR_U16 || c == XSF_PLANAR_U8 || c == XSF_I420
                   ? NULL
                   : "Y4M holds planar pictures (planar16, planar8, i420)";
    case IMGIO_FORMAT_PPM:
        return c == XSF_PLANAR_U16 || c == XSF_RGB48 || c == XSF_RGBA8 || c == XSF_BGRA8
                   ? NULL
                   : "PPM holds planar16, rgb48, rgba or bgra pictures";
    case IMGIO_FORMAT_PGM: return c == XSF_PLANAR_U16 ? NULL : "PGM holds planar16 pictures";
    case IMGIO_FORMAT_NONE: break;
    }
    return NULL;
}

xsf_status imgio_check(const imgio_write_options *opt, const xsf_picture *pic, xsf_error *err)
{
    xsf_status st = check_planes(pic, err);
    if (st != XSF_OK)
        return st;
    const char *refused = container_refused(opt->format, pic->fmt.container);
    if (refused)
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED, "%s, not %s (write .yuv)", refused,
                             xsf_container_name(pic->fmt.container));
    char tag[16];
    switch (opt->format) {
    case IMGIO_FORMAT_YUV: return XSF_OK;
    case IMGIO_FORMAT_PGM: return XSF_OK;
    case IMGIO_FORMAT_Y4M: return y4m_tag(pic, tag, sizeof tag, err) ? XSF_OK : err->status;
    case IMGIO_FORMAT_PPM: {
        const xsf_format *f = &pic->fmt;
        if (f->container != XSF_PLANAR_U16)
            return XSF_OK; /* rgb48, rgba, bgra */
        if (f->nc != 3)
            return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                                 "PPM holds 3 components, the picture has %d (write %s)", f->nc,
                                 f->nc < 3 ? ".pgm" : ".yuv");
        if (f->depth[1] != f->depth[0] || f->depth[2] != f->depth[0])
            return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                                 "PPM needs one depth for all components, the picture has "
                                 "%d, %d and %d bits (write .yuv)",
                                 f->depth[0], f->depth[1], f->depth[2]);
        /* Chroma is upsampled by replication: each plane must be component
         * 0 subsampled by a whole factor (sizes rounded up). */
        for (int c = 1; c < 3; c++)
            if (!subsampling(f->width[0], f->width[c]) || !subsampling(f->height[0], f->height[c]))
                return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                                     "component %d (%dx%d) is not component 0 (%dx%d) subsampled, "
                                     "so it cannot be upsampled for PPM (write .yuv)",
                                     c, f->width[c], f->height[c], f->width[0], f->height[0]);
        return XSF_OK;
    }
    case IMGIO_FORMAT_NONE: break;
    }
    return xsf_error_set(err, XSF_ERR_ARG, "no output format");
}

size_t imgio_yuv_frame_bytes(const xsf_picture *pic)
{
    const xsf_format *f = &pic->fmt;
    if (f->container != XSF_PLANAR_U16)
        return xsf_format_bytes(f);
    size_t n = 0;
    for (int c = 0; c < f->nc; c++)
        n += (size_t)f->width[c] * f->height[c] * (f->depth[c] > 8 ? 2 : 1);
    return n;
}

/* Samples per staging chunk: 4096 samples of two bytes, on the stack. */
#define CHUNK_SAMPLES 4096

/* The planes of an output pixel format as they are, rows tightly packed,
 * whole planes in one piece where their rows are. */
static int serialize_planes(const xsf_picture *pic, imgio_sink sink, void *ctx)
{
    const xsf_format *f = &pic->fmt;
    for (int p = 0; p < xsf_format_planes(f); p++) {
        const size_t row = xsf_format_row_bytes(f, p), rows = (size_t)xsf_format_plane_rows(f, p);
        const int contiguous = pic->stride[p] == row;
        for (size_t y = 0; y < rows; y += contiguous ? rows : 1) {
            int r = sink(ctx, pic->data[p] + y * pic->stride[p], contiguous ? row * rows : row);
            if (r)
                return r;
        }
    }
    return 0;
}

int imgio_yuv_serialize(const xsf_picture *pic, imgio_sink sink, void *ctx)
{
    if (pic->fmt.container != XSF_PLANAR_U16)
        return serialize_planes(pic, sink, ctx);
    uint8_t buf[2 * CHUNK_SAMPLES];
    const uint16_t one = 1;
    const int little_endian = *(const uint8_t *)&one == 1;
    const xsf_format *f = &pic->fmt;
    for (int c = 0; c < f->nc; c++) {
        const int wide = f->depth[c] > 8;
        if (wide && little_endian) {
            /* uint16 in memory is already the file's little-endian layout:
             * hand over whole planes (or rows), which the writer passes to
             * the kernel in one call, at the speed of a plain write loop. */
            const size_t row_bytes = (size_t)f->width[c] * 2;
            const size_t rows = (size_t)f->height[c];
            const int contiguous = pic->stride[c] == row_bytes;
            for (size_t y = 0; y < rows; y += contiguous ? rows : 1) {
                int r = sink(ctx, pic->data[c] + y * pic->stride[c],
                             contiguous ? row_bytes * rows : row_bytes);
                if (r)
                    return r;
            }
            continue;
        }
        for (int y = 0; y < f->height[c]; y++) {
            const uint16_t *row = xsf_picture_row16(pic, c, y);
            for (int x0 = 0; x0 < f->width[c]; x0 += CHUNK_SAMPLES) {
                const int n = f->width[c] - x0 < CHUNK_SAMPLES ? f->width[c] - x0 : CHUNK_SAMPLES;
                if (wide) {
                    for (int i = 0; i < n; i++) {
                        buf[2 * i] = (uint8_t)(row[x0 + i] & 0xff);
                        buf[2 * i + 1] = (uint8_t)(row[x0 + i] >> 8);
                    }
                } else {
                    for (int i = 0; i < n; i++)
                        buf[i] = (uint8_t)row[x0 + i];
                }
                int r = sink(ctx, buf, (size_t)n * (wide ? 2 : 1));
                if (r)
                    return r;
            }
        }
    }
    return 0;
}

struct imgio_writer {
    imgio_write_options opt;
    char *path;
    char *last_path;
    FILE *file;
    int to_stdout;
    int opened; /* a file was created (imgio_writer_discard removes what was) */
    uint64_t frames;
    uint64_t bytes;
    int y4m_width, y4m_height; /* the stream header's size, fixed by the first frame */
    char y4m_tag[16];
};

xsf_status imgio_writer_open(imgio_writer **w, const char *path, const imgio_write_options *opt,
                             xsf_error *err)
{
    *w = NULL;
    if (opt->format == IMGIO_FORMAT_NONE)
        return xsf_error_set(err, XSF_ERR_ARG, "no output format");
    imgio_writer *n = calloc(1, sizeof *n);
    if (!n || !(n->path = strdup(path))) {
        free(n);
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    }
    n->opt = *opt;
    if (!n->opt.fps_num || !n->opt.fps_den) {
        n->opt.fps_num = 25;
        n->opt.fps_den = 1;
    }
    n->to_stdout = !strcmp(path, "-");
    /* Frame files are for netpbm, whose viewers show one image per file; a
     * netpbm stream on standard output may hold several images. */
    if (n->to_stdout || (opt->format != IMGIO_FORMAT_PPM && opt->format != IMGIO_FORMAT_PGM))
        n->opt.frame_files = 0;
    *w = n;
    return XSF_OK;
}

size_t imgio_frame_path(const char *path, uint64_t frame, char *out, size_t cap)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    const size_t stem = (dot && (!slash || dot > slash)) ? (size_t)(dot - path) : strlen(path);
    const int n = snprintf(out, cap, "%.*s-%04llu%s", (int)stem, path, (unsigned long long)frame,
                           path + stem);
    return n < 0 ? 0 : (size_t)n;
}

/* imgio_frame_path into memory of its own (NULL: none). */
static char *frame_path(const char *path, uint64_t frame)
{
    const size_t len = strlen(path) + 32;
    char *p = malloc(len);
    if (p)
        imgio_frame_path(path, frame, p, len);
    return p;
}

static xsf_status open_file(imgio_writer *w, xsf_error *err)
{
    char *name = w->opt.frame_files ? frame_path(w->path, w->frames) : strdup(w->path);
    if (!name)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    free(w->last_path);
    w->last_path = name;
    if (w->to_stdout) {
        w->file = stdout;
        return XSF_OK;
    }
    w->file = fopen(name, "wb");
    if (!w->file)
        return xsf_error_set(err, XSF_ERR_IO, "cannot create %s: %s", name, strerror(errno));
    w->opened = 1;
    return XSF_OK;
}

static xsf_status close_file(imgio_writer *w, xsf_error *err)
{
    if (!w->file)
        return XSF_OK;
    int bad = ferror(w->file);
    int e = errno;
    if (w->to_stdout)
        bad |= fflush(w->file) != 0;
    else
        bad |= fclose(w->file) != 0;
    if (bad)
        e = errno ? errno : e;
    w->file = NULL;
    if (bad)
        return xsf_error_set(err, XSF_ERR_IO, "write to %s failed: %s", w->last_path,
                             strerror(e ? e : EIO));
    return XSF_OK;
}

static int file_sink(void *ctx, const uint8_t *data, size_t len)
{
    imgio_writer *w = ctx;
    if (fwrite(data, 1, len, w->file) != len)
        return 1;
    w->bytes += len;
    return 0;
}

static int put_text(imgio_writer *w, const char *text)
{
    return file_sink(w, (const uint8_t *)text, strlen(text));
}

static uint16_t to_sample(double e, double maxv)
{
    e = e < 0 ? 0 : (e > 1 ? 1 : e);
    return (uint16_t)floor(e * maxv + 0.5);
}

/* One PPM row: components upsampled by replication, then R'G'B' at the
 * picture's depth through the conversion the display uses (xsf_colour.h). */
static void ppm_row(const xsf_picture *pic, const xsf_rgb_transform *t, int y, uint16_t *rgb)
{
    const xsf_format *f = &pic->fmt;
    const int w = f->width[0];
    const double maxv = (double)((1u << f->depth[0]) - 1);
    const uint16_t *p[3];
    int rx[3];
    for (int c = 0; c < 3; c++) {
        rx[c] = subsampling(w, f->width[c]);
        p[c] = xsf_picture_row16(pic, c, y / subsampling(f->height[0], f->height[c]));
    }
    for (int x = 0; x < w; x++) {
        double e[3];
        for (int c = 0; c < 3; c++)
            e[c] = p[c][x / rx[c]] * t->in_scale[c] + t->in_bias[c];
        uint16_t *o = rgb + 3 * (size_t)x;
        for (int r = 0; r < 3; r++)
            o[r] = to_sample(t->m[r][0] * e[0] + t->m[r][1] * e[1] + t->m[r][2] * e[2], maxv);
    }
}

/* Netpbm samples: one byte up to maxval 255, else two bytes big-endian. */
static int write_netpbm_samples(imgio_writer *w, const uint16_t *s, size_t n, int depth)
{
    uint8_t buf[2 * CHUNK_SAMPLES];
    for (size_t i0 = 0; i0 < n; i0 += CHUNK_SAMPLES) {
        const size_t k = n - i0 < CHUNK_SAMPLES ? n - i0 : CHUNK_SAMPLES;
        for (size_t i = 0; i < k; i++) {
            if (depth > 8) {
                buf[2 * i] = (uint8_t)(s[i0 + i] >> 8);
                buf[2 * i + 1] = (uint8_t)(s[i0 + i] & 0xff);
            } else {
                buf[i] = (uint8_t)s[i0 + i];
            }
        }
        if (file_sink(w, buf, k * (depth > 8 ? 2 : 1)))
            return 1;
    }
    return 0;
}

/* rgb48 (16-bit PPM, big-endian) or rgba / bgra (8-bit, alpha dropped) as P6. */
static int write_ppm_packed(imgio_writer *w, const xsf_picture *pic)
{
    const xsf_format *f = &pic->fmt;
    const int wide = f->container == XSF_RGB48, bgr = f->container == XSF_BGRA8;
    char head[64];
    snprintf(head, sizeof head, "P6\n%d %d\n%u\n", f->width[0], f->height[0], wide ? 65535u : 255u);
    if (put_text(w, head))
        return 1;
    uint8_t *out = malloc((size_t)f->width[0] * (wide ? 6 : 3));
    if (!out) {
        errno = ENOMEM;
        return 1;
    }
    int bad = 0;
    for (int y = 0; y < f->height[0] && !bad; y++) {
        const uint8_t *in = pic->data[0] + (size_t)y * pic->stride[0];
        for (size_t x = 0; x < (size_t)f->width[0]; x++) {
            if (wide) {
                for (int k = 0; k < 3; k++) { /* little-endian in, big-endian out */
                    out[6 * x + 2 * k] = in[6 * x + 2 * k + 1];
                    out[6 * x + 2 * k + 1] = in[6 * x + 2 * k];
                }
            } else {
                for (int k = 0; k < 3; k++)
                    out[3 * x + k] = in[4 * x + (bgr ? 2 - k : k)];
            }
        }
        bad = file_sink(w, out, (size_t)f->width[0] * (wide ? 6 : 3));
    }
    free(out);
    return bad;
}

static int write_netpbm(imgio_writer *w, const xsf_picture *pic)
{
    const xsf_format *f = &pic->fmt;
    if (f->container != XSF_PLANAR_U16)
        return write_ppm_packed(w, pic);
    const int ppm = w->opt.format == IMGIO_FORMAT_PPM;
    const int depth = f->depth[0];
    char head[64];
    snprintf(head, sizeof head, "P%c\n%d %d\n%u\n", ppm ? '6' : '5', f->width[0], f->height[0],
             (1u << depth) - 1);
    if (put_text(w, head))
        return 1;
    if (!ppm) {
        for (int y = 0; y < f->height[0]; y++)
            if (write_netpbm_samples(w, xsf_picture_row16(pic, 0, y), (size_t)f->width[0], depth))
                return 1;
        return 0;
    }
    uint16_t *rgb = malloc(sizeof(uint16_t) * 3 * (size_t)f->width[0]);
    if (!rgb) {
        errno = ENOMEM;
        return 1;
    }
    /* The description of the higher source: the picture's (a file's, a
     * codestream's) unless the options carry one said later in the chain. */
    const xsf_colour *colour =
        pic->colour.source > w->opt.colour.source ? &pic->colour : &w->opt.colour;
    xsf_rgb_transform t;
    xsf_rgb_transform_make(&t, colour, depth, 3);
    int bad = 0;
    for (int y = 0; y < f->height[0] && !bad; y++) {
        ppm_row(pic, &t, y, rgb);
        bad = write_netpbm_samples(w, rgb, 3 * (size_t)f->width[0], depth);
    }
    free(rgb);
    return bad;
}

xsf_status imgio_write(imgio_writer *w, const xsf_picture *pic, xsf_error *err)
{
    xsf_status st = imgio_check(&w->opt, pic, err);
    if (st != XSF_OK)
        return st;
    if (w->opt.format == IMGIO_FORMAT_Y4M && w->frames > 0) {
        char tag[16];
        y4m_tag(pic, tag, sizeof tag, err);
        if (pic->fmt.width[0] != w->y4m_width || pic->fmt.height[0] != w->y4m_height ||
            strcmp(tag, w->y4m_tag))
            return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                                 "frame %llu is %dx%d C%s but the Y4M stream is %dx%d C%s",
                                 (unsigned long long)w->frames, pic->fmt.width[0],
                                 pic->fmt.height[0], tag, w->y4m_width, w->y4m_height, w->y4m_tag);
    }
    if (!w->file) {
        st = open_file(w, err);
        if (st != XSF_OK)
            return st;
    }
    errno = 0;
    int bad = 0;
    switch (w->opt.format) {
    case IMGIO_FORMAT_YUV: bad = imgio_yuv_serialize(pic, file_sink, w); break;
    case IMGIO_FORMAT_Y4M:
        if (w->frames == 0) {
            y4m_tag(pic, w->y4m_tag, sizeof w->y4m_tag, err);
            w->y4m_width = pic->fmt.width[0];
            w->y4m_height = pic->fmt.height[0];
            char head[128];
            snprintf(head, sizeof head, "YUV4MPEG2 W%d H%d F%u:%u I%c A1:1 C%s\n",
                     pic->fmt.width[0], pic->fmt.height[0], w->opt.fps_num, w->opt.fps_den,
                     w->opt.scan == IMGIO_SCAN_TOP_FIRST ? 't' : 'p', w->y4m_tag);
            bad = put_text(w, head);
        }
        bad = bad || put_text(w, "FRAME\n") || imgio_yuv_serialize(pic, file_sink, w);
        break;
    case IMGIO_FORMAT_PPM:
    case IMGIO_FORMAT_PGM: bad = write_netpbm(w, pic); break;
    case IMGIO_FORMAT_NONE: break;
    }
    if (bad)
        return xsf_error_set(err, XSF_ERR_IO, "write to %s failed: %s", w->last_path,
                             strerror(errno ? errno : EIO));
    w->frames++;
    if (w->opt.frame_files)
        return close_file(w, err);
    return XSF_OK;
}

xsf_status imgio_writer_close(imgio_writer *w, xsf_error *err)
{
    if (!w)
        return XSF_OK;
    xsf_status st = close_file(w, err);
    free(w->path);
    free(w->last_path);
    free(w);
    return st;
}

void imgio_writer_discard(imgio_writer *w)
{
    if (!w)
        return;
    const int pending = w->file != NULL; /* a frame file under way */
    if (w->file && !w->to_stdout)
        fclose(w->file);
    w->file = NULL;
    if (w->opened && !w->to_stdout) {
        /* Every frame file written, and the one under way. */
        const uint64_t files = w->opt.frame_files ? w->frames + (uint64_t)pending : 1;
        for (uint64_t i = 0; i < files; i++) {
            char *name = w->opt.frame_files ? frame_path(w->path, i) : NULL;
            xsf_output_remove(name ? name : w->path);
            free(name);
        }
    }
    free(w->path);
    free(w->last_path);
    free(w);
}

uint64_t imgio_writer_bytes(const imgio_writer *w)
{
    return w->bytes;
}

const char *imgio_writer_last_path(const imgio_writer *w)
{
    return w->last_path ? w->last_path : w->path;
}
