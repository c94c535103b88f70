/* pixel_check: a picture file that `xsflow decode` or `xsflow play
 * --headless` wrote, compared sample for sample with the C reference
 * decoder's planes of the same vector, laid out and converted here.
 *
 * The conversion is written again on purpose, from the documentation and not
 * from imgio/ or display/: docs/COMMANDS.md ("decode" writes), `xsflow decode
 * --help` and `xsflow play --help`. A test that reused the code under test
 * could not see it change meaning (decode's and play's `gbr` once differed by
 * 20 code values while every test passed).
 *
 * usage: pixel_check VECTOR.jxs FORMAT FILE [--colour C] [--frame N] [--frames N]
 *                    [--tile X,Y,W,H] [--tolerance T]
 *   yuv, y4m  every frame of FILE (all of VECTOR's, or the first --frames N),
 *             exact: planar, 8 bits as one byte, deeper as two little-endian
 *   pgm       frame --frame N (0): its first component, exact (big-endian above 8 bits)
 *   ppm       frame N as `decode` writes it: R'G'B' at the picture's depth,
 *             --colour in decode's words (bt709 default, rgb for RCT codestreams)
 *   play      frame N as `play --headless` shows it: 8-bit R'G'B', --colour in
 *             play's words (709,narrow default); with --tile, shown scaled into
 *             that rectangle of a larger picture (a multiviewer tile)
 *   --tolerance  the largest difference in code values (default: 0 for yuv,
 *             y4m, pgm; 1 for ppm and play, rounding of a conversion in
 *             floating point; 2 with --tile, the GPU's filtering weights)
 * pixel_check --same A.ppm B.ppm: two 8-bit pictures (decode's .ppm, play's)
 * are one within 1 code value.
 * Exit status 0 when the file matches, 1 (with the first difference) when not,
 * 2 on a usage error. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xs.h"

/* One line on stderr; returns 1 (a failed check). */
__attribute__((format(printf, 1, 2))) static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pixel_check: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    *len = 0;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        const long n = ftell(f);
        if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n)) &&
            fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        *len = buf ? (size_t)n : 0;
    }
    fclose(f);
    return buf;
}

/* ---- The documented colour conversions ---- */

/* What components 0, 1, 2 are: Y'CbCr with the BT matrix of Kr, Kb (Rec. ITU-R
 * BT.601-7 / BT.709-6 / BT.2020-2 table 4), or R'G'B' in some order. */
typedef struct colour {
    int ycbcr;
    double kr, kb;
    int full; /* full range: 0..2^B-1 (chroma centred on 2^(B-1)); narrow: 16..235/240 x 2^(B-8) */
    int order[3]; /* R', G', B' from these components (R'G'B' only) */
} colour;

static const colour col_bt709 = {1, 0.2126, 0.0722, 0, {0}}, col_bt601 = {1, 0.299, 0.114, 0, {0}},
                    col_bt2020 = {1, 0.2627, 0.0593, 0, {0}};
/* rgb and gbr take the components as they are (docs/COMMANDS.md: "rgb or gbr to take
 * the components as they are"): full range unless play is told ",narrow". */
static const colour col_rgb = {0, 0, 0, 1, {0, 1, 2}}, col_gbr = {0, 0, 0, 1, {2, 0, 1}};

/* decode --colour: bt709, bt601, bt709-full, bt601-full, rgb, gbr. */
static int decode_colour(const char *s, colour *c)
{
    const struct {
        const char *name;
        const colour *c;
        int full;
    } names[] = {{"bt709", &col_bt709, 0},      {"bt601", &col_bt601, 0},
                 {"bt709-full", &col_bt709, 1}, {"bt601-full", &col_bt601, 1},
                 {"rgb", &col_rgb, 1},          {"gbr", &col_gbr, 1}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i].name)) {
            *c = *names[i].c;
            c->full = names[i].full;
            return 0;
        }
    return -1;
}

