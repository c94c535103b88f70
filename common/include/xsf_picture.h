/* xsflow picture: the one type that holds pixels, from a decoder's output to
 * a file writer, the pipeline's sinks and the display.
 *
 * A picture is a format (xsf_format: components, their sizes and depths, the
 * sample container), planes (data[c], stride[c] in bytes), where the planes
 * live (host, pinned host, or a GPU), its colour description and the
 * properties that travel with it (RTP timestamp, times).
 *
 * Ownership: planes come from an allocator (xsf_picture_allocator), chosen by
 * whoever asks for the picture, so a decoder writes straight into the memory
 * its caller wants (pinned host buffers of a pool, device memory of a
 * display). xsf_picture_alloc gives a picture holding one reference; every
 * xsf_picture_ref adds one, every xsf_picture_unref drops one, and the last
 * unref hands the planes back to the allocator's release(). A picture whose
 * `ref` is NULL is a view of memory owned elsewhere (a decoder's own planes,
 * valid until its next call, or a caller's buffer): ref/unref only copy and
 * clear it. References may be dropped from any thread; the picture's fields
 * are not otherwise synchronised.
 *
 * Samples (XSF_PLANAR_U16): one plane per component, uint16_t samples holding
 * depth[c] bits, least significant bits used, rows stride[c] bytes apart.
 * Further containers (packed 4:2:2 10-bit such as v210, 8-bit planes) are
 * new xsf_container values; code that only handles planar 16-bit checks the
 * container.
 *
 * Nothing here prints, and nothing here needs CUDA: pinned and device
 * allocators belong to the libraries that link CUDA. */
#ifndef XSF_PICTURE_H
#define XSF_PICTURE_H

#include <stddef.h>
#include <stdint.h>

#include "xsf.h"

