/* xsflow picture: formats, reference counting and the host allocator. */
#include "xsf_picture.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct xsf_picture_buffer {
    atomic_int count;
    xsf_picture_allocator allocator;
    void *alloc_data;
    xsf_picture planes; /* the picture as allocated: what release() gets back */
};

/* Reference boxes given back, kept for the next xsf_picture_alloc, so that
 * pictures made and dropped once a frame (the display's references to the
 * pipeline's frames) allocate nothing once running. A spin lock: it guards
 * a push or a pop. */
#define BOXES_KEPT 16
static atomic_flag boxes_lock = ATOMIC_FLAG_INIT;
static xsf_picture_buffer *boxes[BOXES_KEPT];
static int nboxes;

static void boxes_lock_take(void)
{
    while (atomic_flag_test_and_set_explicit(&boxes_lock, memory_order_acquire))
        ;
}

static xsf_picture_buffer *box_new(void)
{
    boxes_lock_take();
    xsf_picture_buffer *r = nboxes ? boxes[--nboxes] : NULL;
    atomic_flag_clear_explicit(&boxes_lock, memory_order_release);
    if (!r)
        return calloc(1, sizeof(*r));
    memset(r, 0, sizeof(*r));
    return r;
}

static void box_free(xsf_picture_buffer *r)
{
    boxes_lock_take();
    if (nboxes < BOXES_KEPT) {
        boxes[nboxes++] = r;
        r = NULL;
    }
    atomic_flag_clear_explicit(&boxes_lock, memory_order_release);
    free(r);
}

size_t xsf_format_sample_bytes(const xsf_format *f)
{
    switch (f->container) {
    case XSF_PLANAR_U16: return 2;
    }
    return 0;
}

size_t xsf_format_row_bytes(const xsf_format *f, int c)
{
    return (size_t)f->width[c] * xsf_format_sample_bytes(f);
}

size_t xsf_format_plane_bytes(const xsf_format *f, int c)
{
    return xsf_format_row_bytes(f, c) * (size_t)f->height[c];
}

size_t xsf_format_bytes(const xsf_format *f)
{
    size_t n = 0;
    for (int c = 0; c < f->nc; c++)
        n += xsf_format_plane_bytes(f, c);
    return n;
}

int xsf_format_equal(const xsf_format *a, const xsf_format *b)
{
    if (a->container != b->container || a->nc != b->nc)
        return 0;
    for (int c = 0; c < a->nc; c++)
        if (a->width[c] != b->width[c] || a->height[c] != b->height[c] ||
            a->depth[c] != b->depth[c])
            return 0;
    return 1;
}

xsf_status xsf_format_check(const xsf_format *f, xsf_error *err)
{
    if (f->container != XSF_PLANAR_U16)
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED, "picture container %d is not known",
                             (int)f->container);
    if (f->nc < 1 || f->nc > XSF_MAX_COMPONENTS)
        return xsf_error_set(err, XSF_ERR_ARG, "a picture has 1 to %d components, not %d",
                             XSF_MAX_COMPONENTS, f->nc);
    for (int c = 0; c < f->nc; c++) {
        if (f->width[c] < 1 || f->width[c] > 65535 || f->height[c] < 1 || f->height[c] > 65535)
            return xsf_error_set(err, XSF_ERR_ARG, "component %d is %dx%d: sizes are 1 to 65535", c,
                                 f->width[c], f->height[c]);
        if (f->depth[c] < 1 || f->depth[c] > 16)
            return xsf_error_set(err, XSF_ERR_ARG, "component %d has %d bits: depths are 1 to 16",
                                 c, f->depth[c]);
    }
    return XSF_OK;
}

const char *xsf_format_sampling(const xsf_format *f)
{
    const int w = f->width[0], h = f->height[0];
    if (f->nc == 1)
        return "4:0:0";
    if (f->nc == 4) {
        for (int c = 1; c < 4; c++)
            if (f->width[c] != w || f->height[c] != h)
                return "other";
        return "4:4:4:4";
    }
    if (f->nc != 3 || f->width[1] != f->width[2] || f->height[1] != f->height[2])
        return "other";
    const int cw = f->width[1], ch = f->height[1];
    if (cw == w && ch == h)
        return "4:4:4";
    if (cw == (w + 1) / 2 && ch == h)
        return "4:2:2";
    if (cw == (w + 1) / 2 && ch == (h + 1) / 2)
        return "4:2:0";
    return "other";
}

const char *xsf_memory_name(xsf_memory m)
{
    switch (m) {
    case XSF_MEMORY_HOST: return "host";
    case XSF_MEMORY_PINNED: return "pinned host";
    case XSF_MEMORY_DEVICE: return "device";
    }
    return "?";
}