/* play --colour: 601, 709, 2020 (or bt601...), rgb, gbr, then ,full or ,narrow. */
static int play_colour(const char *s, colour *c)
{
    char name[16];
    const char *comma = strchr(s, ',');
    const size_t n = comma ? (size_t)(comma - s) : strlen(s);
    if (n >= sizeof name)
        return -1;
    memcpy(name, s, n);
    name[n] = 0;
    const char *m = !strncmp(name, "bt", 2) ? name + 2 : name;
    if (!strcmp(m, "709"))
        *c = col_bt709;
    else if (!strcmp(m, "601"))
        *c = col_bt601;
    else if (!strcmp(m, "2020"))
        *c = col_bt2020;
    else if (!strcmp(name, "rgb"))
        *c = col_rgb;
    else if (!strcmp(name, "gbr"))
        *c = col_gbr;
    else
        return -1;
    if (comma && !strcmp(comma + 1, "full"))
        c->full = 1;
    else if (comma && !strcmp(comma + 1, "narrow"))
        c->full = 0;
    else if (comma)
        return -1;
    return 0;
}

/* Pixel (x, y) of `img` as R'G'B' in 0..1 (clamped): chroma upsampled by
 * sample replication (docs/COMMANDS.md), then the matrix: R' = Y' + 2(1-Kr) Pr,
 * B' = Y' + 2(1-Kb) Pb, G' = (Y' - Kr R' - Kb B') / (1 - Kr - Kb). */
static void to_rgb(const xsf_picture *img, const colour *c, int x, int y, double out[3])
{
    const int d = img->fmt.depth[0];
    const double maxv = ldexp(1, d) - 1, unit = ldexp(1, d - 8);
    double s[3];
    for (int k = 0; k < 3; k++) {
        /* Component k's sample under pixel (x, y): a subsampled plane is half
         * as wide (high), rounded up. */
        const int n = img->fmt.width[k] < img->fmt.width[0] ? 2 : 1,
                  m = img->fmt.height[k] < img->fmt.height[0] ? 2 : 1;
        s[k] = xsf_picture_row16(img, k, y / m)[(size_t)(x / n)];
    }
    double e[3];
    if (c->ycbcr) {
        const double yy = c->full ? s[0] / maxv : (s[0] - 16 * unit) / (219 * unit);
        const double pb =
            c->full ? (s[1] - ldexp(1, d - 1)) / maxv : (s[1] - 128 * unit) / (224 * unit);
        const double pr =
            c->full ? (s[2] - ldexp(1, d - 1)) / maxv : (s[2] - 128 * unit) / (224 * unit);
        e[0] = yy + 2 * (1 - c->kr) * pr;
        e[2] = yy + 2 * (1 - c->kb) * pb;
        e[1] = (yy - c->kr * e[0] - c->kb * e[2]) / (1 - c->kr - c->kb);
    } else {
        for (int k = 0; k < 3; k++) {
            const double v = s[c->order[k]];
            e[k] = c->full ? v / maxv : (v - 16 * unit) / (219 * unit);
        }
    }
    for (int k = 0; k < 3; k++)
        out[k] = e[k] < 0 ? 0 : e[k] > 1 ? 1 : e[k];
}

/* ---- The files ---- */

typedef struct cursor {
    const uint8_t *p;
    size_t left;
    const char *path;
} cursor;

/* Reads the netpbm header "P<magic>\nW H\nMAX\n". */
static int netpbm_header(cursor *f, char magic, int *w, int *h, int *maxval)
{
    char text[64];
    const size_t n = f->left < sizeof text - 1 ? f->left : sizeof text - 1;
    memcpy(text, f->p, n);
    text[n] = 0;
    int used = 0;
    char m;
    if (sscanf(text, "P%c\n%d %d\n%d%n", &m, w, h, maxval, &used) != 4 || m != magic || used <= 0 ||
        (size_t)used >= n || text[used] != '\n')
        return fail("%s: not a P%c netpbm file", f->path, magic);
    f->p += used + 1;
    f->left -= (size_t)used + 1;
    return 0;
}

/* Compares one sample; reports the first difference over the tolerance. */
typedef struct compare {
    const char *path;
    int tolerance, worst;
    long bad;
} compare;

