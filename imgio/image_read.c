/* Picture readers (.yuv given its layout, .y4m, .ppm/.pgm) and whole-file
 * reading. Every size read from a header is checked before it is used. */
#define _POSIX_C_SOURCE 200809L /* open, mmap */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image_io.h"

/* Samples are read in groups of rows of about this many bytes: few calls, each group still
 * in the cache when its samples are checked (or converted, through the staging buffer). */
#define STAGE_BYTES ((size_t)256 << 10)

struct imgio_reader {
    FILE *file;
    int is_stdin;
    imgio_format format;
    imgio_raw_layout layout; /* .yuv and .y4m: fixed for the whole file */
    xsf_picture pic;         /* the frame's format; imgio_read's view of samples */
    xsf_colour colour;       /* what the file says (Y4M: its header) */
    uint16_t *samples;       /* one block for every plane (imgio_read's) */
    size_t samples_cap;
    uint8_t *row; /* staging: a PNM row, a group of rows to convert (STAGE_BYTES at least) */
    size_t row_cap;
    unsigned long long frame;
};

static int is_space(int ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

xsf_status imgio_raw_layout_make(imgio_raw_layout *layout, const char *sampling, int width,
                                 int height, int depth, xsf_error *err)
{
    static const struct {
        const char *name;
        int nc, sx, sy;
    } table[] = {
        {"420", 3, 2, 2}, {"4:2:0", 3, 2, 2}, {"422", 3, 2, 1},     {"4:2:2", 3, 2, 1},
        {"444", 3, 1, 1}, {"4:4:4", 3, 1, 1}, {"mono", 1, 1, 1},    {"4:0:0", 1, 1, 1},
        {"400", 1, 1, 1}, {"4444", 4, 1, 1},  {"4:4:4:4", 4, 1, 1},
    };
    memset(layout, 0, sizeof *layout);
    size_t i = 0;
    while (i < sizeof table / sizeof table[0] && strcmp(sampling, table[i].name))
        i++;
    if (i == sizeof table / sizeof table[0])
        return xsf_error_set(err, XSF_ERR_ARG,
                             "unknown sampling '%s' (420, 422, 444, 4444 or mono)", sampling);
    if (width < 1 || height < 1 || width > 65535 || height > 65535)
        return xsf_error_set(err, XSF_ERR_ARG, "picture size %dx%d (1..65535)", width, height);
    if (depth < 1 || depth > 16)
        return xsf_error_set(err, XSF_ERR_ARG, "depth %d bits (1..16)", depth);
    layout->width = width;
    layout->height = height;
    layout->nc = table[i].nc;
    layout->sx = table[i].sx;
    layout->sy = table[i].sy;
    layout->depth = depth;
    return XSF_OK;
}

/* Shapes the reader's picture: its format and rows tightly packed; its planes come from
 * own_planes, once imgio_read needs them (imgio_read_into's caller brings its own). */
static xsf_status shape(imgio_reader *r, int nc, const int *w, const int *h, int depth,
                        xsf_error *err)
{
    size_t total = 0;
    for (int c = 0; c < nc; c++)
        total += (size_t)w[c] * (size_t)h[c];
    if (total > IMGIO_MAX_SAMPLES)
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED, "picture of %zu samples (at most %zu)",
                             total, IMGIO_MAX_SAMPLES);
    size_t row_bytes = STAGE_BYTES;
    for (int c = 0; c < nc; c++)
        if ((size_t)w[c] * 6 > row_bytes)
            row_bytes = (size_t)w[c] * 6; /* an interleaved 16-bit RGB row at most */
    if (row_bytes > r->row_cap) {
        uint8_t *b = realloc(r->row, row_bytes);
        if (!b)
            return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a row");
        r->row = b;
        r->row_cap = row_bytes;
    }
    xsf_picture_init(&r->pic);
    r->pic.fmt.container = XSF_PLANAR_U16;
    r->pic.fmt.nc = nc;
    r->pic.colour = r->colour;
    for (int c = 0; c < nc; c++) {
        r->pic.fmt.width[c] = w[c];
        r->pic.fmt.height[c] = h[c];
        r->pic.fmt.depth[c] = depth;
        r->pic.stride[c] = (size_t)w[c] * sizeof(uint16_t);
    }
    return XSF_OK;
}

