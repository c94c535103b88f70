/* Tests of the program's picture files (app/image_io.h): every writer read
 * back by its reader, the Y4M tags, the PPM colour conversion and
 * upsampling, the formats refused, reader errors; and the MD5 wrapper on
 * the RFC 1321 test suite. Writes its files in the current directory. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "image_io.h"
#include "md5.h"

typedef struct owned_picture {
    xsf_picture pic;
    uint16_t *mem;
} owned_picture;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* A picture of random samples: nc components, chroma subsampled by sx, sy
 * (sizes rounded up), `pad` samples of padding at the end of each row. */
static owned_picture make(int nc, int w, int h, int sx, int sy, int depth, int pad)
{
    owned_picture o;
    memset(&o, 0, sizeof o);
    size_t total = 0;
    for (int c = 0; c < nc; c++) {
        const int cw = c ? (w + sx - 1) / sx : w, ch = c ? (h + sy - 1) / sy : h;
        total += (size_t)(cw + pad) * ch;
    }
    o.mem = malloc(total * sizeof(uint16_t));
    xsf_picture_init(&o.pic);
    o.pic.fmt.nc = nc;
    size_t off = 0;
    for (int c = 0; c < nc; c++) {
        xsf_picture *p = &o.pic;
        p->fmt.width[c] = c ? (w + sx - 1) / sx : w;
        p->fmt.height[c] = c ? (h + sy - 1) / sy : h;
        p->fmt.depth[c] = depth;
        p->stride[c] = ((size_t)p->fmt.width[c] + (size_t)pad) * sizeof(uint16_t);
        p->data[c] = (uint8_t *)(o.mem + off);
        off += (p->stride[c] / 2) * (size_t)p->fmt.height[c];
        for (size_t i = 0; i < (p->stride[c] / 2) * (size_t)p->fmt.height[c]; i++)
            ((uint16_t *)p->data[c])[i] = (uint16_t)(rnd() & ((1u << depth) - 1));
    }
    return o;
}

/* Three w x h planes of `depth` bits, rows packed. */
static xsf_picture three_planes(int w, int h, int depth, uint16_t *c0, uint16_t *c1, uint16_t *c2)
{
    const xsf_format f = {.container = XSF_PLANAR_U16,
                          .nc = 3,
                          .width = {w, w, w},
                          .height = {h, h, h},
                          .depth = {depth, depth, depth}};
    uint8_t *data[3] = {(uint8_t *)c0, (uint8_t *)c1, (uint8_t *)c2};
    const size_t stride[3] = {(size_t)w * 2, (size_t)w * 2, (size_t)w * 2};
    xsf_picture p;
    xsf_picture_wrap(&p, &f, data, stride, XSF_MEMORY_HOST, -1);
    return p;
}

static int same_planes(const xsf_picture *a, const xsf_picture *b, int ncomp)
{
    for (int c = 0; c < ncomp; c++) {
        if (a->fmt.width[c] != b->fmt.width[c] || a->fmt.height[c] != b->fmt.height[c] ||
            a->fmt.depth[c] != b->fmt.depth[c])
            return 0;
        for (int y = 0; y < a->fmt.height[c]; y++)
            if (memcmp(xsf_picture_row16(a, c, y), xsf_picture_row16(b, c, y),
                       sizeof(uint16_t) * (size_t)a->fmt.width[c]))
                return 0;
    }
    return 1;
}

static xsf_status write_frames(const char *path, imgio_format f, const xsf_picture *pic, int frames,
                               xsf_error *err)
{
    imgio_write_options opt = {.format = f};
    xsf_colour_rgb(&opt.colour, XSF_COLOUR_USER);
    imgio_writer *w;
    xsf_status st = imgio_writer_open(&w, path, &opt, err);
    for (int i = 0; st == XSF_OK && i < frames; i++)
        st = imgio_write(w, pic, err);
    xsf_status cst = imgio_writer_close(w, err);
    return st != XSF_OK ? st : cst;
}

static char *slurp(const char *path, size_t *n)
{
    uint8_t *data;
    xsf_error err;
    xsf_error_clear(&err);
    if (imgio_read_file(path, &data, n, &err) != XSF_OK)
        return NULL;
    return (char *)data;
}

static void test_round_trip(const char *path, imgio_format f, int nc, int w, int h, int sx, int sy,
                            int depth, const char *y4m_header)
{
    owned_picture o = make(nc, w, h, sx, sy, depth, 3);
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(write_frames(path, f, &o.pic, 2, &err) == XSF_OK, "%s: write: %s", path, err.msg);
    if (y4m_header) {
        size_t n;
        char *text = slurp(path, &n);
        CHECK(text && n > strlen(y4m_header) && !memcmp(text, y4m_header, strlen(y4m_header)),
              "%s: header is not '%s'", path, y4m_header);
        free(text);
    }
    imgio_raw_layout layout;
    const char *sampling = nc == 1 ? "mono" : sx == 1 ? "444" : sy == 1 ? "422" : "420";
    CHECK(imgio_raw_layout_make(&layout, sampling, w, h, depth, &err) == XSF_OK, "layout: %s",
          err.msg);
    imgio_reader *r;
    CHECK(imgio_reader_open(&r, path, f, &layout, &err) == XSF_OK, "%s: open: %s", path, err.msg);
    int frames = 0;
    for (;;) {
        const xsf_picture *pic;
        xsf_status st = imgio_read(r, &pic, &err);
        CHECK(st == XSF_OK, "%s: read: %s", path, err.msg);
        if (st != XSF_OK || !pic)
            break;
        const int ncomp = f == IMGIO_FORMAT_PGM ? 1 : nc;
        CHECK(pic->fmt.nc == ncomp && same_planes(pic, &o.pic, ncomp), "%s: frame %d differs", path,
              frames);
        frames++;
    }
    CHECK(frames == 2, "%s: %d frames read back", path, frames);
    imgio_reader_close(r);
    free(o.mem);
}

