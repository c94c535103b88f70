/* common/xsf_picture: formats, the host allocator, reference counting with a
 * counting allocator, views and copies. */
#include <string.h>

#include "test.h"
#include "xsf_picture.h"

static xsf_format fmt422(int w, int h, int depth)
{
    xsf_format f;
    memset(&f, 0, sizeof(f));
    f.container = XSF_PLANAR_U16;
    f.nc = 3;
    for (int c = 0; c < 3; c++) {
        f.width[c] = c ? (w + 1) / 2 : w;
        f.height[c] = h;
        f.depth[c] = depth;
    }
    return f;
}

/* An allocator that counts what it gives and gets back. */
typedef struct counting {
    int allocs, releases;
    void *last_data;
} counting;

static xsf_status count_alloc(void *opaque, xsf_picture *p, void **alloc_data, xsf_error *err)
{
    counting *k = opaque;
    xsf_picture_allocator h = xsf_host_allocator;
    xsf_status st = h.alloc(h.opaque, p, alloc_data, err);
    if (st == XSF_OK)
        k->allocs++;
    return st;
}

static void count_release(void *opaque, xsf_picture *p, void *alloc_data)
{
    counting *k = opaque;
    k->releases++;
    k->last_data = p->data[0];
    xsf_host_allocator.release(xsf_host_allocator.opaque, p, alloc_data);
}

static void test_format(void)
{
    xsf_format f = fmt422(1921, 1080, 10);
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(xsf_format_check(&f, &err) == XSF_OK, "%s", err.msg);
    CHECK(strcmp(xsf_format_sampling(&f), "4:2:2") == 0, "%s", xsf_format_sampling(&f));
    CHECK(xsf_format_row_bytes(&f, 1) == 961 * 2, "%zu", xsf_format_row_bytes(&f, 1));
    CHECK(xsf_format_bytes(&f) == (1921 + 2 * 961) * 1080 * 2, "%zu", xsf_format_bytes(&f));
    f.height[1] = f.height[2] = 540;
    CHECK(strcmp(xsf_format_sampling(&f), "4:2:0") == 0, "%s", xsf_format_sampling(&f));
    f.width[1] = f.width[2] = 1921;
    f.height[1] = f.height[2] = 1080;
    CHECK(strcmp(xsf_format_sampling(&f), "4:4:4") == 0, "%s", xsf_format_sampling(&f));
    f.width[2] = 100;
    CHECK(strcmp(xsf_format_sampling(&f), "other") == 0, "%s", xsf_format_sampling(&f));
    f.nc = 1;
    CHECK(strcmp(xsf_format_sampling(&f), "4:0:0") == 0, "%s", xsf_format_sampling(&f));

    xsf_format g = fmt422(64, 8, 10), h = g;
    CHECK(xsf_format_equal(&g, &h), "equal formats");
    h.depth[2] = 12;
    CHECK(!xsf_format_equal(&g, &h), "depths differ");
    h = g;
    h.depth[0] = 17;
    xsf_error_clear(&err);
    CHECK(xsf_format_check(&h, &err) == XSF_ERR_ARG && strstr(err.msg, "17"), "depth 17: %s",
          err.msg);
    h = g;
    h.nc = 0;
    xsf_error_clear(&err);
    CHECK(xsf_format_check(&h, &err) == XSF_ERR_ARG, "no components");
    h = g;
    h.width[1] = 0;
    xsf_error_clear(&err);
    CHECK(xsf_format_check(&h, &err) == XSF_ERR_ARG, "zero width");
}