/* Planes of the reader's own for the shaped picture (kept for the next frames). */
static xsf_status own_planes(imgio_reader *r, xsf_error *err)
{
    const xsf_format *f = &r->pic.fmt;
    size_t total = 0;
    for (int c = 0; c < f->nc; c++)
        total += (size_t)f->width[c] * (size_t)f->height[c];
    if (total > r->samples_cap) {
        uint16_t *s = realloc(r->samples, total * sizeof *s);
        if (!s)
            return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for %zu samples", total);
        r->samples = s;
        r->samples_cap = total;
    }
    size_t off = 0;
    for (int c = 0; c < f->nc; c++) {
        r->pic.data[c] = (uint8_t *)(r->samples + off);
        off += (size_t)f->width[c] * f->height[c];
    }
    return XSF_OK;
}

static xsf_status shape_layout(imgio_reader *r, xsf_error *err)
{
    const imgio_raw_layout *l = &r->layout;
    /* Components 1 and 2 subsampled; a fourth (alpha) at full size. */
    int w[4] = {l->width, (l->width + l->sx - 1) / l->sx, (l->width + l->sx - 1) / l->sx, l->width};
    int h[4] = {l->height, (l->height + l->sy - 1) / l->sy, (l->height + l->sy - 1) / l->sy,
                l->height};
    return shape(r, l->nc, w, h, l->depth, err);
}

/* Reads exactly n bytes; *got tells how many arrived before the end. */
static int read_exact(imgio_reader *r, void *buf, size_t n, size_t *got)
{
    *got = fread(buf, 1, n, r->file);
    return *got == n;
}

static xsf_status read_fail(imgio_reader *r, const char *what, xsf_error *err)
{
    if (ferror(r->file))
        return xsf_error_set(err, XSF_ERR_IO, "read failed: %s", strerror(errno));
    return xsf_error_set(err, XSF_ERR_TRUNCATED, "file ends inside %s of frame %llu", what,
                         r->frame);
}

static xsf_status above_maxval(const imgio_reader *r, int c, int x, int y, unsigned v,
                               unsigned maxval, xsf_error *err)
{
    return xsf_error_set(err, XSF_ERR_INVALID,
                         "frame %llu component %d sample (%d,%d) is %u, above %u", r->frame, c, x,
                         y, v, maxval);
}

/* The bits of every sample of n rows of w samples, `stride` bytes apart, OR-ed: above maxval
 * (2^depth - 1) where one sample is. */
static unsigned or_rows(const uint8_t *p, size_t stride, int w, int n, int wide)
{
    unsigned top = 0;
    for (int y = 0; y < n; y++, p += stride) {
        if (wide) {
            const uint16_t *s = (const uint16_t *)(const void *)p;
            uint16_t acc = 0;
            for (int x = 0; x < w; x++)
                acc |= s[x];
            top |= acc;
        } else {
            uint8_t acc = 0;
            for (int x = 0; x < w; x++)
                acc |= p[x];
            top |= acc;
        }
    }
    return top;
}

/* Reads plane c of the frame into component c of `dst` (planar16, or planar8 for 8-bit
 * samples): `wide` samples of two bytes (big-endian or little-endian), else of one; samples
 * above maxval are invalid. Rows go in groups of about STAGE_BYTES: read straight into the
 * plane where the file's samples lie as the picture's (one read per group where the rows
 * are packed), each group checked while it is in the cache; else read into the staging
 * buffer and converted. */