static void test_y4m_refusals(void)
{
    const struct {
        int nc, sx, sy, depth;
        const char *why;
    } cases[] = {
        {3, 2, 1, 11, "11-bit"},      {3, 2, 1, 13, "13-bit"},      {1, 1, 1, 14, "14-bit"},
        {2, 1, 1, 8, "2 components"}, {4, 1, 1, 8, "4 components"}, {3, 1, 2, 10, "4:4:0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        owned_picture o = make(cases[i].nc, 16, 8, cases[i].sx, cases[i].sy, cases[i].depth, 0);
        imgio_write_options opt = {.format = IMGIO_FORMAT_Y4M};
        xsf_error err;
        xsf_error_clear(&err);
        CHECK(imgio_check(&opt, &o.pic, &err) == XSF_ERR_UNSUPPORTED && strstr(err.msg, "Y4M"),
              "Y4M accepted %s (%s)", cases[i].why, err.msg);
        /* The writer refuses it too, and leaves no file behind. */
        remove("refused.y4m");
        xsf_error_clear(&err);
        CHECK(write_frames("refused.y4m", IMGIO_FORMAT_Y4M, &o.pic, 1, &err) != XSF_OK,
              "Y4M writer accepted %s", cases[i].why);
        FILE *f = fopen("refused.y4m", "rb");
        CHECK(!f, "a refused %s picture left refused.y4m behind", cases[i].why);
        if (f)
            fclose(f);
        free(o.mem);
    }
    /* Mixed depths. */
    owned_picture o = make(3, 16, 8, 2, 1, 10, 0);
    o.pic.fmt.depth[2] = 12;
    imgio_write_options opt = {.format = IMGIO_FORMAT_Y4M};
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(imgio_check(&opt, &o.pic, &err) != XSF_OK, "Y4M accepted mixed depths");
    opt.format = IMGIO_FORMAT_PPM;
    xsf_error_clear(&err);
    CHECK(imgio_check(&opt, &o.pic, &err) != XSF_OK, "PPM accepted mixed depths");
    free(o.mem);
}

static void test_ppm(void)
{
    xsf_error err;
    /* 4:2:2 written as RGB as it is: chroma replicated to full width. */
    owned_picture o = make(3, 9, 4, 2, 1, 12, 1);
    imgio_write_options opt = {.format = IMGIO_FORMAT_PPM};
    xsf_colour_rgb(&opt.colour, XSF_COLOUR_USER);
    imgio_writer *w;
    xsf_error_clear(&err);
    CHECK(imgio_writer_open(&w, "up.ppm", &opt, &err) == XSF_OK &&
              imgio_write(w, &o.pic, &err) == XSF_OK && imgio_writer_close(w, &err) == XSF_OK,
          "up.ppm: %s", err.msg);
    size_t n;
    char *text = slurp("up.ppm", &n);
    const char *head = "P6\n9 4\n4095\n";
    CHECK(text && n == strlen(head) + 9 * 4 * 3 * 2 && !memcmp(text, head, strlen(head)),
          "up.ppm: %zu bytes, header '%.12s'", n, text ? text : "");
    free(text);
    imgio_reader *r;
    const xsf_picture *pic = NULL;
    xsf_error_clear(&err);
    CHECK(imgio_reader_open(&r, "up.ppm", IMGIO_FORMAT_PPM, NULL, &err) == XSF_OK &&
              imgio_read(r, &pic, &err) == XSF_OK && pic,
          "up.ppm: read: %s", err.msg);
    if (pic) {
        int ok = pic->fmt.nc == 3 && pic->fmt.width[1] == 9 && pic->fmt.depth[0] == 12;
        for (int y = 0; ok && y < 4; y++)
            for (int x = 0; x < 9; x++)
                for (int c = 0; c < 3; c++)
                    ok &= ((uint16_t *)pic->data[c])[y * 9 + x] ==
                          xsf_picture_row16(&o.pic, c, y)[(size_t)(c ? x / 2 : x)];
        CHECK(ok, "up.ppm: samples are not component 0 with chroma replicated");
    }
    imgio_reader_close(r);
    free(o.mem);

    /* BT.709 narrow range at 10 bits: black, white, and GBR order. */
    uint16_t y[4] = {64, 940, 0, 0}, cb[4] = {512, 512, 0, 0}, cr[4] = {512, 512, 0, 0};
    xsf_picture p = three_planes(2, 1, 10, y, cb, cr);
    xsf_colour_parse("bt709", &opt.colour, NULL);
    xsf_error_clear(&err);
    CHECK(imgio_writer_open(&w, "bw.ppm", &opt, &err) == XSF_OK &&
              imgio_write(w, &p, &err) == XSF_OK && imgio_writer_close(w, &err) == XSF_OK,
          "bw.ppm: %s", err.msg);
    text = slurp("bw.ppm", &n);
    const char *bw_head = "P6\n2 1\n1023\n";
    const unsigned char bw_samples[12] = {0, 0, 0, 0, 0, 0, 3, 255, 3, 255, 3, 255};
    CHECK(text && n == strlen(bw_head) + 12 && !memcmp(text + strlen(bw_head), bw_samples, 12),
          "bw.ppm: BT.709 black and white are not 0 and 1023");
    free(text);

    /* BT.709 narrow-range blue at 10 bits: Y' = Kb, Pb = 0.5,
     * Pr = -Kb / (2 (1 - Kr)); codes 127, 960, 471 give R G B 0 0 1023. */
    uint16_t by[1] = {127}, bcb[1] = {960}, bcr[1] = {471};
    xsf_picture blue = three_planes(1, 1, 10, by, bcb, bcr);
    xsf_error_clear(&err);
    CHECK(imgio_writer_open(&w, "blue.ppm", &opt, &err) == XSF_OK &&
              imgio_write(w, &blue, &err) == XSF_OK && imgio_writer_close(w, &err) == XSF_OK,
          "blue.ppm: %s", err.msg);
    text = slurp("blue.ppm", &n);
    const char *blue_head = "P6\n1 1\n1023\n";
    const unsigned char blue_samples[6] = {0, 0, 0, 0, 3, 255};
    CHECK(text && n == strlen(blue_head) + 6 && !memcmp(text + strlen(blue_head), blue_samples, 6),
          "blue.ppm: BT.709 blue is not 0 0 1023");
    free(text);

    /* 1 component is refused with a hint at PGM. */
    p.fmt.nc = 1;
    xsf_error_clear(&err);
    CHECK(imgio_check(&opt, &p, &err) != XSF_OK && strstr(err.msg, ".pgm"),
          "PPM of 1 component: %s", err.msg);
}

static void test_frame_files(void)
{
    owned_picture o = make(1, 5, 3, 1, 1, 8, 0);
    imgio_write_options opt = {.format = IMGIO_FORMAT_PGM, .frame_files = 1};
    imgio_writer *w;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(imgio_writer_open(&w, "seq.pgm", &opt, &err) == XSF_OK, "seq.pgm: %s", err.msg);
    for (int i = 0; i < 3; i++)
        CHECK(imgio_write(w, &o.pic, &err) == XSF_OK, "seq.pgm frame %d: %s", i, err.msg);
    CHECK(!strcmp(imgio_writer_last_path(w), "seq-0002.pgm"), "last file %s",
          imgio_writer_last_path(w));
    CHECK(imgio_writer_close(w, &err) == XSF_OK, "seq.pgm close: %s", err.msg);
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "seq-%04d.pgm", i);
        size_t n;
        char *text = slurp(name, &n);
        CHECK(text && n == strlen("P5\n5 3\n255\n") + 15, "%s: %zu bytes", name, n);
        free(text);
    }
    free(o.mem);
}