static void sample(compare *c, int got, int want, int frame, int comp, int x, int y)
{
    const int diff = abs(got - want);
    if (diff > c->worst)
        c->worst = diff;
    if (diff > c->tolerance && c->bad++ == 0)
        fprintf(stderr, "pixel_check: %s: frame %d component %d at (%d, %d): %d, expected %d\n",
                c->path, frame, comp, x, y, got, want);
}

/* Reads one sample of `bytes` bytes, big- or little-endian. */
static int take(cursor *f, int bytes, int big_endian)
{
    int v = f->p[0];
    if (bytes == 2)
        v = big_endian ? (f->p[0] << 8 | f->p[1]) : (f->p[1] << 8 | f->p[0]);
    f->p += bytes;
    f->left -= (size_t)bytes;
    return v;
}

/* The .yuv layout of one frame, exact. */
static int planar(cursor *f, const xsf_picture *img, compare *c, int frame)
{
    for (int k = 0; k < img->fmt.nc; k++) {
        const int bytes = img->fmt.depth[k] > 8 ? 2 : 1;
        if (f->left < (size_t)img->fmt.width[k] * img->fmt.height[k] * bytes)
            return fail("%s: ends in frame %d", c->path, frame);
        for (int y = 0; y < img->fmt.height[k]; y++)
            for (int x = 0; x < img->fmt.width[k]; x++)
                sample(c, take(f, bytes, 0), xsf_picture_row16(img, k, y)[x], frame, k, x, y);
    }
    return 0;
}

static int pgm(cursor *f, const xsf_picture *img, compare *c, int frame)
{
    int w, h, maxval;
    if (netpbm_header(f, '5', &w, &h, &maxval))
        return 1;
    const int d = img->fmt.depth[0], bytes = d > 8 ? 2 : 1;
    if (w != img->fmt.width[0] || h != img->fmt.height[0] || maxval != (1 << d) - 1 ||
        f->left != (size_t)w * h * bytes)
        return fail("%s: %dx%d maxval %d, not the picture's header or size", c->path, w, h, maxval);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            sample(c, take(f, bytes, 1), xsf_picture_row16(img, 0, y)[x], frame, 0, x, y);
    return 0;
}

/* decode's .ppm: R'G'B' at the picture's depth. */
static int ppm(cursor *f, const xsf_picture *img, const colour *col, compare *c, int frame)
{
    int w, h, maxval;
    if (netpbm_header(f, '6', &w, &h, &maxval))
        return 1;
    const int d = img->fmt.depth[0], bytes = d > 8 ? 2 : 1;
    if (w != img->fmt.width[0] || h != img->fmt.height[0] || maxval != (1 << d) - 1 ||
        f->left != (size_t)w * h * 3 * bytes)
        return fail("%s: %dx%d maxval %d, not the picture's header or size", c->path, w, h, maxval);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double e[3];
            to_rgb(img, col, x, y, e);
            for (int k = 0; k < 3; k++)
                sample(c, take(f, bytes, 1), (int)floor(e[k] * ((1 << d) - 1) + 0.5), frame, k, x,
                       y);
        }
    return 0;
}

/* play's 8-bit .ppm: the picture, or the picture scaled into `tile` of it
 * (bilinear between pixel centres, clamped at the edges: GL_LINEAR). */