static xsf_status read_plane(imgio_reader *r, const xsf_picture *dst, int c, int wide,
                             int big_endian, unsigned maxval, xsf_error *err)
{
    const int w = dst->fmt.width[c], h = dst->fmt.height[c];
    const size_t file_row = (size_t)w * (wide ? 2 : 1);
    const int out8 = dst->fmt.container == XSF_PLANAR_U8;
    const int direct = out8 || (wide && !big_endian && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);
    const int packed = dst->stride[c] == file_row;
    const unsigned full = wide ? 65535u : 255u;
    const int group = file_row >= STAGE_BYTES ? 1 : (int)(STAGE_BYTES / file_row);
    for (int y0 = 0; y0 < h; y0 += group) {
        const int n = h - y0 < group ? h - y0 : group;
        uint8_t *at = dst->data[c] + (size_t)y0 * dst->stride[c];
        size_t got;
        if (direct) {
            if (packed && !read_exact(r, at, file_row * (size_t)n, &got))
                return read_fail(r, "a plane", err);
            for (int y = 0; !packed && y < n; y++)
                if (!read_exact(r, at + (size_t)y * dst->stride[c], file_row, &got))
                    return read_fail(r, "a plane", err);
            if (maxval >= full || or_rows(at, dst->stride[c], w, n, wide) <= maxval)
                continue;
            /* One is above: find the first, to name it. */
            for (int y = 0; y < n; y++) {
                const uint8_t *row = at + (size_t)y * dst->stride[c];
                for (int x = 0; x < w; x++) {
                    const unsigned v = wide ? ((const uint16_t *)(const void *)row)[x] : row[x];
                    if (v > maxval)
                        return above_maxval(r, c, x, y0 + y, v, maxval, err);
                }
            }
            continue;
        }
        if (!read_exact(r, r->row, file_row * (size_t)n, &got))
            return read_fail(r, "a plane", err);
        for (int y = 0; y < n; y++) {
            const uint8_t *in = r->row + (size_t)y * file_row;
            uint16_t *out = xsf_picture_row16(dst, c, y0 + y);
            for (int x = 0; x < w; x++) {
                unsigned v = in[x];
                if (wide)
                    v = big_endian ? (unsigned)in[2 * x] << 8 | in[2 * x + 1]
                                   : (unsigned)in[2 * x + 1] << 8 | in[2 * x];
                if (v > maxval)
                    return above_maxval(r, c, x, y0 + y, v, maxval, err);
                out[x] = (uint16_t)v;
            }
        }
    }
    return XSF_OK;
}

/* YUV4MPEG2 colour-space tags and the depth and sampling each stands for. */
static xsf_status y4m_colour(const char *tag, imgio_raw_layout *l, xsf_error *err)
{
    static const struct {
        const char *prefix;
        int nc, sx, sy;
    } table[] = {
        {"420jpeg", 3, 2, 2}, {"420paldv", 3, 2, 2}, {"420mpeg2", 3, 2, 2}, {"420", 3, 2, 2},
        {"422", 3, 2, 1},     {"444", 3, 1, 1},      {"mono", 1, 1, 1},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        size_t n = strlen(table[i].prefix);
        if (strncmp(tag, table[i].prefix, n))
            continue;
        const char *rest = tag + n;
        int depth = 8;
        if (*rest == 'p' && table[i].nc == 3)
            rest++;
        if (*rest) {
            char *end;
            long d = strtol(rest, &end, 10);
            if (*end || end == rest || d < 9 || d > 16)
                break;
            depth = (int)d;
        }
        l->nc = table[i].nc;
        l->sx = table[i].sx;
        l->sy = table[i].sy;
        l->depth = depth;
        return XSF_OK;
    }
    return xsf_error_set(err, XSF_ERR_UNSUPPORTED, "Y4M colour space C%s is not supported", tag);
}