static void write_text(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, n, f);
        fclose(f);
    }
}

static xsf_status read_one(const char *path, imgio_format f, const imgio_raw_layout *l,
                           xsf_error *err)
{
    imgio_reader *r;
    xsf_error_clear(err);
    xsf_status st = imgio_reader_open(&r, path, f, l, err);
    if (st != XSF_OK)
        return st;
    const xsf_picture *pic;
    do
        st = imgio_read(r, &pic, err);
    while (st == XSF_OK && pic);
    imgio_reader_close(r);
    return st;
}

static void test_reader_errors(void)
{
    xsf_error err;
    imgio_raw_layout l;
    xsf_error_clear(&err);
    imgio_raw_layout_make(&l, "420", 4, 4, 8, &err);
    const uint8_t frame_and_a_half[24 + 12] = {0};
    write_text("half.yuv", frame_and_a_half, sizeof frame_and_a_half);
    CHECK(read_one("half.yuv", IMGIO_FORMAT_YUV, &l, &err) == XSF_ERR_TRUNCATED,
          "a .yuv ending inside a frame: %s", err.msg);
    imgio_raw_layout_make(&l, "mono", 2, 1, 10, &err);
    const uint8_t too_big[4] = {0xff, 0x03, 0x00, 0x04}; /* 1023, then 1024 */
    write_text("big.yuv", too_big, sizeof too_big);
    CHECK(read_one("big.yuv", IMGIO_FORMAT_YUV, &l, &err) == XSF_ERR_INVALID,
          "a 10-bit .yuv sample of 1024: %s", err.msg);
    CHECK(imgio_raw_layout_make(&l, "411", 4, 4, 8, &err) != XSF_OK, "sampling 411 accepted");
    CHECK(imgio_raw_layout_make(&l, "420", 0, 4, 8, &err) != XSF_OK, "width 0 accepted");
    CHECK(imgio_raw_layout_make(&l, "420", 4, 4, 17, &err) != XSF_OK, "17 bits accepted");

    const char *bad_y4m[] = {
        "YUV4MPEG2 W0 H2 C420jpeg\nFRAME\n",
        "YUV4MPEG2 W2 H2 C411\nFRAME\n",
        "YUV4MPEG2 W2 H2 It\nFRAME\n",
        "YUV4MPEG2 W2x H2\nFRAME\n",
        "YUV4MPEG W2 H2\nFRAME\n",
        "YUV4MPEG2 W2 H2 C444\nFRAMX\n",
        "YUV4MPEG2 W2 H2 C444\nFRAME\n\x01\x02",
        "YUV4MPEG2 W70000 H2 C444\n",
        "YUV4MPEG2 W65536 H2 C444\n", /* 1..65535 */
    };
    for (size_t i = 0; i < sizeof bad_y4m / sizeof bad_y4m[0]; i++) {
        write_text("bad.y4m", bad_y4m[i], strlen(bad_y4m[i]));
        CHECK(read_one("bad.y4m", IMGIO_FORMAT_Y4M, NULL, &err) != XSF_OK && err.msg[0],
              "bad Y4M %zu accepted", i);
    }
    const char *good_y4m = "YUV4MPEG2 W2 H1 F30000:1001 Ip A0:0 Cmono10 XYSCSS=MONO10\n"
                           "FRAME\n\xff\x03\x00\x00";
    write_text("good.y4m", good_y4m,
               strlen("YUV4MPEG2 W2 H1 F30000:1001 Ip A0:0 Cmono10 "
                      "XYSCSS=MONO10\nFRAME\n") +
                   4);
    CHECK(read_one("good.y4m", IMGIO_FORMAT_Y4M, NULL, &err) == XSF_OK, "Cmono10 Y4M: %s", err.msg);

    const char *bad_pnm[] = {
        "P6\n2 2\n0\n",       "P6\n0 2\n255\n",       "P6\n2 2\n65536\n", "P3\n2 2\n255\n",
        "P5\n2 1\n255\n\x01", "P5\n2 1\n3\n\x01\x04", "P5 # no number\n", "",
    };
    const size_t bad_pnm_len[] = {9, 11, 13, 11, 12, 11, 15, 0};
    for (size_t i = 0; i < sizeof bad_pnm / sizeof bad_pnm[0]; i++) {
        write_text("bad.pgm", bad_pnm[i], bad_pnm_len[i]);
        CHECK(read_one("bad.pgm", IMGIO_FORMAT_PGM, NULL, &err) != XSF_OK && err.msg[0],
              "bad PNM %zu accepted", i);
    }
    /* A PPM (P6) sample above maxval: the blue one of the only pixel. */
    write_text("bad.ppm", "P6\n1 1\n3\n\x01\x02\x04", 12);
    CHECK(read_one("bad.ppm", IMGIO_FORMAT_PPM, NULL, &err) == XSF_ERR_INVALID && err.msg[0],
          "a PPM sample above maxval: %s", err.msg);
    const char good_pgm[] = "P5\n# comment\n2 1\n65535\n\x01\x02\x03\x04";
    write_text("good.pgm", good_pgm, sizeof good_pgm - 1);
    CHECK(read_one("good.pgm", IMGIO_FORMAT_PGM, NULL, &err) == XSF_OK, "16-bit PGM: %s", err.msg);
}

/* A caller's picture for imgio_read_into: format `f` (its container and depths as given),
 * `pad` bytes past each row, zeroed. */
static xsf_picture into_picture(const xsf_format *f, size_t pad, uint8_t **mem)
{
    uint8_t *data[XSF_MAX_COMPONENTS];
    size_t stride[XSF_MAX_COMPONENTS], total = 0;
    for (int c = 0; c < f->nc; c++) {
        stride[c] = xsf_format_row_bytes(f, c) + pad;
        total += stride[c] * (size_t)f->height[c];
    }
    *mem = calloc(total ? total : 1, 1);
    size_t off = 0;
    for (int c = 0; c < f->nc; c++) {
        data[c] = *mem + off;
        off += stride[c] * (size_t)f->height[c];
    }
    xsf_picture p;
    xsf_picture_wrap(&p, f, data, stride, XSF_MEMORY_HOST, -1);
    return p;
}