static void test_refs(void)
{
    counting k = {0, 0, NULL};
    const xsf_picture_allocator a = {&k, count_alloc, count_release};
    xsf_picture p, q, r;
    xsf_picture_init(&p);
    p.fmt = fmt422(33, 7, 12);
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(xsf_picture_alloc(&p, &a, &err) == XSF_OK, "alloc: %s", err.msg);
    CHECK(k.allocs == 1 && p.ref != NULL, "one allocation");
    for (int c = 0; c < 3; c++) {
        CHECK(p.stride[c] >= xsf_format_row_bytes(&p.fmt, c), "stride %d", c);
        CHECK(((uintptr_t)p.data[c] & 63) == 0, "plane %d aligned", c);
        for (int y = 0; y < p.fmt.height[c]; y++)
            for (int x = 0; x < p.fmt.width[c]; x++)
                xsf_picture_row16(&p, c, y)[x] = (uint16_t)((c * 1000 + y * 37 + x) & 0xfff);
    }
    void *planes = p.data[0];
    xsf_picture_ref(&q, &p);
    xsf_picture_ref(&r, &q);
    CHECK(q.data[0] == planes && r.data[0] == planes, "references share planes");
    xsf_picture_unref(&p);
    CHECK(p.ref == NULL && p.data[0] == NULL && p.device == -1, "unref clears the picture");
    xsf_picture_unref(&q);
    CHECK(k.releases == 0, "two references dropped of three: nothing released (%d)", k.releases);
    CHECK(xsf_picture_row16(&r, 2, 6)[16] == ((2000 + 6 * 37 + 16) & 0xfff), "samples kept");

    /* A copy into a picture of another stride. */
    xsf_picture c;
    xsf_picture_init(&c);
    c.fmt = r.fmt;
    uint16_t store[3][7][40];
    uint8_t *data[3] = {(uint8_t *)store[0], (uint8_t *)store[1], (uint8_t *)store[2]};
    const size_t stride[3] = {80, 80, 80};
    xsf_picture_wrap(&c, &r.fmt, data, stride, XSF_MEMORY_HOST, -1);
    r.props.rtp_timestamp = 1234;
    r.props.has_rtp_timestamp = 1;
    xsf_error_clear(&err);
    CHECK(xsf_picture_copy(&c, &r, &err) == XSF_OK, "copy: %s", err.msg);
    CHECK(store[1][5][9] == ((1000 + 5 * 37 + 9) & 0xfff), "copied sample %u", store[1][5][9]);
    CHECK(c.props.rtp_timestamp == 1234 && c.props.has_rtp_timestamp, "properties copied");
    xsf_picture_unref(&c); /* a view: nothing released */
    CHECK(k.releases == 0, "a view's unref releases nothing");
    xsf_picture_unref(&r);
    CHECK(k.releases == 1 && k.last_data == planes, "the last unref releases the planes (%d)",
          k.releases);

    /* Refusals. */
    xsf_picture_init(&p);
    p.fmt = fmt422(16, 16, 8);
    p.memory = XSF_MEMORY_DEVICE;
    xsf_error_clear(&err);
    CHECK(xsf_picture_alloc(&p, NULL, &err) == XSF_ERR_ARG && !p.ref && !p.data[0],
          "host allocator: %s", err.msg);
    xsf_picture_init(&p);
    p.fmt = fmt422(16, 16, 8);
    p.fmt.nc = 9;
    xsf_error_clear(&err);
    CHECK(xsf_picture_alloc(&p, NULL, &err) == XSF_ERR_ARG, "nine components refused");
    xsf_picture_init(&q);
    q.fmt = fmt422(16, 16, 8);
    xsf_picture_init(&r);
    r.fmt = fmt422(16, 16, 10);
    xsf_error_clear(&err);
    CHECK(xsf_picture_copy(&q, &r, &err) == XSF_ERR_ARG, "copy between formats refused");
}

/* A picture made and dropped again and again (the display's references to
 * the pipeline's frames): its reference record is reused, each picture is
 * still counted and released on its own. */
static void test_reuse(void)
{
    counting k = {0, 0, NULL};
    const xsf_picture_allocator a = {&k, count_alloc, count_release};
    xsf_picture p, q;
    xsf_picture_init(&p);
    p.fmt = fmt422(16, 4, 10);
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(xsf_picture_alloc(&p, &a, &err) == XSF_OK, "alloc: %s", err.msg);
    const void *record = p.ref;
    xsf_picture_unref(&p);
    int reused = 1;
    for (int i = 0; i < 100; i++) {
        xsf_picture_init(&p);
        p.fmt = fmt422(16, 4, 10);
        CHECK(xsf_picture_alloc(&p, &a, &err) == XSF_OK, "alloc %d: %s", i, err.msg);
        reused &= p.ref == record;
        xsf_picture_ref(&q, &p);
        xsf_picture_unref(&p);
        CHECK(k.releases == i + 1, "a reference left: nothing released (%d)", k.releases);
        xsf_picture_unref(&q);
        CHECK(k.releases == i + 2, "the last reference released (%d)", k.releases);
    }
    CHECK(reused && k.allocs == 101, "the reference record reused, every picture allocated (%d)",
          k.allocs);
    /* Two alive at once get two records. */
    xsf_picture_init(&p);
    xsf_picture_init(&q);
    p.fmt = q.fmt = fmt422(16, 4, 10);
    CHECK(xsf_picture_alloc(&p, &a, &err) == XSF_OK && xsf_picture_alloc(&q, &a, &err) == XSF_OK &&
              p.ref && q.ref && p.ref != q.ref,
          "two pictures, two records");
    xsf_picture_unref(&p);
    xsf_picture_unref(&q);
    CHECK(k.releases == k.allocs, "everything released (%d of %d)", k.releases, k.allocs);
}

int main(void)
{
    test_format();
    test_refs();
    test_reuse();
    return xsf_test_finish();
}