void xsf_colour_default(xsf_colour *c)
{
    c->primaries = XSF_PRIMARIES_UNSPECIFIED;
    c->transfer = XSF_TRANSFER_UNSPECIFIED;
    c->matrix = XSF_MATRIX_UNSPECIFIED;
    c->range = XSF_RANGE_UNSPECIFIED;
    c->rgb_order = 0;
    c->source = XSF_COLOUR_DEFAULT;
}

void xsf_picture_init(xsf_picture *p)
{
    memset(p, 0, sizeof(*p));
    p->memory = XSF_MEMORY_HOST;
    p->device = -1;
    xsf_colour_default(&p->colour);
}

static xsf_status host_alloc(void *opaque, xsf_picture *p, void **alloc_data, xsf_error *err)
{
    (void)opaque;
    if (p->memory != XSF_MEMORY_HOST)
        return xsf_error_set(err, XSF_ERR_ARG, "the host allocator cannot give %s memory",
                             xsf_memory_name(p->memory));
    size_t total = 0, stride[XSF_MAX_COMPONENTS];
    for (int c = 0; c < p->fmt.nc; c++) {
        stride[c] = (xsf_format_row_bytes(&p->fmt, c) + 63) & ~(size_t)63;
        total += stride[c] * (size_t)p->fmt.height[c];
    }
    uint8_t *mem = aligned_alloc(64, total ? total : 64);
    if (!mem)
        return xsf_error_set(err, XSF_ERR_NOMEM, "no memory for a %zu-byte picture", total);
    uint8_t *at = mem;
    for (int c = 0; c < p->fmt.nc; c++) {
        p->data[c] = at;
        p->stride[c] = stride[c];
        at += stride[c] * (size_t)p->fmt.height[c];
    }
    *alloc_data = mem;
    return XSF_OK;
}

static void host_release(void *opaque, xsf_picture *p, void *alloc_data)
{
    (void)opaque;
    (void)p;
    free(alloc_data);
}

const xsf_picture_allocator xsf_host_allocator = {NULL, host_alloc, host_release};

xsf_status xsf_picture_alloc(xsf_picture *p, const xsf_picture_allocator *a, xsf_error *err)
{
    if (!a)
        a = &xsf_host_allocator;
    p->ref = NULL;
    memset(p->data, 0, sizeof(p->data));
    memset(p->stride, 0, sizeof(p->stride));
    xsf_status st = xsf_format_check(&p->fmt, err);
    if (st != XSF_OK)
        return st;
    xsf_picture_buffer *r = box_new();
    if (!r)
        return xsf_error_set(err, XSF_ERR_NOMEM, "no memory for a picture reference");
    st = a->alloc(a->opaque, p, &r->alloc_data, err);
    if (st != XSF_OK) {
        box_free(r);
        memset(p->data, 0, sizeof(p->data));
        return st;
    }
    atomic_init(&r->count, 1);
    r->allocator = *a;
    r->planes = *p;
    r->planes.ref = NULL;
    p->ref = r;
    return XSF_OK;
}

void xsf_picture_ref(xsf_picture *dst, const xsf_picture *src)
{
    if (src->ref)
        atomic_fetch_add_explicit(&src->ref->count, 1, memory_order_relaxed);
    *dst = *src;
}

void xsf_picture_unref(xsf_picture *p)
{
    xsf_picture_buffer *r = p->ref;
    if (r && atomic_fetch_sub_explicit(&r->count, 1, memory_order_acq_rel) == 1) {
        if (r->allocator.release)
            r->allocator.release(r->allocator.opaque, &r->planes, r->alloc_data);
        box_free(r);
    }
    xsf_picture_init(p);
}

void xsf_picture_wrap(xsf_picture *p, const xsf_format *f, uint8_t *const data[],
                      const size_t stride[], xsf_memory memory, int device)
{
    xsf_picture_init(p);
    p->fmt = *f;
    for (int c = 0; c < f->nc; c++) {
        p->data[c] = data[c];
        p->stride[c] = stride[c];
    }
    p->memory = memory;
    p->device = device;
}

xsf_status xsf_picture_copy(xsf_picture *dst, const xsf_picture *src, xsf_error *err)
{
    if (dst->memory == XSF_MEMORY_DEVICE || src->memory == XSF_MEMORY_DEVICE)
        return xsf_error_set(err, XSF_ERR_ARG, "xsf_picture_copy copies host pictures only");
    if (!xsf_format_equal(&dst->fmt, &src->fmt))
        return xsf_error_set(err, XSF_ERR_ARG, "xsf_picture_copy: the pictures' formats differ");
    for (int c = 0; c < src->fmt.nc; c++) {
        const size_t row = xsf_format_row_bytes(&src->fmt, c);
        for (int y = 0; y < src->fmt.height[c]; y++)
            memcpy(dst->data[c] + (size_t)y * dst->stride[c],
                   src->data[c] + (size_t)y * src->stride[c], row);
    }
    dst->colour = src->colour;
    dst->props = src->props;
    return XSF_OK;
}