/* Whether `got` (planar16 or planar8) holds the samples of `want` (planar16). */
static int same_samples(const xsf_picture *got, const xsf_picture *want)
{
    for (int c = 0; c < want->fmt.nc; c++)
        for (int y = 0; y < want->fmt.height[c]; y++)
            for (int x = 0; x < want->fmt.width[c]; x++) {
                const unsigned g = got->fmt.container == XSF_PLANAR_U8
                                       ? got->data[c][(size_t)y * got->stride[c] + (size_t)x]
                                       : xsf_picture_row16(got, c, y)[x];
                if (g != xsf_picture_row16(want, c, y)[x])
                    return 0;
            }
    return 1;
}

/* imgio_read_into against imgio_read, frame by frame, into `container` with `pad` bytes past
 * each row; frame 1 of 3 read into the reader's own planes (both calls mix). */
static void into_matches(const char *path, imgio_format f, const imgio_raw_layout *l,
                         xsf_container container, size_t pad)
{
    xsf_error err;
    xsf_error_clear(&err);
    imgio_reader *a = NULL, *b = NULL;
    CHECK(imgio_reader_open(&a, path, f, l, &err) == XSF_OK &&
              imgio_reader_open(&b, path, f, l, &err) == XSF_OK,
          "%s: open: %s", path, err.msg);
    if (!a || !b) {
        imgio_reader_close(a);
        imgio_reader_close(b);
        return;
    }
    xsf_format fmt;
    const int fixed = imgio_reader_format(b, &fmt);
    CHECK(fixed == (f == IMGIO_FORMAT_Y4M || f == IMGIO_FORMAT_YUV), "%s: a fixed format", path);
    const xsf_picture *first = NULL;
    if (!fixed) { /* each image says its own: the first one's */
        imgio_reader *c = NULL;
        imgio_reader_open(&c, path, f, l, &err);
        imgio_read(c, &first, &err);
        CHECK(first != NULL, "%s: a first image", path);
        if (first)
            fmt = first->fmt;
        imgio_reader_close(c);
    }
    fmt.container = container;
    uint8_t *mem;
    xsf_picture pic = into_picture(&fmt, pad, &mem);
    for (unsigned n = 0;; n++) {
        const xsf_picture *want = NULL;
        CHECK(imgio_read(a, &want, &err) == XSF_OK, "%s: read %u: %s", path, n, err.msg);
        const xsf_picture *own = NULL;
        int got = -1;
        xsf_status st = n == 1 ? imgio_read(b, &own, &err) : imgio_read_into(b, &pic, &got, &err);
        if (n == 1) {
            CHECK(st == XSF_OK && (own != NULL) == (want != NULL) &&
                      (!own || same_planes(own, want, want->fmt.nc)),
                  "%s: imgio_read between: %s", path, err.msg);
            continue;
        }
        CHECK(st == XSF_OK && got == (want != NULL), "%s: frame %u: %s (got %d)", path, n, err.msg,
              got);
        if (!want || !got)
            break;
        CHECK(same_samples(&pic, want) && pic.props.index == n &&
                  pic.colour.range == want->colour.range && pic.fmt.container == container,
              "%s: frame %u into a %s picture differs", path, n, xsf_container_name(container));
    }
    imgio_reader_close(a);
    imgio_reader_close(b);
    free(mem);
}

/* imgio_read_into: frames equal imgio_read's (packed and padded rows, 16-bit, 8-bit into
 * planar16 and into planar8, .yuv, .y4m, .pgm), over more than one group of rows; pictures
 * it refuses, before reading; a file cut inside a frame; a sample above the depth named,
 * in a later group; the clean end. */