#ifdef __cplusplus
extern "C" {
#endif

#define XSF_MAX_COMPONENTS 8

typedef enum xsf_container {
    XSF_PLANAR_U16 = 0, /* a plane per component, uint16_t samples */
} xsf_container;

/* The pixel format: what a picture's planes hold. Component c is width[c] x
 * height[c] samples of depth[c] bits (1..16); the sampling (4:2:2, ...) is
 * read from the sizes relative to component 0 (xsf_format_sampling). */
typedef struct xsf_format {
    xsf_container container;
    int nc; /* components, 1..XSF_MAX_COMPONENTS */
    int width[XSF_MAX_COMPONENTS], height[XSF_MAX_COMPONENTS];
    int depth[XSF_MAX_COMPONENTS];
} xsf_format;

/* Bytes of one sample of the container (2 for XSF_PLANAR_U16). */
size_t xsf_format_sample_bytes(const xsf_format *f);
/* Bytes of one tightly packed row / plane of component c. */
size_t xsf_format_row_bytes(const xsf_format *f, int c);
size_t xsf_format_plane_bytes(const xsf_format *f, int c);
/* Sum of the tightly packed planes. */
size_t xsf_format_bytes(const xsf_format *f);
/* 1 when both describe the same planes (container, components, sizes, depths). */
int xsf_format_equal(const xsf_format *a, const xsf_format *b);
/* XSF_OK when the format is one this type can hold: 1..XSF_MAX_COMPONENTS
 * components, sizes 1..65535, depths 1..16 (and the message says what is not). */
xsf_status xsf_format_check(const xsf_format *f, xsf_error *err);
/* "4:4:4", "4:2:2", "4:2:0", "4:0:0" (one component), "4:4:4:4" (four
 * components of one size), or "other": components 1 and 2 against
 * component 0. */
const char *xsf_format_sampling(const xsf_format *f);

typedef enum xsf_memory {
    XSF_MEMORY_HOST = 0,   /* pageable host memory */
    XSF_MEMORY_PINNED = 1, /* page-locked host memory (CUDA copies run asynchronously) */
    XSF_MEMORY_DEVICE = 2, /* memory of GPU `device` */
} xsf_memory;
const char *xsf_memory_name(xsf_memory m);

/* Colour description, in the code points of ITU-T H.273 (ISO/IEC 23091-2),
 * as AV1, HEVC and the SDP's `colorimetry` map to them. */
enum {
    XSF_PRIMARIES_BT709 = 1,
    XSF_PRIMARIES_UNSPECIFIED = 2,
    XSF_PRIMARIES_BT601 = 6, /* SMPTE 170M */
    XSF_PRIMARIES_BT2020 = 9,
    XSF_TRANSFER_BT709 = 1,
    XSF_TRANSFER_UNSPECIFIED = 2,
    XSF_TRANSFER_BT601 = 6,
    XSF_TRANSFER_SRGB = 13,
    XSF_TRANSFER_PQ = 16,    /* SMPTE ST 2084 */
    XSF_TRANSFER_HLG = 18,   /* ARIB STD-B67 */
    XSF_MATRIX_IDENTITY = 0, /* R'G'B' planes, in the order xsf_colour.rgb_order says */
    XSF_MATRIX_BT709 = 1,
    XSF_MATRIX_UNSPECIFIED = 2,
    XSF_MATRIX_BT601 = 6,
    XSF_MATRIX_BT2020_NCL = 9,
};

typedef enum xsf_range {
    XSF_RANGE_UNSPECIFIED = 0,
    XSF_RANGE_NARROW = 1, /* "video" range: 16..235 at 8 bits, scaled with the depth */
    XSF_RANGE_FULL = 2,   /* 0..2^depth - 1 */
} xsf_range;

/* Where a picture's colour description came from, in the order a caller
 * lets them override each other (the user's --colour over the SDP over the
 * codestream over the default). */
typedef enum xsf_colour_source {
    XSF_COLOUR_DEFAULT = 0,    /* nothing said: the defaults of xsf_colour_default */
    XSF_COLOUR_CODESTREAM = 1, /* the codestream (its colour transform, its boxes) */
    XSF_COLOUR_SDP = 2,        /* the session description (colorimetry, RANGE) */
    XSF_COLOUR_USER = 3,       /* the user (--colour) */
} xsf_colour_source;

typedef struct xsf_colour {
    uint8_t primaries, transfer, matrix; /* H.273 code points */
    uint8_t range;                       /* xsf_range */
    /* With XSF_MATRIX_IDENTITY: 1 when the planes are R, G, B (as JPEG XS and
     * BPC-PaCo decode an RCT), 0 when they are G, B, R (ST 2110's GBR). */
    uint8_t rgb_order;
    uint8_t source; /* xsf_colour_source */
} xsf_colour;

/* Unspecified everything, source XSF_COLOUR_DEFAULT. */
void xsf_colour_default(xsf_colour *c);

/* What travels with a picture. */
typedef struct xsf_picture_props {
    uint64_t index;         /* frame number in its stream or file, from 0 */
    uint32_t rtp_timestamp; /* 90 kHz, when has_rtp_timestamp */
    int has_rtp_timestamp;
    uint64_t
        arrival_ns; /* its last packet (or byte read): the packet clock of xsf_clock.h; 0 unknown */
} xsf_picture_props;

typedef struct xsf_picture xsf_picture;

/* Where planes come from. alloc() is given a picture whose fmt, memory and
 * device are set; it sets data[c] and stride[c] (each stride at least
 * xsf_format_row_bytes, rows of a plane contiguous) and may keep what it
 * needs to release them in *alloc_data. release() gets the same picture and
 * alloc_data back once the last reference is gone, from the thread that
 * dropped it. */
typedef struct xsf_picture_allocator {
    void *opaque;
    xsf_status (*alloc)(void *opaque, xsf_picture *p, void **alloc_data, xsf_error *err);
    void (*release)(void *opaque, xsf_picture *p, void *alloc_data);
} xsf_picture_allocator;

/* Host memory from the C heap, each plane 64-byte aligned, rows tightly
 * packed (stride = row bytes rounded up to 64). Memory XSF_MEMORY_HOST only. */
extern const xsf_picture_allocator xsf_host_allocator;

typedef struct xsf_picture_buffer xsf_picture_buffer; /* count, allocator, alloc_data */

struct xsf_picture {
    xsf_format fmt;
    uint8_t *data[XSF_MAX_COMPONENTS];
    size_t stride[XSF_MAX_COMPONENTS]; /* bytes between the starts of two rows */
    xsf_memory memory;
    int device; /* CUDA device of XSF_MEMORY_DEVICE planes, -1 otherwise */
    xsf_colour colour;
    xsf_picture_props props;
    xsf_picture_buffer *ref; /* NULL: a view (see above) */
};

/* A zeroed picture: no planes, host memory, device -1, default colour. */
void xsf_picture_init(xsf_picture *p);

/* Allocates planes for p->fmt (checked with xsf_format_check) in p->memory
 * (and p->device) from `a` (NULL: xsf_host_allocator); p then holds the one
 * reference. The other fields are kept. On failure p has no planes. The
 * reference's own small record is reused from pictures released before (a
 * few are kept), so that a picture made and dropped each frame costs the
 * allocator's alloc() alone. */
xsf_status xsf_picture_alloc(xsf_picture *p, const xsf_picture_allocator *a, xsf_error *err);

/* *dst becomes src and one more reference to its planes. dst must not hold
 * a reference (unref it first). */
void xsf_picture_ref(xsf_picture *dst, const xsf_picture *src);
/* Drops p's reference (releasing the planes with the last one) and
 * re-initialises p. Safe on a view and on an initialised picture without
 * planes. */
void xsf_picture_unref(xsf_picture *p);

/* A view of planes owned elsewhere: p->fmt set from f, data/stride from the
 * arguments, memory and device as given; ref NULL. */
void xsf_picture_wrap(xsf_picture *p, const xsf_format *f, uint8_t *const data[],
                      const size_t stride[], xsf_memory memory, int device);

/* Row y of component c of a XSF_PLANAR_U16 picture (host or device address). */
static inline uint16_t *xsf_picture_row16(const xsf_picture *p, int c, int y)
{
    return (uint16_t *)(void *)(p->data[c] + (size_t)y * p->stride[c]);
}

/* Copies the samples of src into dst, both in host memory (host or pinned)
 * of equal formats. The colour and properties are copied too. */
xsf_status xsf_picture_copy(xsf_picture *dst, const xsf_picture *src, xsf_error *err);

#ifdef __cplusplus
}
#endif
#endif