static int play(cursor *f, const xsf_picture *img, const colour *col, const int tile[4], compare *c,
                int frame)
{
    int w, h, maxval;
    if (netpbm_header(f, '6', &w, &h, &maxval))
        return 1;
    const int pw = img->fmt.width[0], ph = img->fmt.height[0];
    const int tx = tile ? tile[0] : 0, ty = tile ? tile[1] : 0, tw = tile ? tile[2] : pw,
              th = tile ? tile[3] : ph;
    if (maxval != 255 || f->left != (size_t)w * h * 3 || tx < 0 || ty < 0 || tx + tw > w ||
        ty + th > h)
        return fail("%s: %dx%d maxval %d does not hold the picture", c->path, w, h, maxval);
    double *shown = malloc(sizeof(double) * 3 * (size_t)pw * ph);
    if (!shown)
        return fail("out of memory");
    for (int y = 0; y < ph; y++)
        for (int x = 0; x < pw; x++)
            to_rgb(img, col, x, y, shown + 3 * ((size_t)y * pw + x));
    for (int y = 0; y < th; y++)
        for (int x = 0; x < tw; x++) {
            const double sx = (x + 0.5) * pw / tw - 0.5, sy = (y + 0.5) * ph / th - 0.5;
            const int x0 = (int)floor(sx), y0 = (int)floor(sy);
            const double fx = sx - x0, fy = sy - y0;
            const int xa = x0 < 0 ? 0 : x0, xb = x0 + 1 >= pw ? pw - 1 : x0 + 1;
            const int ya = y0 < 0 ? 0 : y0, yb = y0 + 1 >= ph ? ph - 1 : y0 + 1;
            const uint8_t *got = f->p + 3 * ((size_t)(ty + y) * w + tx + x);
            for (int k = 0; k < 3; k++) {
#define AT(xx, yy) shown[3 * ((size_t)(yy)*pw + (xx)) + k]
                const double v = (1 - fy) * ((1 - fx) * AT(xa, ya) + fx * AT(xb, ya)) +
                                 fy * ((1 - fx) * AT(xa, yb) + fx * AT(xb, yb));
#undef AT
                sample(c, got[k], (int)floor(v * 255 + 0.5), frame, k, tx + x, ty + y);
            }
        }
    free(shown);
    return 0;
}

