/* xsflow picture: formats, reference counting and the host allocator. */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */
#include "xsf_picture.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "xsf_colour.h"
#include "xsf_pixfmt_pack.h"

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

static const struct container_info {
    const char *name;
    uint8_t sample_bytes; /* xsf_format_sample_bytes */
    uint8_t planes;       /* 0: one per component */
    uint8_t depth;        /* the components' depth; 0: as decoded (planar16) */
    uint8_t nc;           /* components; 0: as decoded */
    uint8_t cw2, ch2;     /* 1 where chroma (components 1, 2) is halved across, down */
} containers[XSF_CONTAINERS] = {
    [XSF_PLANAR_U16] = {"planar16", 2, 0, 0, 0, 0, 0},
    [XSF_PLANAR_U8] = {"planar8", 1, 0, 8, 0, 0, 0},
    [XSF_V210] = {"v210", 0, 1, 10, 3, 1, 0},
    [XSF_PGROUP10] = {"pgroup", 0, 1, 10, 3, 1, 0},
    [XSF_P210] = {"p210", 2, 2, 10, 3, 1, 0},
    [XSF_P010] = {"p010", 2, 2, 10, 3, 1, 1},
    [XSF_UYVY] = {"uyvy", 1, 1, 8, 3, 1, 0},
    [XSF_NV12] = {"nv12", 1, 2, 8, 3, 1, 1},
    [XSF_I420] = {"i420", 1, 3, 8, 3, 1, 1},
    [XSF_RGBA8] = {"rgba", 1, 1, 8, 4, 0, 0},
    [XSF_BGRA8] = {"bgra", 1, 1, 8, 4, 0, 0},
    [XSF_RGB48] = {"rgb48", 2, 1, 16, 3, 0, 0},
    [XSF_RGBF32] = {"rgbf32", 4, 3, 16, 3, 0, 0},
};

static const struct container_info *info(xsf_container c)
{
    return (unsigned)c < XSF_CONTAINERS ? &containers[c] : NULL;
}

const char *xsf_container_name(xsf_container c)
{
    return info(c) ? info(c)->name : "?";
}

xsf_status xsf_container_parse(const char *name, xsf_container *out, xsf_error *err)
{
    if (name && !strcasecmp(name, "planar")) {
        *out = XSF_PLANAR_U16;
        return XSF_OK;
    }
    for (int c = 0; name && c < XSF_CONTAINERS; c++)
        if (!strcasecmp(name, containers[c].name)) {
            *out = (xsf_container)c;
            return XSF_OK;
        }
    return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a pixel format: " XSF_CONTAINER_WORDS,
                         name ? name : "");
}

int xsf_container_is_rgb(xsf_container c)
{
    return c == XSF_RGBA8 || c == XSF_BGRA8 || c == XSF_RGB48 || c == XSF_RGBF32;
}

int xsf_container_is_ycbcr(xsf_container c)
{
    return c >= XSF_V210 && c <= XSF_I420;
}

size_t xsf_format_sample_bytes(const xsf_format *f)
{
    return info(f->container) ? info(f->container)->sample_bytes : 0;
}

int xsf_format_planes(const xsf_format *f)
{
    const struct container_info *i = info(f->container);
    return !i ? 0 : i->planes ? i->planes : f->nc;
}

size_t xsf_format_row_bytes(const xsf_format *f, int p)
{
    const size_t w = (size_t)f->width[0], cw = (w + 1) / 2;
    switch (f->container) {
    case XSF_PLANAR_U16:
    case XSF_PLANAR_U8: return (size_t)f->width[p] * xsf_format_sample_bytes(f);
    case XSF_V210: return (w + 47) / 48 * 128;
    case XSF_PGROUP10: return cw * 5;
    case XSF_P210:
    case XSF_P010: return p ? cw * 4 : w * 2;
    case XSF_UYVY: return cw * 4;
    case XSF_NV12: return p ? cw * 2 : w;
    case XSF_I420: return p ? cw : w;
    case XSF_RGBA8:
    case XSF_BGRA8: return w * 4;
    case XSF_RGB48: return w * 6;
    case XSF_RGBF32: return w * 4;
    }
    return 0;
}

int xsf_format_plane_rows(const xsf_format *f, int p)
{
    const struct container_info *i = info(f->container);
    if (!i || !i->planes)
        return f->height[p];
    return p && i->ch2 ? (f->height[0] + 1) / 2 : f->height[0];
}

size_t xsf_format_plane_bytes(const xsf_format *f, int p)
{
    return xsf_format_row_bytes(f, p) * (size_t)xsf_format_plane_rows(f, p);
}

size_t xsf_format_bytes(const xsf_format *f)
{
    size_t n = 0;
    const int planes = xsf_format_planes(f);
    for (int p = 0; p < planes; p++)
        n += xsf_format_plane_bytes(f, p);
    return n;
}

/* The components of container `c` for a picture of w x h whose decoded
 * format (components, depths) is `src`: the descriptor of the table in
 * xsf_picture.h. */