static void test_read_into(void)
{
    xsf_error err;
    xsf_error_clear(&err);
    /* 700 x 401 at 10 bits: rows of 1400 bytes, groups of about 190 rows. */
    owned_picture o = make(3, 700, 401, 2, 1, 10, 0);
    CHECK(write_frames("into10.y4m", IMGIO_FORMAT_Y4M, &o.pic, 3, &err) == XSF_OK &&
              write_frames("into10.yuv", IMGIO_FORMAT_YUV, &o.pic, 3, &err) == XSF_OK,
          "write: %s", err.msg);
    free(o.mem);
    o = make(3, 333, 1001, 2, 2, 8, 0);
    CHECK(write_frames("into8.y4m", IMGIO_FORMAT_Y4M, &o.pic, 3, &err) == XSF_OK, "write: %s",
          err.msg);
    free(o.mem);
    o = make(1, 17, 3, 1, 1, 12, 0);
    CHECK(write_frames("into12.pgm", IMGIO_FORMAT_PGM, &o.pic, 3, &err) == XSF_OK, "write: %s",
          err.msg);
    free(o.mem);
    imgio_raw_layout l;
    imgio_raw_layout_make(&l, "422", 700, 401, 10, &err);
    into_matches("into10.y4m", IMGIO_FORMAT_Y4M, NULL, XSF_PLANAR_U16, 0);
    into_matches("into10.y4m", IMGIO_FORMAT_Y4M, NULL, XSF_PLANAR_U16, 6);
    into_matches("into10.yuv", IMGIO_FORMAT_YUV, &l, XSF_PLANAR_U16, 2);
    into_matches("into8.y4m", IMGIO_FORMAT_Y4M, NULL, XSF_PLANAR_U16, 0);
    into_matches("into8.y4m", IMGIO_FORMAT_Y4M, NULL, XSF_PLANAR_U8, 0);
    into_matches("into8.y4m", IMGIO_FORMAT_Y4M, NULL, XSF_PLANAR_U8, 5);
    into_matches("into12.pgm", IMGIO_FORMAT_PGM, NULL, XSF_PLANAR_U16, 0);

    /* Refused pictures, each before anything is read: the next good call reads frame 0. */
    imgio_reader *r = NULL;
    CHECK(imgio_reader_open(&r, "into10.y4m", IMGIO_FORMAT_Y4M, NULL, &err) == XSF_OK, "open: %s",
          err.msg);
    xsf_format fmt;
    CHECK(r && imgio_reader_format(r, &fmt) && fmt.container == XSF_PLANAR_U16 && fmt.nc == 3 &&
              fmt.width[0] == 700 && fmt.width[1] == 350 && fmt.height[2] == 401 &&
              fmt.depth[0] == 10,
          "the y4m's format");
    uint8_t *mem;
    xsf_picture pic = into_picture(&fmt, 0, &mem);
    int got = -1;
    struct {
        const char *what;
        xsf_picture p;
    } bad[6];
    for (int i = 0; i < 6; i++)
        bad[i].p = pic;
    bad[0].what = "narrower";
    bad[0].p.fmt.width[1] = 349;
    bad[1].what = "12 bits";
    bad[1].p.fmt.depth[0] = 12;
    bad[2].what = "planar8 for 10-bit samples";
    bad[2].p.fmt.container = XSF_PLANAR_U8;
    bad[3].what = "two components";
    bad[3].p.fmt.nc = 2;
    bad[4].what = "rows shorter than the row";
    bad[4].p.stride[2] = 698;
    bad[5].what = "device memory";
    bad[5].p.memory = XSF_MEMORY_DEVICE;
    for (int i = 0; r && i < 6; i++)
        CHECK(imgio_read_into(r, &bad[i].p, &got, &err) == XSF_ERR_ARG && got == 0 && err.msg[0],
              "a picture %s accepted", bad[i].what);
    CHECK(r && imgio_read_into(r, &pic, &got, &err) == XSF_OK && got == 1 && pic.props.index == 0,
          "frame 0 after the refusals: %s", err.msg);
    imgio_reader_close(r);

    /* Cut inside frame 1's second plane; the clean end leaves the picture as it was. */
    size_t n = 0;
    char *text = slurp("into10.y4m", &n);
    const size_t header = (size_t)(strchr(text, '\n') - text) + 1;
    const size_t frame = 6 + (size_t)(700 + 350 * 2) * 401 * 2;
    write_text("cut10.y4m", text, header + frame + 6 + 700 * 401 * 2 + 100);
    r = NULL;
    xsf_error_clear(&err); /* the refusals' message (the first one stays) */
    imgio_reader_open(&r, "cut10.y4m", IMGIO_FORMAT_Y4M, NULL, &err);
    CHECK(r && imgio_read_into(r, &pic, &got, &err) == XSF_OK && got == 1, "cut file, frame 0: %s",
          err.msg);
    CHECK(r && imgio_read_into(r, &pic, &got, &err) == XSF_ERR_TRUNCATED && got == 0 &&
              strstr(err.msg, "frame 1"),
          "cut file, frame 1: %s", err.msg);
    imgio_reader_close(r);
    /* Frame 0 alone, then the end: got 0, XSF_OK, the picture untouched. */
    write_text("one10.y4m", text, header + frame);
    r = NULL;
    imgio_reader_open(&r, "one10.y4m", IMGIO_FORMAT_Y4M, NULL, &err);
    CHECK(r && imgio_read_into(r, &pic, &got, &err) == XSF_OK && got == 1, "frame 0: %s", err.msg);
    const uint16_t keep = xsf_picture_row16(&pic, 0, 0)[0];
    CHECK(r && imgio_read_into(r, &pic, &got, &err) == XSF_OK && got == 0 &&
              xsf_picture_row16(&pic, 0, 0)[0] == keep && pic.props.index == 0,
          "the clean end: %s", err.msg);
    imgio_reader_close(r);
    /* A 10-bit sample of 1024 in component 0's row 300 (a later group), x 5: named. */
    uint8_t *s = (uint8_t *)text + header + 6 + ((size_t)300 * 700 + 5) * 2;
    s[0] = 0x00;
    s[1] = 0x04;
    write_text("over10.y4m", text, n);
    r = NULL;
    xsf_error_clear(&err);
    imgio_reader_open(&r, "over10.y4m", IMGIO_FORMAT_Y4M, NULL, &err);
    CHECK(r && imgio_read_into(r, &pic, &got, &err) == XSF_ERR_INVALID &&
              strstr(err.msg, "component 0 sample (5,300) is 1024"),
          "a sample above 10 bits: %s", err.msg);
    imgio_reader_close(r);
    free(text);
    free(mem);

    /* A .pgm: no fixed format; an image of another size than the picture refused. */
    r = NULL;
    imgio_reader_open(&r, "into12.pgm", IMGIO_FORMAT_PGM, NULL, &err);
    const xsf_format small = {
        .container = XSF_PLANAR_U16, .nc = 1, .width = {16}, .height = {3}, .depth = {12}};
    pic = into_picture(&small, 0, &mem);
    CHECK(r && !imgio_reader_format(r, &fmt) &&
              imgio_read_into(r, &pic, &got, &err) == XSF_ERR_ARG && got == 0,
          "a .pgm image into a picture of another size: %s", err.msg);
    imgio_reader_close(r);
    free(mem);
}

static void test_names(void)
{
    CHECK(imgio_format_from_path("a.YUV") == IMGIO_FORMAT_YUV, "a.YUV");
    CHECK(imgio_format_from_path("d/x.y4m") == IMGIO_FORMAT_Y4M, "d/x.y4m");
    CHECK(imgio_format_from_path("x.ppm") == IMGIO_FORMAT_PPM, "x.ppm");
    CHECK(imgio_format_from_path("x.pgm") == IMGIO_FORMAT_PGM, "x.pgm");
    CHECK(imgio_format_from_path("d.yuv/x") == IMGIO_FORMAT_NONE, "d.yuv/x");
    CHECK(imgio_format_from_path("x.yuvx") == IMGIO_FORMAT_NONE, "x.yuvx");
    const int sx[3] = {1, 2, 2}, sy[3] = {1, 1, 2}, one[3] = {1, 1, 1};
    CHECK(!strcmp(imgio_sampling_name(3, sx, one), "4:2:2"), "4:2:2");
    int s420[3] = {1, 2, 2}, y420[3] = {1, 2, 2};
    CHECK(!strcmp(imgio_sampling_name(3, s420, y420), "4:2:0"), "4:2:0");
    CHECK(!strcmp(imgio_sampling_name(3, one, one), "4:4:4"), "4:4:4");
    CHECK(!strcmp(imgio_sampling_name(1, one, one), "4:0:0"), "4:0:0");
    CHECK(!strcmp(imgio_sampling_name(3, sx, sy), "other"), "mixed sampling");
    /* decode's words of the colour vocabulary (common/include/xsf_colour.h) */
    xsf_colour c;
    CHECK(xsf_colour_parse("bt601-full", &c, NULL) == XSF_OK && c.matrix == XSF_MATRIX_BT601 &&
              c.range == XSF_RANGE_FULL,
          "bt601-full");
    CHECK(xsf_colour_parse("srgb", &c, NULL) != XSF_OK, "srgb accepted");
}