/* Two P6 files of one size and maxval, sample by sample. */
static int same(const char *a, const char *b)
{
    size_t alen, blen;
    uint8_t *adata = read_file(a, &alen), *bdata = read_file(b, &blen);
    cursor fa = {adata, alen, a}, fb = {bdata, blen, b};
    int aw, ah, amax, bw, bh, bmax, status = 1;
    if (!adata || !bdata)
        fail("cannot read %s (or it is empty)", adata ? b : a);
    else if (!netpbm_header(&fa, '6', &aw, &ah, &amax) &&
             !netpbm_header(&fb, '6', &bw, &bh, &bmax)) {
        if (aw != bw || ah != bh || amax != bmax || amax != 255 || fa.left != fb.left ||
            fa.left != (size_t)aw * ah * 3)
            fail("%s is %dx%d maxval %d, %s %dx%d maxval %d", a, aw, ah, amax, b, bw, bh, bmax);
        else {
            compare c = {b, 1, 0, 0};
            for (size_t i = 0; i < fa.left; i++)
                sample(&c, fb.p[i], fa.p[i], 0, (int)(i % 3), (int)(i / 3 % (size_t)aw),
                       (int)(i / 3 / (size_t)aw));
            status = c.bad ? fail("%s: %ld samples differ from %s by more than 1", b, c.bad, a) : 0;
            if (!status)
                printf("%s and %s: one picture, largest difference %d\n", a, b, c.worst);
        }
    }
    free(adata);
    free(bdata);
    return status;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--same"))
        return same(argv[2], argv[3]);
    if (argc < 4) {
        fprintf(stderr,
                "usage: pixel_check VECTOR.jxs yuv|y4m|pgm|ppm|play FILE [--colour C] [--frame N] "
                "[--frames N] [--tile X,Y,W,H] [--tolerance T]\n");
        return 2;
    }
    const char *vector = argv[1], *format = argv[2], *path = argv[3], *colour_name = NULL;
    long frame = 0, frames = -1, tolerance = -1;
    int tile[4], have_tile = 0;
    for (int i = 4; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--colour"))
            colour_name = argv[i + 1];
        else if (!strcmp(argv[i], "--frame"))
            frame = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--frames"))
            frames = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--tolerance"))
            tolerance = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--tile") &&
                 sscanf(argv[i + 1], "%d,%d,%d,%d", &tile[0], &tile[1], &tile[2], &tile[3]) == 4)
            have_tile = 1;
        else
            return fprintf(stderr, "pixel_check: bad option %s\n", argv[i]), 2;
    }
    if ((argc - 4) % 2)
        return fprintf(stderr, "pixel_check: %s wants a value\n", argv[argc - 1]), 2;
    const int multi = !strcmp(format, "yuv") || !strcmp(format, "y4m");
    if (!multi && strcmp(format, "pgm") && strcmp(format, "ppm") && strcmp(format, "play"))
        return fprintf(stderr, "pixel_check: unknown format %s\n", format), 2;
    compare cmp = {path, (int)tolerance, 0, 0};
    if (tolerance < 0)
        cmp.tolerance = multi || !strcmp(format, "pgm") ? 0 : have_tile ? 2 : 1;

    size_t vlen, flen;
    uint8_t *vdata = read_file(vector, &vlen), *fdata = read_file(path, &flen);
    if (!vdata || !fdata)
        return fail("cannot read %s (or it is empty)", vdata ? path : vector);
    cursor f = {fdata, flen, path};
    if (!strcmp(format, "y4m")) { /* the stream header; each frame's "FRAME\n" below */
        const uint8_t *nl = memchr(f.p, '\n', f.left);
        if (flen < 10 || memcmp(f.p, "YUV4MPEG2 ", 10) || !nl)
            return fail("%s: no YUV4MPEG2 header", path);
        f.left -= (size_t)(nl + 1 - f.p);
        f.p = nl + 1;
    }
    xs_decoder *dec = NULL;
    if (xs_decoder_create(&dec, NULL) != XSF_OK)
        return fail("cannot create the C decoder");
    int status = 0, checked = 0;
    size_t off = 0;
    for (int n = 0; off < vlen && !status && (frames < 0 || n < frames); n++) {
        const xsf_picture *img = NULL;
        size_t used = 0;
        if (xs_decode(dec, vdata + off, vlen - off, &used, &img) != XSF_OK) {
            fprintf(stderr, "pixel_check: %s frame %d: %s\n", vector, n, xs_decoder_error(dec));
            status = 1;
            break;
        }
        off += used;
        if (!multi && n != frame)
            continue;
        colour col = xs_decoder_header(dec)->cpih == 1 ? col_rgb : col_bt709;
        if (colour_name && (!strcmp(format, "ppm") ? decode_colour(colour_name, &col)
                                                   : play_colour(colour_name, &col)))
            return fprintf(stderr, "pixel_check: unknown colour %s\n", colour_name), 2;
        if ((!strcmp(format, "ppm") || !strcmp(format, "play")) && img->fmt.nc < 3)
            return fail("%s: %d components, R'G'B' needs 3", vector, img->fmt.nc);
        if (!strcmp(format, "y4m")) {
            if (f.left < 6 || memcmp(f.p, "FRAME\n", 6)) {
                status = fail("%s: no FRAME line before frame %d", path, n);
                break;
            }
            f.p += 6, f.left -= 6;
        }
        status = multi                    ? planar(&f, img, &cmp, n)
                 : !strcmp(format, "pgm") ? pgm(&f, img, &cmp, n)
                 : !strcmp(format, "ppm") ? ppm(&f, img, &col, &cmp, n)
                                          : play(&f, img, &col, have_tile ? tile : NULL, &cmp, n);
        checked++;
    }
    if (!status && multi && f.left)
        status = fail("%s: %zu bytes after the last frame", path, f.left);
    if (!status && (checked == 0 || (frames > 0 && checked != frames)))
        status = fail("%s: %d frames compared (frame %ld wanted, %ld frames)", path, checked, frame,
                      frames);
    if (!status && cmp.bad)
        status = fail("%s: %ld samples differ by more than %d", path, cmp.bad, cmp.tolerance);
    if (!status)
        printf("%s: %d frame%s as the C decoder's (%s%s%s), largest difference %d\n", path, checked,
               checked == 1 ? "" : "s", format, colour_name ? " " : "",
               colour_name ? colour_name : "", cmp.worst);
    xs_decoder_destroy(dec);
    free(vdata);
    free(fdata);
    return status;
}
