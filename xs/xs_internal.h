/* Internal structures of the JPEG XS reader and decoder: the band and packet
 * geometry derived from the headers (21122-1 Annex B). */
#ifndef XS_INTERNAL_H
#define XS_INTERNAL_H

#include <string.h>

#include "wavelet.h"
#include "xs.h"

#define XS_MAX_NLX 8
#define XS_MAX_NLY 2
#define XS_MAX_BETA (2 * XS_MAX_NLY + XS_MAX_NLX + 1) /* band positions per component */
#define XS_MAX_PACKETS (2 * XS_MAX_BETA + 8 * 4 + 1)
#define XS_MAX_GCLI 15 /* a bitplane count fits in the 4 bits of the raw mode */

/* Largest picture the decoder accepts, in samples over all components: it
 * bounds every allocation made from header fields. */
#define XS_MAX_SAMPLES ((size_t)1 << 27) /* 8K 4:4:4 fits; ~800 MB of buffers at most */

typedef struct xs_component {
    int width, height; /* Wc = Wf / sx, Hc = Hf / sy */
    int nlx, nly;      /* decomposition levels of this component */
    int sx, sy;
} xs_component;

/* One band that exists in the codestream, in the order of 21122-1 Table B.x:
 * band position beta major, component minor (the order of WGT and D[p,b]). */
typedef struct xs_band {
    int comp;
    int beta;
    int lx;     /* horizontal decomposition level of the band (0: none) */
    int x0, y0; /* origin in the component's Mallat plane */
    int width, height;
    int lines;     /* lines of this band in one precinct */
    int col_width; /* coefficients in one precinct column (the last may have fewer) */
    uint8_t gain, priority;
    size_t gcli_stride; /* code groups in one row of the band, over all precinct columns */
    size_t gcli_offset; /* offset of the band's first code group in xs_geometry.gcli storage */
} xs_band;

typedef struct xs_packet {
    int line;        /* line index inside the precinct */
    int first, last; /* bands [first, last) of xs_geometry.band */
} xs_packet;

typedef struct xs_geometry {
    int nc, ncd; /* components, components with decomposition (Nc - Sd) */
    xs_component comp[XS_MAX_COMPONENTS];
    int nbands; /* bands that exist */
    xs_band band[XS_MAX_BANDS];
    int npackets;
    xs_packet packet[XS_MAX_PACKETS];
    int precinct_height; /* 2^NLy lines of the frame */
    int rows, cols;      /* precincts per column and per row of the frame */
    int slices;
    int long_headers;             /* 7-byte packet headers */
    size_t precinct_header_bytes; /* Lprc, Q, R and the D[p,b] bits, byte aligned */
    size_t gcli_total;            /* code groups of all bands over the frame */
    size_t samples;               /* sum of Wc * Hc */
} xs_geometry;

/* Derives the geometry from a parsed header; validates every combination it
 * depends on. `err` receives a message naming the field at fault. */
xsf_status xs_geometry_init(xs_geometry *g, const xs_header *hdr, xsf_error *err);

/* The 5/3 wavelet plan (21122-1 Annex E, int32 samples) of `planes`
 * components of cp's size and decomposition, stored one after the other
 * without padding. */
static inline wav_plan_desc xs_dwt_desc(const xs_component *cp, int planes)
{
    wav_plan_desc d;
    memset(&d, 0, sizeof d);
    d.width = (size_t)cp->width;
    d.height = (size_t)cp->height;
    d.pitch = d.width;
    d.planes = (size_t)planes;
    d.plane_stride = d.width * d.height;
    d.filter = WAV_FILTER_53;
    d.sample = WAV_INT32;
    d.levels_v = cp->nly;
    d.levels_h = cp->nlx;
    return d;
}

/* How many components from c on (before end) have c's size and
 * decomposition: stored one after the other, one multi-plane plan
 * transforms them together (Cb and Cr of 4:2:2, all of 4:4:4). */
static inline int xs_dwt_group(const xs_geometry *g, int c, int end)
{
    const xs_component *cp = &g->comp[c];
    int n = 1;
    while (c + n < end && g->comp[c + n].width == cp->width &&
           g->comp[c + n].height == cp->height && g->comp[c + n].nlx == cp->nlx &&
           g->comp[c + n].nly == cp->nly)
        n++;
    return n;
}

/* Whether two headers lead to the same buffer shapes (sizes, sampling,
 * depths, levels, precincts, slices): a decoder then reuses its memory. */
int xs_same_format(const xs_header *a, const xs_header *b);

/* Width and height of band b inside precinct (row, col); zero if absent. */
static inline int xs_band_prec_width(const xs_geometry *g, const xs_band *b, int col)
{
    int x = col * b->col_width;
    int w = b->width - x;
    (void)g;
    return w < 0 ? 0 : (w < b->col_width ? w : b->col_width);
}
static inline int xs_band_prec_height(const xs_band *b, int row)
{
    int h = b->height - row * b->lines;
    return h < 0 ? 0 : (h < b->lines ? h : b->lines);
}

/* Walks slices and precincts by their lengths (layout.c); fills slice_offset
 * and precinct_offset (row-major) when not NULL, and *total with the
 * codestream size. */
xsf_status xs_walk(const uint8_t *buf, size_t len, const xs_header *h, const xs_geometry *g,
                   size_t *slice_offset, uint32_t *precinct_offset, size_t *total, xsf_error *err);
/* The same one slice at a time, for codestreams that arrive piecewise: slice
 * s starting at *offset (which moves past it on success). XSF_ERR_TRUNCATED
 * when buf[0, len) ends inside the slice (more bytes may still make it whole;
 * *offset is then unchanged); any other error is final. */
xsf_status xs_walk_slice(const uint8_t *buf, size_t len, const xs_header *h, const xs_geometry *g,
                         int s, size_t *offset, size_t *slice_offset, uint32_t *precinct_offset,
                         xsf_error *err);
/* After the last slice: the EOC marker at `offset` and Lcod; *total is the codestream size. */
xsf_status xs_walk_end(const uint8_t *buf, size_t len, const xs_header *h, size_t offset,
                       size_t *total, xsf_error *err);

/* 21122-1 C.7 bounded code: the residual of a vertically predicted bitplane
 * count cannot fall below -thr (the count cannot fall below the truncation
 * position), so the unary symbol x folds the signed range [-thr, thr] as
 * 0, -1, 1, -2, 2 ... and counts beyond it directly. */
static inline int xs_bounded_residual(int x, int thr)
{
    if (x > 2 * thr)
        return x - thr;
    return (x & 1) ? -((x + 1) >> 1) : (x >> 1);
}

/* Inverse reversible colour transform (21122-1 F.3) on n samples. */
void xs_inverse_rct(int32_t *c0, int32_t *c1, int32_t *c2, size_t n);

/* codec_xs_enc.c: the encoders of xs_codec's table (codec_xs.c). */
extern const struct xsf_encoder_ops xs_codec_encoder;

#endif