static xsf_status y4m_header(imgio_reader *r, xsf_error *err)
{
    char line[1024];
    size_t n = 0;
    int ch;
    while ((ch = getc(r->file)) != EOF && ch != '\n') {
        if (n + 1 >= sizeof line)
            return xsf_error_set(err, XSF_ERR_INVALID, "Y4M header longer than %zu bytes",
                                 sizeof line);
        line[n++] = (char)ch;
    }
    line[n] = '\0';
    if (ch == EOF)
        return xsf_error_set(err, XSF_ERR_TRUNCATED, "file ends inside the Y4M header");
    if (strncmp(line, "YUV4MPEG2", 9) || (line[9] && line[9] != ' '))
        return xsf_error_set(err, XSF_ERR_INVALID, "not a Y4M file (no YUV4MPEG2 signature)");
    long w = 0, h = 0;
    xsf_status st = y4m_colour("420jpeg", &r->layout, err);
    for (char *tok = strtok(line + 9, " "); tok && st == XSF_OK; tok = strtok(NULL, " ")) {
        char *end = tok + 1;
        if (tok[0] == 'W')
            w = strtol(tok + 1, &end, 10);
        else if (tok[0] == 'H')
            h = strtol(tok + 1, &end, 10);
        else if (tok[0] == 'C')
            st = y4m_colour(tok + 1, &r->layout, err);
        else if (tok[0] == 'I' && tok[1] && tok[1] != 'p' && tok[1] != '?')
            return xsf_error_set(err, XSF_ERR_UNSUPPORTED, "interlaced Y4M (I%s)", tok + 1);
        else if (!strcmp(tok, "XCOLORRANGE=FULL") || !strcmp(tok, "XCOLORRANGE=LIMITED")) {
            /* FFmpeg's tag for the range; nothing else in a Y4M header
             * describes the colour. */
            r->colour.range = tok[12] == 'F' ? XSF_RANGE_FULL : XSF_RANGE_NARROW;
            r->colour.source = XSF_COLOUR_CODESTREAM;
        }
        if ((tok[0] == 'W' || tok[0] == 'H') && (*end || end == tok + 1))
            return xsf_error_set(err, XSF_ERR_INVALID, "Y4M header field %s", tok);
    }
    if (st != XSF_OK)
        return st;
    if (w < 1 || h < 1 || w > 65535 || h > 65535)
        return xsf_error_set(err, XSF_ERR_INVALID, "Y4M picture size %ldx%ld (1..65535)", w, h);
    r->layout.width = (int)w;
    r->layout.height = (int)h;
    return shape_layout(r, err);
}

xsf_status imgio_reader_open(imgio_reader **rp, const char *path, imgio_format format,
                             const imgio_raw_layout *raw, xsf_error *err)
{
    *rp = NULL;
    if (format == IMGIO_FORMAT_NONE)
        return xsf_error_set(err, XSF_ERR_ARG, "no input format");
    if (format == IMGIO_FORMAT_YUV && (!raw || raw->nc < 1))
        return xsf_error_set(err, XSF_ERR_ARG, "a .yuv file needs its size and sampling");
    imgio_reader *r = calloc(1, sizeof *r);
    if (!r)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    r->format = format;
    xsf_colour_default(&r->colour);
    if (format == IMGIO_FORMAT_PPM || format == IMGIO_FORMAT_PGM) {
        /* Netpbm samples run from 0 to maxval (P6's are R, G, B: pnm_read). */
        r->colour.range = XSF_RANGE_FULL;
        r->colour.source = XSF_COLOUR_CODESTREAM;
    }
    r->is_stdin = !strcmp(path, "-");
    r->file = r->is_stdin ? stdin : fopen(path, "rb");
    if (!r->file) {
        xsf_status st = xsf_error_set(err, XSF_ERR_IO, "cannot open: %s", strerror(errno));
        free(r);
        return st;
    }
    xsf_status st = XSF_OK;
    if (format == IMGIO_FORMAT_YUV) {
        r->layout = *raw;
        st = shape_layout(r, err);
    } else if (format == IMGIO_FORMAT_Y4M) {
        st = y4m_header(r, err);
    }
    if (st != XSF_OK) {
        imgio_reader_close(r);
        return st;
    }
    *rp = r;
    return XSF_OK;
}

/* Netpbm header number: whitespace and '#' comments before it. */
static xsf_status pnm_number(imgio_reader *r, unsigned long max, unsigned long *v, xsf_error *err)
{
    int ch = getc(r->file);
    for (;;) {
        if (ch == '#') {
            while ((ch = getc(r->file)) != EOF && ch != '\n')
                ;
        } else if (ch != EOF && is_space(ch)) {
            ch = getc(r->file);
        } else {
            break;
        }
    }
    if (ch == EOF)
        return xsf_error_set(err, XSF_ERR_TRUNCATED, "file ends inside the header of image %llu",
                             r->frame);
    if (ch < '0' || ch > '9')
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "header of image %llu: expected a number, "
                             "found '%c'",
                             r->frame, ch);
    unsigned long n = 0;
    while (ch >= '0' && ch <= '9') {
        n = n * 10 + (unsigned long)(ch - '0');
        if (n > max)
            return xsf_error_set(err, XSF_ERR_UNSUPPORTED, "header of image %llu: value above %lu",
                                 r->frame, max);
        ch = getc(r->file);
    }
    /* Exactly one whitespace character ends the last field before the raster. */
    if (ch == EOF || !is_space(ch))
        return xsf_error_set(err, XSF_ERR_INVALID, "header of image %llu: bad number end",
                             r->frame);
    *v = n;
    return XSF_OK;
}

