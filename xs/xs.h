/* xsflow JPEG XS (ISO/IEC 21122-1, second edition): codestream reader and the
 * C reference decoder. */
#ifndef XSF_XS_H
#define XSF_XS_H

#include "xsf.h"

#ifdef __cplusplus
extern "C" {
#endif

#define XS_MAX_COMPONENTS 8
#define XS_MAX_BANDS 256 /* components x bands per component, bounded by the header checks */

/* Markers (21122-1 Table A.2). */
enum {
    XS_MARKER_SOC = 0xff10,
    XS_MARKER_EOC = 0xff11,
    XS_MARKER_PIH = 0xff12,
    XS_MARKER_CDT = 0xff13,
    XS_MARKER_WGT = 0xff14,
    XS_MARKER_COM = 0xff15,
    XS_MARKER_NLT = 0xff16,
    XS_MARKER_CWD = 0xff17,
    XS_MARKER_CTS = 0xff18,
    XS_MARKER_CRG = 0xff19,
    XS_MARKER_SLH = 0xff20,
    XS_MARKER_CAP = 0xff50,
};

/* What the headers of one codestream say (everything up to the first SLH). */
typedef struct xs_header {
    /* CAP */
    uint32_t cap_bits;      /* capability bits as read, bit i = cap[i] */
    /* PIH */
    uint32_t lcod;          /* codestream length in bytes, 0 = not signalled (VBR) */
    uint16_t ppih, plev;    /* profile; level (high byte) and sublevel (low byte) */
    uint16_t wf, hf;        /* frame width and height in samples */
    uint16_t cw;            /* precinct width in units of 8 * 2^NLx samples, 0 = full width */
    uint16_t hsl;           /* slice height in precincts */
    uint8_t nc;             /* components */
    uint8_t ng;             /* coefficients per code group (4) */
    uint8_t ss;             /* code groups per significance group (8) */
    uint8_t bw;             /* nominal bit precision of the wavelet coefficients */
    uint8_t fq;             /* fractional bits of the wavelet coefficients */
    uint8_t br;             /* bits encoding a bitplane count (4) */
    uint8_t fslc;           /* slice coding mode */
    uint8_t ppoc;           /* progression order */
    uint8_t cpih;           /* colour transform: 0 none, 1 RCT, 3 Star-Tetrix */
    uint8_t nlx, nly;       /* horizontal and vertical decomposition levels */
    uint8_t lh;             /* long precinct headers */
    uint8_t rl;             /* raw-mode selection per packet */
    uint8_t qpih;           /* inverse quantizer: 0 deadzone, 1 uniform */
    uint8_t fs;             /* sign handling: 0 inline, 1 sign packing */
    uint8_t rm;             /* run mode: 0 zero prediction residuals, 1 zero coefficients */
    /* CDT */
    uint8_t depth[XS_MAX_COMPONENTS]; /* B[c] */
    uint8_t sx[XS_MAX_COMPONENTS], sy[XS_MAX_COMPONENTS];
    /* WGT, in band order (21122-1 B.3) */
    int nbands;             /* entries in gain/priority */
    uint8_t gain[XS_MAX_BANDS], priority[XS_MAX_BANDS];
    /* NLT */
    uint8_t tnlt;           /* 0 none, 1 quadratic, 2 extended */
    uint8_t nlt_sigma;      /* quadratic: sign of the DC offset */
    uint16_t nlt_alpha;     /* quadratic: DC offset */
    uint32_t nlt_t1, nlt_t2;/* extended: thresholds */
    uint8_t nlt_e;          /* extended: exponent */
    /* CWD */
    uint8_t sd;             /* components with suppressed decomposition (last Sd) */
    /* CTS */
    uint8_t has_cts, cts_cf, cts_e1, cts_e2;
    /* CRG */
    uint8_t has_crg;
    uint16_t crg_x[XS_MAX_COMPONENTS], crg_y[XS_MAX_COMPONENTS];
    /* Where the first slice header starts, from the start of the codestream. */
    size_t header_bytes;
} xs_header;

/* Parses SOC and every marker segment up to (not including) the first SLH.
 * On error, `err` names the byte offset, the marker and the reason. */
xsf_status xs_parse_header(const uint8_t *buf, size_t len, xs_header *hdr, xsf_error *err);

/* Human-readable names for `xsflow info`. */
const char *xs_profile_name(uint16_t ppih);
const char *xs_level_name(uint16_t plev);
const char *xs_sublevel_name(uint16_t plev);

/* The byte layout of one codestream, found by walking its precinct headers
 * (no entropy decoding): where it ends and where each slice begins. */
typedef struct xs_layout {
    size_t codestream_bytes;  /* SOC .. EOC inclusive */
    size_t header_bytes;      /* SOC .. first SLH */
    size_t nslices;
    size_t *slice_offset;     /* nslices entries: the offset of each SLH (owned, free with xs_layout_free) */
} xs_layout;
xsf_status xs_scan_layout(const uint8_t *buf, size_t len, xs_layout *layout, xsf_error *err);
void xs_layout_free(xs_layout *layout);

/* Decoded picture: one plane per component, samples at the component's
 * depth B[c] in uint16 (unsigned, right-aligned). */
typedef struct xs_image {
    int nc;
    int width[XS_MAX_COMPONENTS], height[XS_MAX_COMPONENTS];
    int depth[XS_MAX_COMPONENTS];
    size_t pitch[XS_MAX_COMPONENTS]; /* samples between rows */
    uint16_t *plane[XS_MAX_COMPONENTS];
} xs_image;

typedef struct xs_decoder xs_decoder;

xsf_status xs_decoder_create(xs_decoder **dec);
void xs_decoder_destroy(xs_decoder *dec);

/* Decodes the codestream starting at buf[0]. On success *consumed is its size
 * in bytes (a file of several frames is decoded by calling again at
 * buf + *consumed), and *img points to planes owned by the decoder, valid
 * until the next call. */
xsf_status xs_decode(xs_decoder *dec, const uint8_t *buf, size_t len, size_t *consumed,
                     const xs_image **img);
const xs_header *xs_decoder_header(const xs_decoder *dec);
const char *xs_decoder_error(const xs_decoder *dec);

#ifdef __cplusplus
}
#endif
#endif
