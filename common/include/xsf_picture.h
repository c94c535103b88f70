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
 * Samples (XSF_PLANAR_U16, what the decoders give): one plane per
 * component, uint16_t samples holding depth[c] bits, least significant bits
 * used, rows stride[c] bytes apart. The output pixel formats (v210, P210,
 * RGBA, ...) are further xsf_container values: data[p] and stride[p] are
 * then indexed by plane (xsf_format_planes), and the components (nc, width,
 * height, depth) say what the planes carry. xsf_format_convert gives the
 * format of a decoded picture converted to one, xsf_picture_convert does it
 * on the host (the reference of the GPU's conversion; the per-pixel
 * arithmetic is xsf_pixfmt_pack.h). Code that only handles planar 16-bit
 * checks the container.
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

/* The containers: how samples are laid out in planes. For each, the
 * components of its xsf_format (W x H the picture's size, cw = ceil(W/2),
 * ch = ceil(H/2)) and its planes (row bytes x rows). Samples wider than a
 * byte, and v210's words, are little-endian; pixels past W in a row's last
 * group, and bytes past the last group, are 0.
 *   planar16 nc as decoded, any sizes, depths 1..16 | nc planes, uint16 samples
 *            (least significant bits), width[c]*2 x height[c]
 *   planar8  nc as decoded, any sizes, depths 8 | nc planes of uint8, width[c] x height[c]
 *   v210     3: W x H, cw x H, cw x H; depth 10 | 1 plane, ceil(W/48)*128 x H; per 6
 *            pixels 4 words: Cb0|Y0<<10|Cr0<<20, Y1|Cb1<<10|Y2<<20,
 *            Cr1|Y3<<10|Cb2<<20, Y4|Cr2<<10|Y5<<20
 *   pgroup   3: 4:2:2 as v210; depth 10 | 1 plane, cw*5 x H; per 2 pixels Cb Y0 Cr Y1,
 *            10 bits each, most significant bit first (ST 2110-20)
 *   p210     3: 4:2:2; depth 10 | plane 0 Y, W*2 x H; plane 1 Cb Cr interleaved,
 *            cw*4 x H; uint16 samples holding value << 6
 *   p010     3: 4:2:0 (cw x ch); depth 10 | as p210 with ch chroma rows
 *   uyvy     3: 4:2:2; depth 8 | 1 plane, cw*4 x H; per 2 pixels bytes Cb Y0 Cr Y1
 *   nv12     3: 4:2:0; depth 8 | plane 0 Y, W x H; plane 1 Cb Cr interleaved, cw*2 x ch
 *   i420     3: 4:2:0; depth 8 | 3 planes Y (W x H), Cb (cw x ch), Cr (cw x ch)
 *   rgba     4: R G B A, all W x H; depth 8 | 1 plane, W*4 x H; bytes R G B A
 *   bgra     4: R G B A, all W x H; depth 8 | 1 plane, W*4 x H; bytes B G R A
 *   rgb48    3: R G B, all W x H; depth 16 | 1 plane, W*6 x H; uint16 R G B
 *   rgbf32   3: R G B, all W x H; depth 16 | 3 planes R, G, B of W*4 x H: float32
 *            in [0, 1], the 16-bit value / 65535 */
typedef enum xsf_container {
    XSF_PLANAR_U16 = 0, /* a plane per component, uint16_t samples */
    XSF_PLANAR_U8 = 1,
    XSF_V210 = 2,
    XSF_PGROUP10 = 3,
    XSF_P210 = 4,
    XSF_P010 = 5,
    XSF_UYVY = 6,
    XSF_NV12 = 7,
    XSF_I420 = 8,
    XSF_RGBA8 = 9,
    XSF_BGRA8 = 10,
    XSF_RGB48 = 11,
    XSF_RGBF32 = 12,
} xsf_container;
#define XSF_CONTAINERS 13

/* The names of --pix-fmt, in one line for usage texts and messages. */
#define XSF_CONTAINER_WORDS                                                                        \
    "planar16 (or planar), planar8, v210, pgroup, p210, p010, uyvy, nv12, i420, rgba, bgra, "      \
    "rgb48, rgbf32"
/* "planar16", "v210", ...; "?" for a value that is not a container. */
const char *xsf_container_name(xsf_container c);
/* The container named `name` (case does not matter; "planar" is planar16). */
xsf_status xsf_container_parse(const char *name, xsf_container *out, xsf_error *err);
/* 1 for the R'G'B' containers (rgba, bgra, rgb48, rgbf32). */
int xsf_container_is_rgb(xsf_container c);
/* 1 for the Y'CbCr containers of fixed sampling (v210 .. i420). */
int xsf_container_is_ycbcr(xsf_container c);