static xsf_status pnm_read(imgio_reader *r, const xsf_picture **pic, xsf_error *err)
{
    int ch = getc(r->file);
    if (ch == EOF) {
        if (ferror(r->file))
            return read_fail(r, "the header", err);
        if (r->frame == 0)
            return xsf_error_set(err, XSF_ERR_TRUNCATED, "empty file");
        return XSF_OK; /* clean end after the last image */
    }
    /* P5 or P6, whichever of .pgm and .ppm the name says. */
    int kind = getc(r->file);
    if (ch != 'P' || (kind != '5' && kind != '6'))
        return xsf_error_set(err, XSF_ERR_INVALID, "image %llu: not a binary PGM/PPM (P5/P6)",
                             r->frame);
    unsigned long w, h, maxval;
    xsf_status st = pnm_number(r, 65535, &w, err);
    if (st == XSF_OK)
        st = pnm_number(r, 65535, &h, err);
    if (st == XSF_OK)
        st = pnm_number(r, 65535, &maxval, err);
    if (st != XSF_OK)
        return st;
    if (w < 1 || h < 1 || maxval < 1)
        return xsf_error_set(err, XSF_ERR_INVALID, "image %llu: size %lux%lu, maxval %lu", r->frame,
                             w, h, maxval);
    int depth = 1;
    while ((1ul << depth) - 1 < maxval)
        depth++;
    const int nc = kind == '6' ? 3 : 1;
    r->colour.matrix = nc == 3 ? XSF_MATRIX_IDENTITY : XSF_MATRIX_UNSPECIFIED;
    r->colour.rgb_order = nc == 3;
    int ws[3] = {(int)w, (int)w, (int)w}, hs[3] = {(int)h, (int)h, (int)h};
    st = shape(r, nc, ws, hs, depth, err);
    if (st == XSF_OK)
        st = own_planes(r, err);
    if (st != XSF_OK)
        return st;
    const int wide = maxval > 255;
    if (nc == 1) {
        st = read_plane(r, &r->pic, 0, wide, 1, (unsigned)maxval, err);
    } else {
        const size_t row_bytes = 3 * (size_t)w * (wide ? 2 : 1);
        for (unsigned long y = 0; y < h && st == XSF_OK; y++) {
            size_t got;
            if (!read_exact(r, r->row, row_bytes, &got))
                return read_fail(r, "the raster", err);
            uint16_t *rgb[3] = {xsf_picture_row16(&r->pic, 0, (int)y),
                                xsf_picture_row16(&r->pic, 1, (int)y),
                                xsf_picture_row16(&r->pic, 2, (int)y)};
            for (unsigned long x = 0; x < 3 * w; x++) {
                unsigned v = wide ? (unsigned)r->row[2 * x] << 8 | r->row[2 * x + 1] : r->row[x];
                if (v > maxval)
                    return xsf_error_set(err, XSF_ERR_INVALID,
                                         "image %llu sample (%lu,%lu) is %u, above maxval %lu",
                                         r->frame, x / 3, y, v, maxval);
                rgb[x % 3][x / 3] = (uint16_t)v;
            }
        }
    }
    if (st != XSF_OK)
        return st;
    r->pic.props.index = r->frame++;
    *pic = &r->pic;
    return XSF_OK;
}

int imgio_reader_format(const imgio_reader *r, xsf_format *fmt)
{
    if (r->format == IMGIO_FORMAT_PPM || r->format == IMGIO_FORMAT_PGM)
        return 0;
    *fmt = r->pic.fmt;
    return 1;
}