static void container_shape(xsf_container c, const xsf_format *src, xsf_format *out)
{
    const struct container_info *i = info(c);
    const int w = src->width[0], h = src->height[0];
    *out = *src;
    out->container = c;
    if (i->nc) {
        memset(out->width, 0, sizeof(out->width));
        memset(out->height, 0, sizeof(out->height));
        memset(out->depth, 0, sizeof(out->depth));
        out->nc = i->nc;
        for (int k = 0; k < i->nc; k++) {
            const int chroma = k == 1 || k == 2;
            out->width[k] = chroma && i->cw2 ? (w + 1) / 2 : w;
            out->height[k] = chroma && i->ch2 ? (h + 1) / 2 : h;
        }
    }
    if (i->depth)
        for (int k = 0; k < out->nc; k++)
            out->depth[k] = i->depth;
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
    if (!info(f->container))
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
    xsf_format shape;
    container_shape(f->container, f, &shape);
    if (!xsf_format_equal(f, &shape))
        return xsf_error_set(err, XSF_ERR_ARG,
                             "a %s picture of %dx%d has other components (see xsf_picture.h)",
                             xsf_container_name(f->container), f->width[0], f->height[0]);
    return XSF_OK;
}

/* Why the chroma of `d` (components 1, 2) does not resample to `shape`'s
 * per the rules of xsf_pixfmt_pack.h; NULL when it does. */
static const char *chroma_refused(const xsf_format *d, const xsf_format *shape)
{
    for (int c = 1; c < 3 && c < d->nc; c++)
        if (xsf_px_axis(d->width[c], shape->width[c]) == XSF_PX_AXIS_NONE ||
            xsf_px_axis(d->height[c], shape->height[c]) == XSF_PX_AXIS_NONE)
            return "its chroma is neither the format's, half of it nor twice it";
    return NULL;
}

xsf_status xsf_format_convert(const xsf_format *decoded, const xsf_colour *colour,
                              xsf_container target, xsf_format *out, xsf_error *err)
{
    if (!info(target))
        return xsf_error_set(err, XSF_ERR_ARG, "pixel format %d is not known", (int)target);
    if (decoded->container != XSF_PLANAR_U16)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "a %s picture is converted again: only decoded "
                             "(planar16) pictures are",
                             xsf_container_name(decoded->container));
    xsf_status st = xsf_format_check(decoded, err);
    if (st != XSF_OK)
        return st;
    const char *why = NULL;
    const int nc = decoded->nc;
    xsf_format shape;
    container_shape(target, decoded, &shape);
    if (xsf_container_is_ycbcr(target)) {
        if (nc != 1 && nc != 3)
            why = "it takes 1 (gray) or 3 components";
        else if (nc == 3 && xsf_colour_effective(colour).matrix == XSF_MATRIX_IDENTITY)
            why = "the picture is R'G'B', not Y'CbCr";
        else
            why = chroma_refused(decoded, &shape);
    } else if (xsf_container_is_rgb(target)) {
        if (nc != 1 && nc != 3 && nc != 4)
            why = "it takes 1, 3 or 4 (with alpha) components";
        else if (nc > 1 &&
                 (decoded->depth[1] != decoded->depth[0] || decoded->depth[2] != decoded->depth[0]))
            why = "components 0, 1 and 2 have different depths";
        else if (nc == 4 && (decoded->width[3] != decoded->width[0] ||
                             decoded->height[3] != decoded->height[0]))
            why = "its alpha is not the size of the picture";
        else
            why = chroma_refused(decoded, &shape);
    }
    if (why)
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                             "pixel format %s does not apply to a %s "
                             "%dx%d picture of %d components: %s",
                             xsf_container_name(target), xsf_format_sampling(decoded),
                             decoded->width[0], decoded->height[0], nc, why);
    *out = shape;
    return XSF_OK;
}

xsf_colour xsf_colour_convert(const xsf_colour *colour, const xsf_format *decoded,
                              xsf_container target)
{
    const xsf_colour e = xsf_colour_effective(colour);
    xsf_colour out = *colour;
    const uint8_t source =
        colour->source == XSF_COLOUR_DEFAULT ? XSF_COLOUR_CODESTREAM : colour->source;
    if (xsf_container_is_rgb(target)) {
        xsf_colour_rgb(&out, (xsf_colour_source)source);
        out.primaries = e.primaries;
        out.transfer = e.transfer;
    } else if (xsf_container_is_ycbcr(target) && decoded->nc == 1 &&
               e.matrix == XSF_MATRIX_IDENTITY) {
        out = e;
        out.matrix = XSF_MATRIX_BT709;
        out.source = source;
    }
    return out;
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
    const int planes = xsf_format_planes(&p->fmt);
    for (int c = 0; c < planes; c++) {
        stride[c] = (xsf_format_row_bytes(&p->fmt, c) + 63) & ~(size_t)63;
        total += stride[c] * (size_t)xsf_format_plane_rows(&p->fmt, c);
    }
    uint8_t *mem = aligned_alloc(64, total ? total : 64);
    if (!mem)
        return xsf_error_set(err, XSF_ERR_NOMEM, "no memory for a %zu-byte picture", total);
    uint8_t *at = mem;
    for (int c = 0; c < planes; c++) {
        p->data[c] = at;
        p->stride[c] = stride[c];
        at += stride[c] * (size_t)xsf_format_plane_rows(&p->fmt, c);
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
    const int planes = xsf_format_planes(f);
    for (int c = 0; c < planes; c++) {
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
    const int planes = xsf_format_planes(&src->fmt);
    for (int c = 0; c < planes; c++) {
        const size_t row = xsf_format_row_bytes(&src->fmt, c);
        const int rows = xsf_format_plane_rows(&src->fmt, c);
        for (int y = 0; y < rows; y++)
            memcpy(dst->data[c] + (size_t)y * dst->stride[c],
                   src->data[c] + (size_t)y * src->stride[c], row);
    }
    dst->colour = src->colour;
    dst->props = src->props;
    return XSF_OK;
}