static void test_md5(void)
{
    /* RFC 1321, A.5 test suite. */
    static const char *const cases[][2] = {
        {"", "d41d8cd98f00b204e9800998ecf8427e"},
        {"a", "0cc175b9c0f1b6a831c399e269772661"},
        {"abc", "900150983cd24fb0d6963f7d28e17f72"},
        {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
        {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
        {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
         "d174ab98d277d9f5a5611c2c9f419d9f"},
        {"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
         "57edf4a22be3c955ac49da2e2107b67a"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        app_md5 m;
        char hex[33];
        app_md5_init(&m);
        /* In two pieces, to cover updates that split a block. */
        const size_t n = strlen(cases[i][0]), half = n / 3;
        app_md5_update(&m, (const uint8_t *)cases[i][0], half);
        app_md5_update(&m, (const uint8_t *)cases[i][0] + half, n - half);
        app_md5_final_hex(&m, hex);
        CHECK(!strcmp(hex, cases[i][1]), "MD5(\"%s\") = %s, expected %s", cases[i][0], hex,
              cases[i][1]);
    }
    /* The .yuv serialization hashes like the .yuv file. */
    owned_picture o = make(3, 13, 7, 2, 2, 10, 2);
    xsf_error err;
    xsf_error_clear(&err);
    write_frames("hash.yuv", IMGIO_FORMAT_YUV, &o.pic, 1, &err);
    size_t n;
    char *text = slurp("hash.yuv", &n);
    app_md5 a, b;
    char ha[33], hb[33];
    app_md5_init(&a);
    app_md5_init(&b);
    if (text)
        app_md5_update(&a, (const uint8_t *)text, n);
    imgio_yuv_serialize(&o.pic, app_md5_sink, &b);
    app_md5_final_hex(&a, ha);
    app_md5_final_hex(&b, hb);
    CHECK(text && n == imgio_yuv_frame_bytes(&o.pic) && !strcmp(ha, hb),
          "serialized MD5 %s, file MD5 %s (%zu bytes)", hb, ha, n);
    free(text);
    free(o.mem);
}

/* The first picture of a file and its colour description. */
static xsf_colour read_colour(const char *path, imgio_format f, const imgio_raw_layout *l)
{
    xsf_colour c;
    memset(&c, 0x77, sizeof c);
    imgio_reader *r;
    const xsf_picture *pic = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(imgio_reader_open(&r, path, f, l, &err) == XSF_OK &&
              imgio_read(r, &pic, &err) == XSF_OK && pic,
          "%s: %s", path, err.msg);
    if (pic) {
        c = pic->colour;
        CHECK(pic->props.index == 0 && !pic->ref && pic->memory == XSF_MEMORY_HOST,
              "%s: a host view of frame 0", path);
    }
    imgio_reader_close(r);
    return c;
}

/* What the readers say of the colour, and the PPM writer taking the
 * picture's description where the options say nothing. */
static void test_colour(void)
{
    owned_picture o = make(3, 4, 2, 1, 1, 8, 0);
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(write_frames("c.ppm", IMGIO_FORMAT_PPM, &o.pic, 1, &err) == XSF_OK, "c.ppm: %s", err.msg);
    xsf_colour c = read_colour("c.ppm", IMGIO_FORMAT_PPM, NULL);
    CHECK(c.matrix == XSF_MATRIX_IDENTITY && c.rgb_order == 1 && c.range == XSF_RANGE_FULL &&
              c.source == XSF_COLOUR_CODESTREAM,
          "PPM: matrix %d order %d range %d source %d", c.matrix, c.rgb_order, c.range, c.source);
    CHECK(write_frames("c.pgm", IMGIO_FORMAT_PGM, &o.pic, 1, &err) == XSF_OK, "c.pgm: %s", err.msg);
    c = read_colour("c.pgm", IMGIO_FORMAT_PGM, NULL);
    CHECK(c.matrix == XSF_MATRIX_UNSPECIFIED && c.range == XSF_RANGE_FULL &&
              c.source == XSF_COLOUR_CODESTREAM,
          "PGM: matrix %d range %d source %d", c.matrix, c.range, c.source);
    const char *plain = "YUV4MPEG2 W2 H1 F25:1 Ip A0:0 Cmono\nFRAME\n\x10\x20";
    write_text("c.y4m", plain, strlen(plain));
    c = read_colour("c.y4m", IMGIO_FORMAT_Y4M, NULL);
    CHECK(c.range == XSF_RANGE_UNSPECIFIED && c.source == XSF_COLOUR_DEFAULT,
          "Y4M without a range tag: %d %d", c.range, c.source);
    const char *tagged[2] = {
        "YUV4MPEG2 W2 H1 F25:1 Ip A0:0 Cmono XCOLORRANGE=FULL\nFRAME\n\x10\x20",
        "YUV4MPEG2 W2 H1 F25:1 Ip A0:0 XCOLORRANGE=LIMITED Cmono\nFRAME\n\x10\x20"};
    for (int i = 0; i < 2; i++) {
        write_text("c.y4m", tagged[i], strlen(tagged[i]));
        c = read_colour("c.y4m", IMGIO_FORMAT_Y4M, NULL);
        CHECK(c.range == (i ? XSF_RANGE_NARROW : XSF_RANGE_FULL) &&
                  c.source == XSF_COLOUR_CODESTREAM && c.matrix == XSF_MATRIX_UNSPECIFIED,
              "Y4M %s: range %d source %d", i ? "LIMITED" : "FULL", c.range, c.source);
    }
    imgio_raw_layout raw;
    CHECK(imgio_raw_layout_make(&raw, "mono", 2, 1, 8, &err) == XSF_OK, "layout");
    write_text("c.yuv", "\x10\x20", 2);
    c = read_colour("c.yuv", IMGIO_FORMAT_YUV, &raw);
    CHECK(c.source == XSF_COLOUR_DEFAULT && c.matrix == XSF_MATRIX_UNSPECIFIED,
          ".yuv says nothing");
    free(o.mem);

    /* One 10-bit pixel G=1023, B=0, R=512 written to PPM: as G B R where the
     * picture says so and the options say nothing, as the options say where
     * they say something (their source, the user's, is higher), and as
     * BT.709 narrow Y'CbCr where nobody says anything. */
    uint16_t g[1] = {1023}, b[1] = {0}, r[1] = {512};
    xsf_picture p = three_planes(1, 1, 10, g, b, r);
    for (int i = 0; i < 3; i++) {
        imgio_write_options opt = {.format = IMGIO_FORMAT_PPM};
        memset(&opt.colour, 0, sizeof opt.colour); /* nothing said */
        if (i == 1)
            xsf_colour_parse("709,full", &opt.colour, NULL);
        xsf_colour_default(&p.colour);
        if (i < 2) {
            p.colour.matrix = XSF_MATRIX_IDENTITY;
            p.colour.rgb_order = 0;
            p.colour.source = XSF_COLOUR_CODESTREAM;
        }
        imgio_writer *w;
        xsf_error_clear(&err);
        CHECK(imgio_writer_open(&w, "c2.ppm", &opt, &err) == XSF_OK &&
                  imgio_write(w, &p, &err) == XSF_OK && imgio_writer_close(w, &err) == XSF_OK,
              "c2.ppm: %s", err.msg);
        size_t n;
        char *text = slurp("c2.ppm", &n);
        const char *head = "P6\n1 1\n1023\n";
        CHECK(text && n == strlen(head) + 6, "c2.ppm case %d: %zu bytes", i, n);
        if (text && n == strlen(head) + 6) {
            const unsigned char *px = (const unsigned char *)text + strlen(head);
            const int R = px[0] << 8 | px[1], G = px[2] << 8 | px[3], B = px[4] << 8 | px[5];
            /* As BT.709 Y'CbCr, B' = Y' + 1.8556 Pb: full range (the option's)
             * 1 - 1.8556 * 512 / 1023 gives code 73, narrow (1023 - 64) / 876 -
             * 1.8556 * 512 / 896 gives 35. */
            if (i == 0)
                CHECK(R == 512 && G == 1023 && B == 0, "GBR picture: R %d G %d B %d", R, G, B);
            else
                CHECK(R == 1023 && B == (i == 1 ? 73 : 35), "case %d: R %d G %d B %d", i, R, G, B);
        }
        free(text);
    }
}

/* `src` converted to `t` by the reference (xsf_picture_convert), in planes
 * of the host allocator (rows padded to 64 bytes, so that the writers'
 * tight packing shows). */
static void converted(const xsf_picture *src, xsf_container t, xsf_picture *d)
{
    xsf_error err;
    xsf_error_clear(&err);
    xsf_picture_init(d);
    CHECK(xsf_format_convert(&src->fmt, &src->colour, t, &d->fmt, &err) == XSF_OK &&
              xsf_picture_alloc(d, NULL, &err) == XSF_OK &&
              xsf_picture_convert(d, src, &err) == XSF_OK,
          "%s: %s", xsf_container_name(t), err.msg);
}

/* The output pixel formats: .yuv holds every format's planes packed, .y4m
 * planar8 and i420, .ppm rgb48 (16-bit, big-endian) and rgba/bgra (8-bit,
 * alpha dropped); the others are refused with the formats that fit. */
static void test_pixel_formats(void)
{
    owned_picture o = make(3, 7, 3, 2, 1, 10, 1);
    xsf_error err;
    for (int t = 0; t < XSF_CONTAINERS; t++) {
        xsf_picture d;
        converted(&o.pic, (xsf_container)t, &d);
        /* .yuv: plane after plane, rows without the allocator's padding. */
        xsf_error_clear(&err);
        CHECK(write_frames("pf.yuv", IMGIO_FORMAT_YUV, &d, 2, &err) == XSF_OK, "%s: %s",
              xsf_container_name((xsf_container)t), err.msg);
        size_t n;
        uint8_t *data = (uint8_t *)slurp("pf.yuv", &n);
        const size_t frame = xsf_format_bytes(&d.fmt);
        CHECK(data && n == 2 * frame && imgio_yuv_frame_bytes(&d) == frame, "%s: %zu bytes",
              xsf_container_name((xsf_container)t), n);
        int same = data && n == 2 * frame;
        size_t at = 0;
        for (int p = 0; same && p < xsf_format_planes(&d.fmt); p++)
            for (int y = 0; y < xsf_format_plane_rows(&d.fmt, p); y++) {
                const size_t row = xsf_format_row_bytes(&d.fmt, p);
                same &= !memcmp(data + at, d.data[p] + (size_t)y * d.stride[p], row) &&
                        !memcmp(data + frame + at, data + at, row);
                at += row;
            }
        CHECK(same && at == frame, "%s: .yuv is not the planes packed",
              xsf_container_name((xsf_container)t));
        free(data);
        /* .y4m and .ppm: written or refused with a message naming the format. */
        const int y4m = t == XSF_PLANAR_U16 || t == XSF_PLANAR_U8 || t == XSF_I420;
        const int ppm = t == XSF_PLANAR_U16 || t == XSF_RGB48 || t == XSF_RGBA8 || t == XSF_BGRA8;
        imgio_write_options opt = {.format = IMGIO_FORMAT_Y4M};
        xsf_error_clear(&err);
        const xsf_status sy = imgio_check(&opt, &d, &err);
        CHECK(y4m ? sy == XSF_OK
                  : sy == XSF_ERR_UNSUPPORTED && strstr(err.msg, "Y4M") &&
                        strstr(err.msg, xsf_container_name((xsf_container)t)) &&
                        strstr(err.msg, "i420"),
              "%s to Y4M: %s", xsf_container_name((xsf_container)t), err.msg);
        opt.format = IMGIO_FORMAT_PPM;
        xsf_error_clear(&err);
        const xsf_status sp = imgio_check(&opt, &d, &err);
        CHECK(ppm ? sp == XSF_OK
                  : sp == XSF_ERR_UNSUPPORTED && strstr(err.msg, "PPM") && strstr(err.msg, "rgb48"),
              "%s to PPM: %s", xsf_container_name((xsf_container)t), err.msg);
        opt.format = IMGIO_FORMAT_PGM;
        xsf_error_clear(&err);
        CHECK((imgio_check(&opt, &d, &err) == XSF_OK) == (t == XSF_PLANAR_U16), "%s to PGM: %s",
              xsf_container_name((xsf_container)t), err.msg);
        xsf_picture_unref(&d);
    }

    /* .y4m of planar8 (8-bit 4:2:2 tag, a byte a sample) and i420. */
    xsf_picture d;
    converted(&o.pic, XSF_PLANAR_U8, &d);
    xsf_error_clear(&err);
    CHECK(write_frames("pf8.y4m", IMGIO_FORMAT_Y4M, &d, 1, &err) == XSF_OK, "%s", err.msg);
    size_t n;
    char *text = slurp("pf8.y4m", &n);
    static const char h8[] = "YUV4MPEG2 W7 H3 F25:1 Ip A1:1 C422\nFRAME\n";
    CHECK(text && n == strlen(h8) + 7 * 3 + 2 * 4 * 3 && !memcmp(text, h8, strlen(h8)) &&
              !memcmp(text + strlen(h8) + 7, d.data[0] + d.stride[0], 7),
          "planar8 y4m");
    free(text);
    xsf_picture_unref(&d);
    converted(&o.pic, XSF_I420, &d);
    xsf_error_clear(&err);
    CHECK(write_frames("pf420.y4m", IMGIO_FORMAT_Y4M, &d, 1, &err) == XSF_OK, "%s", err.msg);
    text = slurp("pf420.y4m", &n);
    static const char h420[] = "YUV4MPEG2 W7 H3 F25:1 Ip A1:1 C420jpeg\nFRAME\n";
    CHECK(text && n == strlen(h420) + 7 * 3 + 2 * 4 * 2 && !memcmp(text, h420, strlen(h420)) &&
              !memcmp(text + strlen(h420) + 21 + 4, d.data[1] + d.stride[1], 4),
          "i420 y4m");
    free(text);
    xsf_picture_unref(&d);
    /* A refused format leaves no file. */
    converted(&o.pic, XSF_V210, &d);
    remove("pfv.y4m");
    xsf_error_clear(&err);
    CHECK(write_frames("pfv.y4m", IMGIO_FORMAT_Y4M, &d, 1, &err) == XSF_ERR_UNSUPPORTED,
          "v210 to y4m");
    FILE *f = fopen("pfv.y4m", "rb");
    CHECK(!f, "a refused v210 picture left pfv.y4m behind");
    if (f)
        fclose(f);
    xsf_picture_unref(&d);

    /* .ppm of rgb48: 16-bit, each sample big-endian. */
    converted(&o.pic, XSF_RGB48, &d);
    xsf_error_clear(&err);
    CHECK(write_frames("pf48.ppm", IMGIO_FORMAT_PPM, &d, 1, &err) == XSF_OK, "%s", err.msg);
    text = slurp("pf48.ppm", &n);
    static const char h48[] = "P6\n7 3\n65535\n";
    int same = text && n == strlen(h48) + 7 * 3 * 6 && !memcmp(text, h48, strlen(h48));
    for (int y = 0; same && y < 3; y++)
        for (int i = 0; i < 21; i++) {
            const uint8_t *in = d.data[0] + (size_t)y * d.stride[0] + 2 * i;
            const uint8_t *out = (const uint8_t *)text + strlen(h48) + 42 * y + 2 * i;
            same &= out[0] == in[1] && out[1] == in[0];
        }
    CHECK(same, "rgb48 ppm");
    free(text);
    xsf_picture_unref(&d);
    /* .ppm of rgba and bgra: the same 8-bit R G B, alpha dropped. */
    converted(&o.pic, XSF_RGBA8, &d);
    xsf_error_clear(&err);
    CHECK(write_frames("pfa.ppm", IMGIO_FORMAT_PPM, &d, 1, &err) == XSF_OK, "%s", err.msg);
    text = slurp("pfa.ppm", &n);
    static const char ha[] = "P6\n7 3\n255\n";
    same = text && n == strlen(ha) + 7 * 3 * 3 && !memcmp(text, ha, strlen(ha));
    for (int y = 0; same && y < 3; y++)
        for (int x = 0; x < 7; x++)
            same &= !memcmp(text + strlen(ha) + 21 * y + 3 * x,
                            d.data[0] + (size_t)y * d.stride[0] + 4 * x, 3);
    CHECK(same, "rgba ppm");
    xsf_picture_unref(&d);
    converted(&o.pic, XSF_BGRA8, &d);
    xsf_error_clear(&err);
    CHECK(write_frames("pfb.ppm", IMGIO_FORMAT_PPM, &d, 1, &err) == XSF_OK, "%s", err.msg);
    size_t nb;
    char *tb = slurp("pfb.ppm", &nb);
    CHECK(text && tb && nb == n && !memcmp(text, tb, n), "bgra ppm is rgba ppm");
    free(tb);
    free(text);
    xsf_picture_unref(&d);
    free(o.mem);
}

int main(void)
{
    test_pixel_formats();
    test_names();
    test_colour();
    test_round_trip("t422p10.yuv", IMGIO_FORMAT_YUV, 3, 37, 11, 2, 1, 10, NULL);
    test_round_trip("t420.yuv", IMGIO_FORMAT_YUV, 3, 33, 9, 2, 2, 8, NULL);
    test_round_trip("t422p10.y4m", IMGIO_FORMAT_Y4M, 3, 37, 11, 2, 1, 10,
                    "YUV4MPEG2 W37 H11 F25:1 Ip A1:1 C422p10\nFRAME\n");
    test_round_trip("t420.y4m", IMGIO_FORMAT_Y4M, 3, 33, 9, 2, 2, 8,
                    "YUV4MPEG2 W33 H9 F25:1 Ip A1:1 C420jpeg\nFRAME\n");
    test_round_trip("t444p16.y4m", IMGIO_FORMAT_Y4M, 3, 8, 8, 1, 1, 16,
                    "YUV4MPEG2 W8 H8 F25:1 Ip A1:1 C444p16\nFRAME\n");
    test_round_trip("tmono12.y4m", IMGIO_FORMAT_Y4M, 1, 7, 5, 1, 1, 12,
                    "YUV4MPEG2 W7 H5 F25:1 Ip A1:1 Cmono12\nFRAME\n");
    test_round_trip("tmono.y4m", IMGIO_FORMAT_Y4M, 1, 7, 5, 1, 1, 8,
                    "YUV4MPEG2 W7 H5 F25:1 Ip A1:1 Cmono\nFRAME\n");
    test_round_trip("t8.pgm", IMGIO_FORMAT_PGM, 1, 17, 3, 1, 1, 8, "P5\n17 3\n255\n");
    test_round_trip("t14.pgm", IMGIO_FORMAT_PGM, 3, 17, 3, 2, 1, 14, "P5\n17 3\n16383\n");
    test_round_trip("t10.ppm", IMGIO_FORMAT_PPM, 3, 17, 3, 1, 1, 10, "P6\n17 3\n1023\n");
    test_y4m_refusals();
    test_ppm();
    test_frame_files();
    test_reader_errors();
    test_read_into();
    test_md5();
    return xsf_test_finish();
}