/* Whether `pic` can take the frames of a .y4m or .yuv reader (imgio_read_into). */
static xsf_status check_into(const imgio_reader *r, const xsf_picture *pic, xsf_error *err)
{
    const xsf_format *want = &r->pic.fmt, *f = &pic->fmt;
    const int eight = r->layout.depth == 8;
    if (f->container != XSF_PLANAR_U16 && !(f->container == XSF_PLANAR_U8 && eight))
        return xsf_error_set(err, XSF_ERR_ARG, "a %s picture for %d-bit samples (planar16%s)",
                             xsf_container_name(f->container), r->layout.depth,
                             eight ? " or planar8" : "");
    if (pic->memory == XSF_MEMORY_DEVICE)
        return xsf_error_set(err, XSF_ERR_ARG, "a picture in device memory");
    if (f->nc != want->nc)
        return xsf_error_set(err, XSF_ERR_ARG, "a picture of %d components for frames of %d", f->nc,
                             want->nc);
    const size_t bytes = f->container == XSF_PLANAR_U8 ? 1 : 2;
    for (int c = 0; c < f->nc; c++) {
        if (f->width[c] != want->width[c] || f->height[c] != want->height[c] ||
            f->depth[c] != want->depth[c])
            return xsf_error_set(err, XSF_ERR_ARG,
                                 "component %d of the picture is %dx%d at %d bits, of the frames "
                                 "%dx%d at %d",
                                 c, f->width[c], f->height[c], f->depth[c], want->width[c],
                                 want->height[c], want->depth[c]);
        if (!pic->data[c] || pic->stride[c] < (size_t)f->width[c] * bytes)
            return xsf_error_set(err, XSF_ERR_ARG, "component %d: no plane, or rows of %zu bytes",
                                 c, pic->stride[c]);
    }
    return XSF_OK;
}

/* A .y4m or .yuv frame into `pic` (check_into's); *got 0 at the clean end. */
static xsf_status read_frame(imgio_reader *r, xsf_picture *pic, int *got, xsf_error *err)
{
    *got = 0;
    if (r->format == IMGIO_FORMAT_Y4M) {
        char line[256];
        size_t n = 0;
        int ch;
        while ((ch = getc(r->file)) != EOF && ch != '\n' && n + 1 < sizeof line)
            line[n++] = (char)ch;
        line[n] = '\0';
        if (ch == EOF && n == 0)
            return ferror(r->file) ? read_fail(r, "a frame header", err) : XSF_OK;
        if (ch != '\n' || strncmp(line, "FRAME", 5) || (line[5] && line[5] != ' '))
            return xsf_error_set(err, XSF_ERR_INVALID, "frame %llu: expected a FRAME header",
                                 r->frame);
    } else {
        /* .yuv: the end of the file is clean only between frames. */
        int ch = getc(r->file);
        if (ch == EOF)
            return ferror(r->file) ? read_fail(r, "a frame", err) : XSF_OK;
        ungetc(ch, r->file);
    }
    const unsigned maxval = (1u << r->layout.depth) - 1;
    for (int c = 0; c < pic->fmt.nc; c++) {
        xsf_status st = read_plane(r, pic, c, r->layout.depth > 8, 0, maxval, err);
        if (st != XSF_OK)
            return st;
    }
    pic->colour = r->colour;
    pic->props = (xsf_picture_props){.index = r->frame++};
    *got = 1;
    return XSF_OK;
}

xsf_status imgio_read(imgio_reader *r, const xsf_picture **pic, xsf_error *err)
{
    *pic = NULL;
    if (r->format == IMGIO_FORMAT_PPM || r->format == IMGIO_FORMAT_PGM)
        return pnm_read(r, pic, err);
    int got = 0;
    xsf_status st = own_planes(r, err);
    if (st == XSF_OK && (st = read_frame(r, &r->pic, &got, err)) == XSF_OK && got)
        *pic = &r->pic;
    return st;
}