/* The pixel format: what a picture's planes hold. Component c is width[c] x
 * height[c] samples of depth[c] bits (1..16); the sampling (4:2:2, ...) is
 * read from the sizes relative to component 0 (xsf_format_sampling). The
 * container's table above says how they lie in planes. */
typedef struct xsf_format {
    xsf_container container;
    int nc; /* components, 1..XSF_MAX_COMPONENTS */
    int width[XSF_MAX_COMPONENTS], height[XSF_MAX_COMPONENTS];
    int depth[XSF_MAX_COMPONENTS];
} xsf_format;

/* Bytes of one sample in the container's planes: 2 (planar16, p210, p010,
 * rgb48), 1 (planar8, uyvy, nv12, i420, rgba, bgra), 4 (rgbf32), 0 for v210
 * and pgroup (10-bit samples packed across bytes). */
size_t xsf_format_sample_bytes(const xsf_format *f);
/* The planes: how many (nc for planar16 and planar8, where plane c is
 * component c), and the bytes of one tightly packed row, the rows and the
 * bytes of plane p. */
int xsf_format_planes(const xsf_format *f);
size_t xsf_format_row_bytes(const xsf_format *f, int p);
int xsf_format_plane_rows(const xsf_format *f, int p);
size_t xsf_format_plane_bytes(const xsf_format *f, int p);
/* Sum of the tightly packed planes. */
size_t xsf_format_bytes(const xsf_format *f);
/* 1 when both describe the same planes (container, components, sizes, depths). */
int xsf_format_equal(const xsf_format *a, const xsf_format *b);
/* XSF_OK when the format is one this type can hold: 1..XSF_MAX_COMPONENTS
 * components, sizes 1..65535, depths 1..16, and for the containers other
 * than planar16 the components of the table above (and the message says
 * what is not). */
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

/* The format of a decoded picture (XSF_PLANAR_U16, colour `colour`)
 * converted to `target`, or why that conversion does not apply
 * (XSF_ERR_UNSUPPORTED, the message naming the format and the reason):
 *  - planar16, planar8: any source (each component depth-converted);
 *  - v210 .. i420 (Y'CbCr): 3 components whose chroma resamples to the
 *    format's (per axis the same size, 2:1 down or 1:2 up) and a Y'CbCr
 *    colour (xsf_colour_effective's matrix not identity), or one component
 *    (gray: Cb = Cr = the middle value);
 *  - rgba, bgra, rgb48, rgbf32: 1, 3 or 4 components (the fourth is alpha;
 *    A = 255 without), components 0..2 of one depth, chroma that upsamples
 *    to 4:4:4.
 * `decoded` must be XSF_PLANAR_U16 and pass xsf_format_check. */
xsf_status xsf_format_convert(const xsf_format *decoded, const xsf_colour *colour,
                              xsf_container target, xsf_format *out, xsf_error *err);
/* The colour description of a picture converted to `target`: R'G'B' full
 * range (rgb_order 1, primaries and transfer kept) for the RGB containers;
 * a gray R'G'B' source given as Y'CbCr says BT.709 (its chroma is neutral);
 * otherwise `colour` as it is. The source is kept, XSF_COLOUR_CODESTREAM
 * where it was XSF_COLOUR_DEFAULT and the description changed. */
xsf_colour xsf_colour_convert(const xsf_colour *colour, const xsf_format *decoded,
                              xsf_container target);

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

/* Copies the planes of src into dst, both in host memory (host or pinned)
 * of equal formats (any container). The colour and properties are copied too. */
xsf_status xsf_picture_copy(xsf_picture *dst, const xsf_picture *src, xsf_error *err);

/* Converts src (XSF_PLANAR_U16, host or pinned memory) into dst, whose
 * planes the caller allocated in host memory with the format
 * xsf_format_convert gives for src's format and colour and dst->fmt.container
 * (XSF_ERR_ARG when it is another). dst's colour becomes
 * xsf_colour_convert's, its properties src's. The C reference of the
 * output formats: the arithmetic is xsf_pixfmt_pack.h's, the rows are
 * written whole (the padding of the table above included). */
xsf_status xsf_picture_convert(xsf_picture *dst, const xsf_picture *src, xsf_error *err);

#ifdef __cplusplus
}
#endif
#endif