xsf_status imgio_read_into(imgio_reader *r, xsf_picture *pic, int *got, xsf_error *err)
{
    *got = 0;
    if (r->format != IMGIO_FORMAT_PPM && r->format != IMGIO_FORMAT_PGM) {
        const xsf_status st = check_into(r, pic, err);
        return st == XSF_OK ? read_frame(r, pic, got, err) : st;
    }
    const xsf_picture *image = NULL;
    xsf_status st = imgio_read(r, &image, err);
    if (st != XSF_OK || !image)
        return st;
    if (!xsf_format_equal(&image->fmt, &pic->fmt) || pic->memory == XSF_MEMORY_DEVICE)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "image %llu (%dx%d, %d components at %d bits) does not fit the "
                             "picture",
                             r->frame - 1, image->fmt.width[0], image->fmt.height[0], image->fmt.nc,
                             image->fmt.depth[0]);
    if ((st = xsf_picture_copy(pic, image, err)) == XSF_OK)
        *got = 1;
    return st;
}

void imgio_reader_close(imgio_reader *r)
{
    if (!r)
        return;
    if (r->file && !r->is_stdin)
        fclose(r->file);
    free(r->samples);
    free(r->row);
    free(r);
}

xsf_status imgio_read_picture(const char *path, imgio_format format, const imgio_raw_layout *raw,
                              xsf_picture *pic, xsf_error *err)
{
    xsf_picture_init(pic);
    imgio_reader *rd = NULL;
    const xsf_picture *frame = NULL;
    xsf_status st = imgio_reader_open(&rd, path, format, raw, err);
    if (st == XSF_OK && (st = imgio_read(rd, &frame, err)) == XSF_OK && !frame)
        st = xsf_error_set(err, XSF_ERR_INVALID, "no picture in the file");
    if (st == XSF_OK) {
        pic->fmt = frame->fmt;
        pic->colour = frame->colour;
        st = xsf_picture_alloc(pic, NULL, err);
        if (st == XSF_OK && (st = xsf_picture_copy(pic, frame, err)) != XSF_OK)
            xsf_picture_unref(pic);
    }
    imgio_reader_close(rd);
    return st;
}

xsf_status imgio_read_file(const char *path, uint8_t **data, size_t *len, xsf_error *err)
{
    *data = NULL;
    *len = 0;
    const int is_stdin = !strcmp(path, "-");
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return xsf_error_set(err, XSF_ERR_IO, "cannot open: %s", strerror(errno));
    size_t cap = 0, n = 0;
    uint8_t *buf = NULL;
    xsf_status st = XSF_OK;
    for (;;) {
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 1 << 16;
            uint8_t *b = ncap > cap ? realloc(buf, ncap) : NULL;
            if (!b) {
                st = xsf_error_set(err, XSF_ERR_NOMEM, "out of memory after %zu bytes", n);
                break;
            }
            buf = b;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                st = xsf_error_set(err, XSF_ERR_IO, "read failed: %s", strerror(errno));
            break;
        }
    }
    if (!is_stdin)
        fclose(f);
    if (st != XSF_OK) {
        free(buf);
        return st;
    }
    *data = buf;
    *len = n;
    return XSF_OK;
}

xsf_status imgio_map_file(const char *path, imgio_mapped *m, xsf_error *err)
{
    memset(m, 0, sizeof *m);
    if (strcmp(path, "-")) {
        const int fd = open(path, O_RDONLY);
        if (fd < 0)
            return xsf_error_set(err, XSF_ERR_IO, "cannot open: %s", strerror(errno));
        struct stat sb;
        if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
            void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
            close(fd);
            if (p == MAP_FAILED)
                return xsf_error_set(err, XSF_ERR_IO, "cannot map: %s", strerror(errno));
            m->data = p;
            m->len = (size_t)sb.st_size;
            m->mapped = 1;
            return XSF_OK;
        }
        close(fd);
    }
    /* Standard input, pipes and empty files: read into memory. */
    uint8_t *data;
    xsf_status st = imgio_read_file(path, &data, &m->len, err);
    m->data = data;
    return st;
}

void imgio_unmap_file(imgio_mapped *m)
{
    if (m->mapped)
        munmap((void *)m->data, m->len);
    else
        free((void *)m->data);
    memset(m, 0, sizeof *m);
}
