/* xsflow JPEG XS (ISO/IEC 21122-1, second edition): codestream reader and the
 * C reference decoder. */
#ifndef XSF_XS_H
#define XSF_XS_H

#include "xsf.h"
#include "xsf_picture.h"
#include "xsf_pool.h"

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
    uint32_t cap_bits; /* capability bits as read, bit i = cap[i] */
    /* PIH */
    uint32_t lcod;       /* codestream length in bytes, 0 = not signalled (VBR) */
    uint16_t ppih, plev; /* profile; level (high byte) and sublevel (low byte) */
    uint16_t wf, hf;     /* frame width and height in samples */
    uint16_t cw;         /* precinct width in units of 8 * 2^NLx samples, 0 = full width */
    uint16_t hsl;        /* slice height in precincts */
    uint8_t nc;          /* components */
    uint8_t ng;          /* coefficients per code group (4) */
    uint8_t ss;          /* code groups per significance group (8) */
    uint8_t bw;          /* nominal bit precision of the wavelet coefficients */
    uint8_t fq;          /* fractional bits of the wavelet coefficients */
    uint8_t br;          /* bits encoding a bitplane count (4) */
    uint8_t fslc;        /* slice coding mode */
    uint8_t ppoc;        /* progression order */
    uint8_t cpih;        /* colour transform: 0 none, 1 RCT, 3 Star-Tetrix */
    uint8_t nlx, nly;    /* horizontal and vertical decomposition levels */
    uint8_t lh;          /* long precinct headers */
    uint8_t rl;          /* raw-mode selection per packet */
    uint8_t qpih;        /* inverse quantizer: 0 deadzone, 1 uniform */
    uint8_t fs;          /* sign handling: 0 inline, 1 sign packing */
    uint8_t rm;          /* run mode: 0 zero prediction residuals, 1 zero coefficients */
    /* CDT */
    uint8_t depth[XS_MAX_COMPONENTS]; /* B[c] */
    uint8_t sx[XS_MAX_COMPONENTS], sy[XS_MAX_COMPONENTS];
    /* WGT, in band order (21122-1 B.3) */
    int nbands; /* entries in gain/priority */
    uint8_t gain[XS_MAX_BANDS], priority[XS_MAX_BANDS];
    /* NLT */
    uint8_t tnlt;            /* 0 none, 1 quadratic, 2 extended */
    uint8_t nlt_sigma;       /* quadratic: sign of the DC offset */
    uint16_t nlt_alpha;      /* quadratic: DC offset */
    uint32_t nlt_t1, nlt_t2; /* extended: thresholds */
    uint8_t nlt_e;           /* extended: exponent */
    /* CWD */
    uint8_t sd; /* components with suppressed decomposition (last Sd) */
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

/* What the headers say, in words, as `xsflow info` prints a frame: one line each
 * ("  picture       320x180, 3 components, 4:2:2, 10 bits\n") for the picture, its
 * components, profile, level and sublevel, then `warning` (may be NULL) as a line of
 * its own, size, slices, precincts, wavelet, coefficients, coding tools, colour, NLT,
 * CTS, CRG and CAP; with `verbose`, the weights table. Writes at most cap bytes, NUL
 * terminated (buf may be NULL with cap 0); returns the length of the whole text, as
 * snprintf does. */
size_t xs_header_describe(const xs_header *h, int verbose, const char *warning, char *buf,
                          size_t cap);
/* 1 when the headers are equal but for what may change from frame to frame (Lcod,
 * the headers' length). */
int xs_header_same(const xs_header *a, const xs_header *b);

/* ISO/IEC 21122-2 levels and sublevels. Plev = level << 8 | sublevel; a
 * level bounds the picture's size, a sublevel the codestream's bit rate in
 * bits per pixel of the picture's own wf x hf grid (x 4 with the Star-Tetrix
 * transform, Cpih 3), as the ISO reference model computes it. The frame
 * rate is not in the codestream and is not checked. */
enum {
    XS_SUBLEVEL_UNRESTRICTED = 0x00,
    XS_SUBLEVEL_FULL = 0x80, /* the profile's own bound (Nbpp at Full) */
    XS_SUBLEVEL_12BPP = 0x10,
    XS_SUBLEVEL_9BPP = 0x0c,
    XS_SUBLEVEL_6BPP = 0x08,
    XS_SUBLEVEL_4BPP = 0x06,
    XS_SUBLEVEL_3BPP = 0x04,
    XS_SUBLEVEL_2BPP = 0x03,
};

/* The bits per pixel a sublevel allows under profile `ppih`: the Full
 * sublevel's depends on the profile; UINT32_MAX for Unrestricted; 0 for an
 * unknown sublevel (or Full under an unknown profile). */
unsigned xs_sublevel_max_bpp(uint16_t ppih, uint8_t sublevel);

/* 1 when level `level` (Plev high byte; 0 = Unrestricted) holds a wf x hf
 * picture, 0 when not or when the level is unknown. */
int xs_level_holds(uint8_t level, uint32_t wf, uint32_t hf);

/* The Plev a codestream of `codestream_bytes` for a wf x hf picture needs:
 * the smallest level that holds the size and the smallest sublevel whose
 * bound holds the rate (Full, the profile's bound, above 12 bpp). Sublev4bpp
 * is never chosen (the reference model does not know it): rates above 3 bpp
 * up to 6 get Sublev6bpp. XSF_ERR_ARG, with the reason, when no level holds
 * the size or the rate exceeds the Full sublevel. */
xsf_status xs_plev_derive(uint16_t ppih, uint32_t wf, uint32_t hf, unsigned cpih,
                          uint64_t codestream_bytes, uint16_t *plev, xsf_error *err);

/* Whether a signalled Plev holds a codestream: XSF_OK, or XSF_ERR_INVALID
 * with a message saying what is too small (level for the size, sublevel for
 * the rate, with the rate and what it needs) or unknown. A sublevel above
 * the needed one holds. */
xsf_status xs_plev_check(uint16_t ppih, uint16_t plev, uint32_t wf, uint32_t hf, unsigned cpih,
                         uint64_t codestream_bytes, xsf_error *err);

/* The byte layout of one codestream, found by walking its precinct headers
 * (no entropy decoding): where it ends and where each slice begins. */
typedef struct xs_layout {
    size_t codestream_bytes; /* SOC .. EOC inclusive */
    size_t header_bytes;     /* SOC .. first SLH */
    size_t nslices;
    size_t *slice_offset; /* nslices entries: the offset of each SLH (owned, free with
                             xs_layout_free) */
} xs_layout;
xsf_status xs_scan_layout(const uint8_t *buf, size_t len, xs_layout *layout, xsf_error *err);
void xs_layout_free(xs_layout *layout);

/* A .jxs file (or any buffer) holds JPEG XS codestreams one after the other,
 * each from its SOC to its EOC (interlaced material: the two fields of a
 * frame as two codestreams). xs_jxs_next finds the extent of the codestream
 * that starts at data[offset] by its structure (the picture header, then
 * every slice and precinct header by its length fields; nothing is entropy
 * decoded, nothing is allocated): *bytes is its size, at least 1 and at most
 * len - offset, so that the next one starts at offset + *bytes. `hdr` (may
 * be NULL) receives its parsed picture header. Errors, with the byte within
 * that codestream and the reason: XSF_ERR_TRUNCATED when offset >= len (no
 * codestream left) or the data ends inside it, XSF_ERR_INVALID when it is
 * not a codestream (garbage, a wrong marker, an Lcod that disagrees). Walk
 * a file with
 *     for (size_t off = 0, n; off < len; off += n)
 *         if (xs_jxs_next(data, len, off, &n, NULL, err) != XSF_OK) ...     */
xsf_status xs_jxs_next(const uint8_t *data, size_t len, size_t offset, size_t *bytes,
                       xs_header *hdr, xsf_error *err);
/* The codestreams of data[0, len) that xs_jxs_next walks, counted up to `max`
 * (the count stops at the first that does not walk). */
size_t xs_jxs_count(const uint8_t *data, size_t len, size_t max);

/* The colour a codestream describes: with a colour transform (Cpih 1, RCT,
 * or 3, Star-Tetrix) the decoder's components are R', G', B' as they are
 * (xsf_colour_rgb: matrix identity, rgb_order 1, full range), source
 * XSF_COLOUR_CODESTREAM; without one the codestream says nothing
 * (xsf_colour_default). */
void xs_header_colour(const xs_header *hdr, xsf_colour *colour);

typedef struct xs_decoder xs_decoder;

xsf_status xs_decoder_create(xs_decoder **dec, xsf_error *err);
void xs_decoder_destroy(xs_decoder *dec);

/* Decodes the codestream starting at buf[0]. On success *consumed is its size
 * in bytes (a file of several frames is decoded by calling again at
 * buf + *consumed), and *pic is a view (ref NULL) of host planes owned by
 * the decoder, valid until the next call: XSF_PLANAR_U16, samples at the
 * component's depth B[c], rows tightly packed; its colour is
 * xs_header_colour's. */
xsf_status xs_decode(xs_decoder *dec, const uint8_t *buf, size_t len, size_t *consumed,
                     const xsf_picture **pic);
/* The same for a codestream whose header the caller parsed already: `hdr`
 * is what xs_parse_header gave for buf (it is not read again). */
xsf_status xs_decode_parsed(xs_decoder *dec, const xs_header *hdr, const uint8_t *buf, size_t len,
                            size_t *consumed, const xsf_picture **pic);
/* The same into the caller's picture `out` (host memory of the codestream's
 * format, any strides; ref, colour and properties untouched): nothing is
 * copied, and the decoder keeps no planes of its own for it. hdr: the
 * header xs_parse_header gave for buf, or NULL (it is parsed). A picture of
 * another format is refused (XSF_ERR_ARG) before anything is decoded. */
xsf_status xs_decode_into(xs_decoder *dec, const xs_header *hdr, const uint8_t *buf, size_t len,
                          size_t *consumed, xsf_picture *out);
const xs_header *xs_decoder_header(const xs_decoder *dec);
const char *xs_decoder_error(const xs_decoder *dec);
/* Decodes each frame on the runner's threads (xsf_pool.h): its slices side
 * by side (each slice's precincts depend on nothing outside it), each
 * level's inverse DWT in parts (rows, then blocks of columns), the output
 * stage in bands of rows. The picture, the errors and their messages are
 * the single-threaded decoder's, byte for byte. The runner must outlive
 * the decoder's use of it; NULL (or threads 1): one thread, the reference
 * path. The decoder's scratch grows with the runner's threads. */
void xs_decoder_set_parallel(xs_decoder *dec, const xsf_parallel *par);

/* ---- GPU decoder (built when CUDA is available) ----
 *
 * A context is bound to one device and one CUDA stream, and is configured
 * for a picture format by the first frame; device memory is allocated then
 * (and again only when the format changes), never per frame. Calls enqueue
 * work on the stream and return; only xs_gpu_sync and the download with
 * sync=1 wait, and they wait for this stream alone. One context per host
 * thread; any number of contexts per GPU. A change of picture format frees
 * and allocates device memory, which synchronizes the device: keep one
 * context per format for steady streams. Errors found while the headers are
 * read are returned at once; errors inside the entropy-coded data are found
 * on the GPU and returned by the next xs_gpu_sync.
 *
 * CUDA devices: every call works on the context's own device (given at
 * creation, the stream must belong to it) whatever the caller's current
 * device is, and leaves the caller's current device as it found it
 * (xsf_cuda_device.h); the same holds for the GPU encoder below. */
typedef struct CUstream_st *xs_cuda_stream; /* the same type as cudaStream_t */
typedef struct xs_gpu_decoder xs_gpu_decoder;

/* Returns XSF_ERR_NODEVICE where no GPU is usable (or CUDA was not built). */
xsf_status xs_gpu_available(void);
xsf_status xs_gpu_decoder_create(xs_gpu_decoder **dec, int device, xs_cuda_stream stream,
                                 xsf_error *err);
void xs_gpu_decoder_destroy(xs_gpu_decoder *dec);
/* Decodes the codestream at buf (host memory; pinned memory makes the upload
 * asynchronous). *consumed is its size in bytes. */
xsf_status xs_gpu_decode(xs_gpu_decoder *dec, const uint8_t *buf, size_t len, size_t *consumed);
/* Decodes a codestream already in device memory. The host still reads the
 * headers and precinct lengths: `host_copy` is the same bytes in host memory,
 * or NULL to have them read back from the device (which waits for the stream). */
xsf_status xs_gpu_decode_device(xs_gpu_decoder *dec, const uint8_t *dev_buf,
                                const uint8_t *host_copy, size_t len, size_t *consumed);
/* Incremental decoding, for a codestream that arrives piecewise (slices in
 * order, e.g. from RTP): the entropy decoding of each slice is launched as
 * soon as the slice is whole, and with it the inverse DWT and the output
 * stage of the picture rows that the slices received so far determine
 * (wav_inverse_rows_final: all but a few rows above the next slice), so
 * that at the end only the last slices and their rows remain. The picture
 * is the same, bit for bit, as xs_gpu_decode's. `buf` is the same buffer in
 * every call of one frame, its first `len` bytes final (they are uploaded
 * as they are); pinned memory makes the uploads asynchronous. The output
 * planes are those set when the frame begins (xs_gpu_set_output is refused
 * until it ends).
 *   begin  reads the header from buf[0, len) and launches what is whole;
 *          XSF_ERR_AGAIN when the header is not whole yet (call again with
 *          more; nothing is under way then). Allocates only when the format
 *          changes (then it synchronizes the stream, as xs_gpu_decode does).
 *   more   launches the slices that buf[0, len) now holds whole, and the
 *          rows they make final.
 *   end    buf[0, len) holds the whole codestream: the rest of its slices
 *          and of the rows. *consumed as xs_gpu_decode's. Without a
 *          successful begin it is xs_gpu_decode.
 *   abort  the frame will never be whole: it ends without a picture (the
 *          last picture is then undefined until the next decode).
 * An error from begin (other than XSF_ERR_AGAIN), more or end ends the
 * frame. Between begin and end or abort, no other decode call on the
 * context. The errors found on the GPU come from xs_gpu_sync after end, as
 * with xs_gpu_decode. xs_gpu_kernel_times covers xs_gpu_decode only. */
xsf_status xs_gpu_decode_begin(xs_gpu_decoder *dec, const uint8_t *buf, size_t len);
xsf_status xs_gpu_decode_more(xs_gpu_decoder *dec, const uint8_t *buf, size_t len);
xsf_status xs_gpu_decode_end(xs_gpu_decoder *dec, const uint8_t *buf, size_t len, size_t *consumed);
void xs_gpu_decode_abort(xs_gpu_decoder *dec);
/* xs_gpu_decode and xs_gpu_decode_begin for a codestream whose header the
 * caller parsed already: `hdr` is what xs_parse_header gave for buf (for
 * begin: for the prefix buf[0, len), which held the whole header); the
 * header is not parsed again. */
xsf_status xs_gpu_decode_parsed(xs_gpu_decoder *dec, const xs_header *hdr, const uint8_t *buf,
                                size_t len, size_t *consumed);
xsf_status xs_gpu_decode_begin_parsed(xs_gpu_decoder *dec, const xs_header *hdr, const uint8_t *buf,
                                      size_t len);
/* Between begin and end: rows [0, rows[c]) of each component are final in
 * the output planes once the work enqueued so far has run (an event or a
 * host function on the stream says when); 0 outside a frame. For a pixel
 * format other than planar16 and planar8, the components are the
 * converted format's (xs_gpu_set_output_format), and their rows advance
 * together: the luma rows whose every sample is written, and the chroma rows
 * of those (for P010, NV12 and I420 a chroma row covers two luma rows: the
 * luma rows advance two at a time, the last alone where the height is odd),
 * so that rows[c] of plane c can be downloaded (xs_gpu_download_rows). Errors the
 * kernels find in the data still come only from xs_gpu_sync after end: a
 * frame refused then had its earlier rows decoded from bad data. */
void xs_gpu_decode_rows(const xs_gpu_decoder *dec, int rows[XS_MAX_COMPONENTS]);
/* Where the next pictures are written: by default (and after a call with
 * plane = NULL) into planes the context allocates and owns (pitched, the
 * first time a picture needs them, and again when the format changes).
 * With `plane` and `pitch_bytes`, every later picture is written into the
 * caller's device planes instead (on the context's device): component c's
 * rows of width[c] uint16 samples `pitch_bytes[c]` apart, from plane[c] on;
 * nothing is copied and no device memory of the context is used for them.
 * The setting holds until the next call; it may change between any two
 * decodes, but not between xs_gpu_decode_begin and _end (XSF_ERR_ARG: the
 * frame's rows are written from begin on). The caller owns the planes: they must hold
 * the picture (pitch_bytes[c] * (height[c] - 1) + width[c] * 2 bytes) and
 * stay allocated, and untouched by other work, until the decode's work on
 * the context's stream has run (xs_gpu_sync, or anything ordered after it)
 * and, where the picture is downloaded with xs_gpu_download, until that
 * has run too. Entries past the picture's components are ignored.
 * XSF_ERR_ARG, with a message from xs_gpu_decoder_error, for a NULL
 * pitch_bytes or a plane or pitch that is not 2-byte aligned (the setting
 * is then unchanged). A decode call (xs_gpu_decode, _device, _begin, _end)
 * that finds a component's plane NULL or its pitch below its row (width * 2
 * bytes) refuses the frame with XSF_ERR_ARG and writes no plane (_end ends
 * the frame, as for its other errors). Planes and pitches that are multiples of 8 bytes get the
 * output stage's 8-byte stores; others are written sample by sample. Does
 * not block. */
xsf_status xs_gpu_set_output(xs_gpu_decoder *dec, uint16_t *const plane[XS_MAX_COMPONENTS],
                             const size_t pitch_bytes[XS_MAX_COMPONENTS]);
/* The same for a picture in pixel format `container` (xsf_picture.h; what
 * xs_gpu_set_output sets is XSF_PLANAR_U16): every later picture is the
 * decoded format converted as xsf_format_convert gives it, written in that
 * format by the output stage itself (no other pass over device memory),
 * byte for byte what xsf_picture_convert makes of the C decoder's picture.
 * `colour` is the decoded picture's colour the conversion uses (the RGB
 * formats' matrix and range, whether the Y'CbCr formats apply), NULL for
 * the codestream's (xs_header_colour); the picture's colour is then
 * xsf_colour_convert's. plane[p] and pitch_bytes[p] are the format's planes
 * (xsf_format_planes: plane p holds rows of xsf_format_row_bytes(fmt, p)
 * bytes, xsf_format_plane_rows of them), or plane NULL for the context's
 * own (allocated for the format, again when it changes). Planes of formats
 * other than planar16 may have any address and pitch (16-, 8- and 4-byte
 * stores where they allow, byte stores else); every byte of a row up to
 * its row bytes is written (v210's padding, as zeros), nothing after it.
 * A decode call whose picture the format does not apply to (a Y'CbCr format
 * for an R'G'B' picture, chroma that resamples by neither 2:1 nor 1:2)
 * refuses the frame with xsf_format_convert's XSF_ERR_UNSUPPORTED and its
 * message, before anything is written. Otherwise as xs_gpu_set_output
 * (XSF_ERR_ARG also for a container that is not one). */
xsf_status xs_gpu_set_output_format(xs_gpu_decoder *dec, xsf_container container,
                                    const xsf_colour *colour,
                                    uint8_t *const plane[XS_MAX_COMPONENTS],
                                    const size_t pitch_bytes[XS_MAX_COMPONENTS]);
/* The last picture: a view (ref NULL) of the device planes it was written
 * into (the caller's, from xs_gpu_set_output, or the context's own), memory
 * XSF_MEMORY_DEVICE on the context's device, XSF_PLANAR_U16 at the
 * components' depths, colour xs_header_colour's. NULL before the first
 * picture of the context's format. */
const xsf_picture *xs_gpu_decoder_picture(const xs_gpu_decoder *dec);
/* Copies the last picture into host planes (tightly packed uint16 rows, one
 * plane per component, as xs_decode's; for another pixel format its planes,
 * tightly packed), from wherever it was written. With sync=0 the copy is
 * only enqueued. */
xsf_status xs_gpu_download(xs_gpu_decoder *dec, uint16_t *const host_plane[XS_MAX_COMPONENTS],
                           int sync);
/* Enqueues the copy of rows [from[c], to[c]) of each component of the
 * picture under way or last decoded into host planes laid out as
 * xs_gpu_download's (whole planes: the rows land at their place). With the
 * incremental API, the rows xs_gpu_decode_rows reports can be copied as
 * they become final. For another pixel format, index c is plane c, whose
 * rows are those of component c (xsf_format_plane_rows is height[c]: v210's
 * one plane has the luma rows, NV12's second plane the chroma rows, each
 * the interleaved Cb and Cr of two luma rows); entries past the planes are
 * ignored. Does not wait. xs_gpu_download_planes is the same with planes
 * of bytes. */
xsf_status xs_gpu_download_rows(xs_gpu_decoder *dec, uint16_t *const host_plane[XS_MAX_COMPONENTS],
                                const int from[XS_MAX_COMPONENTS], const int to[XS_MAX_COMPONENTS]);
xsf_status xs_gpu_download_planes(xs_gpu_decoder *dec, uint8_t *const host_plane[XS_MAX_COMPONENTS],
                                  const int from[XS_MAX_COMPONENTS],
                                  const int to[XS_MAX_COMPONENTS]);
/* Waits for the stream and reports errors found in the data on the GPU. */
xsf_status xs_gpu_sync(xs_gpu_decoder *dec);
const char *xs_gpu_decoder_error(const xs_gpu_decoder *dec);
/* Per-kernel times of the last decode in milliseconds, when timing was
 * enabled with xs_gpu_set_timing (it adds events to the stream). */
void xs_gpu_set_timing(xs_gpu_decoder *dec, int on);
int xs_gpu_kernel_times(const xs_gpu_decoder *dec, const char **names, float *ms, int max);

/* ---- encoder ----
 *
 * The JPEG XS encoder: the C reference (xs_encoder) and the CUDA encoder
 * (xs_gpu_encoder), which produce the same bytes for the same settings.
 * Both write nothing outside 21122-1: SOC, CAP, PIH, CDT, WGT, and NLT/CWD
 * when asked for, then slices of precincts, then EOC. ENCODER.md describes
 * the rate control and the choice of coding modes. */

/* Bit-plane count coding modes (21122-1 C.7) the encoder may use. It picks,
 * per band and precinct, the cheapest of those allowed, and per packet raw
 * coding when that is cheaper still. */
enum {
    XS_GCLI_RAW = 1,      /* 4-bit raw counts, chosen per packet (Dr; Rl=1) */
    XS_GCLI_NOPRED = 2,   /* unary code without prediction (always allowed) */
    XS_GCLI_VPRED = 4,    /* vertical prediction through the bounded code */
    XS_GCLI_SIGFLAGS = 8, /* significance flags on top of the unary codes */
    XS_GCLI_ALL = 15,
};

typedef enum xs_rate_control {
    XS_RC_SLICE = 0,    /* every slice is exactly its share of the target; a precinct may use what
                           the precincts before it in the slice left unused; padding ends the slice */
    XS_RC_PRECINCT = 1, /* every precinct is exactly its share (strict CBR, no carry) */
    XS_RC_FIXED = 2,    /* no target: every precinct uses the given Q and R (VBR; lossless with
                           Q=R=0 and Fq=0) */
} xs_rate_control;

/* What derived gains and priorities (WGT) minimize (xs/enc_tune.h, xs/ENCODER.md). */
typedef enum xs_tune {
    XS_TUNE_PSNR = 0,   /* the squared error: over R, G, B with the RCT, else the 6:1:1 weighted
                           YCbCr error (PSNR) */
    XS_TUNE_VISUAL = 1, /* the error as a viewer sees it: each band weighted by contrast
                           sensitivity at its frequencies (luma and chroma models) */
} xs_tune;

/* 21122-2 Ppih values the encoder can signal and check (0 = unrestricted). */
enum {
    XS_PPIH_UNRESTRICTED = 0x0000,
    XS_PPIH_LIGHT_422_10 = 0x1500,
    XS_PPIH_MAIN_422_10 = 0x3540,
    XS_PPIH_MAIN_444_12 = 0x3a40,
    XS_PPIH_HIGH_444_12 = 0x4a40,
};

typedef struct xs_encoder_config {
    /* Picture: Nc components of depth 8..16, sampling 1 or 2 (component 0 full size). */
    int width, height, nc;
    int depth[XS_MAX_COMPONENTS];
    int sx[XS_MAX_COMPONENTS], sy[XS_MAX_COMPONENTS];
    /* Rate: the codestream is exactly floor(bpp * width * height / 8) bytes, or
     * target_bytes when that is non-zero (XS_RC_SLICE and XS_RC_PRECINCT). */
    double bpp;
    size_t target_bytes;
    xs_rate_control rate_control;
    int q, r; /* XS_RC_FIXED: quantization 0..30 and refinement 0..255 */
    /* Transform. */
    int nlx, nly; /* decomposition levels: horizontal 1..8, vertical 0..2, nly <= nlx */
    int sd;       /* the last sd components are not transformed (CWD), 0 = none */
    int cpih;     /* colour transform: 0 none, 1 RCT (components 0, 1, 2 given as R, G, B) */
    int bw, fq;   /* coefficient precision and fractional bits (20, 8) */
    /* Quantization and entropy coding. */
    int qpih; /* 0 deadzone, 1 uniform */
    int fs;   /* 1: sign packing (signs of non-zero coefficients in their own subpacket) */
    int rm;   /* significance run mode: 0 zero residuals, 1 zero counts */
    unsigned gcli_modes; /* XS_GCLI_* */
    int slice_lines;     /* slice height in lines, a multiple of 2^nly; 0 = 16 */
    int cw; /* precinct width (21122-1 Cw, units of 8 * max(sx) * 2^nlx), 0 = full width */
    int long_headers; /* 1: 7-byte packet headers even where 5-byte ones would do */
    int lossless;     /* 1: lossless coding (sets Fq=0, Bw=max depth, XS_RC_FIXED with Q=R=0;
                         signals cap[6]) */
    /* Gains and priorities (WGT), in band order; nbands = 0 derives them for the tune. */
    int nbands;
    uint8_t gain[XS_MAX_BANDS], priority[XS_MAX_BANDS];
    xs_tune tune; /* XS_TUNE_PSNR (default) or XS_TUNE_VISUAL */
    /* Non-linearity (NLT, 21122-1 Annex G): 0 none, 1 quadratic, 2 extended. */
    int tnlt;
    int nlt_sigma;           /* quadratic: DC offset sign */
    unsigned nlt_alpha;      /* quadratic: DC offset 0..32767 */
    uint32_t nlt_t1, nlt_t2; /* extended: thresholds */
    int nlt_e;               /* extended: exponent */
    /* Profile and level (21122-2): the settings are checked against the profile. */
    uint16_t ppih; /* XS_PPIH_* */
    int plev;      /* Plev to write, or -1 to derive level and sublevel from the size and rate */
    /* The C encoder: threads a frame is coded on, the caller's included (0:
     * every online core; at most XS_MAX_THREADS). The codestream is the same
     * for every count. The GPU encoder ignores it. */
    int threads;
} xs_encoder_config;

#define XS_MAX_THREADS 256

/* Defaults: 5 horizontal and 2 vertical levels (1 for the Main and Light
 * profiles), Bw=20, Fq=8, deadzone, sign packing, every coding mode, slices of
 * 16 lines, XS_RC_SLICE, PSNR weights (XS_TUNE_PSNR), unrestricted profile, derived level,
 * the C encoder on every online core.
 * The caller fills the picture and the rate. */
void xs_encoder_config_init(xs_encoder_config *cfg);

/* Fills nc, sx, sy and depth for "400", "420", "422", "444" or "4444" (and
 * the same with colons) at one depth for every component. */
xsf_status xs_encoder_config_format(xs_encoder_config *cfg, const char *sampling, int width,
                                    int height, int depth);

/* The header the configuration leads to (every field of what will be
 * written, WGT included), after the checks of xs_encoder_create. */
xsf_status xs_encoder_config_header(const xs_encoder_config *cfg, xs_header *hdr, xsf_error *err);

/* Per-precinct record of the last frame, row-major: the bytes the precinct
 * was allowed, the bytes its packets take (without padding), the bytes it
 * occupies in the codestream (padding included), and its Q and R. */
typedef struct xs_encoder_stats {
    size_t nprecincts;
    uint32_t *budget_bytes, *coded_bytes, *total_bytes;
    uint8_t *q, *r;
    size_t codestream_bytes;
} xs_encoder_stats;

typedef struct xs_encoder xs_encoder;

/* Validates the configuration and allocates everything a frame needs. */
xsf_status xs_encoder_create(xs_encoder **enc, const xs_encoder_config *cfg, xsf_error *err);
void xs_encoder_destroy(xs_encoder *enc);
const xs_header *xs_encoder_header(const xs_encoder *enc);
/* The largest codestream a frame can give (its exact size with a target). */
size_t xs_encoder_max_bytes(const xs_encoder *enc);
/* Encodes one picture (host memory, XSF_PLANAR_U16: uint16 samples at each
 * component's depth, the configuration's components and sizes) into
 * out[0..cap); *len receives the codestream size. */
xsf_status xs_encode(xs_encoder *enc, const xsf_picture *pic, uint8_t *out, size_t cap,
                     size_t *len);
const xs_encoder_stats *xs_encoder_last_stats(const xs_encoder *enc);
const char *xs_encoder_error(const xs_encoder *enc);
/* The threads a frame is coded on (the configuration's, or every online
 * core; fewer where the system gave fewer). */
int xs_encoder_threads(const xs_encoder *enc);

/* The GPU encoder: bound to one device and one CUDA stream (stream NULL: a
 * non-blocking stream of its own); every device buffer is allocated at
 * creation (which blocks), none per frame. Calls enqueue work on the stream
 * and return; xs_gpu_encoder_sync and a download with sync=1 wait for this
 * stream alone. Returns XSF_ERR_NODEVICE where no GPU is usable. One context
 * per host thread; any number per GPU. Calls run on the encoder's device and
 * leave the caller's current device unchanged (as the decoder's). */
typedef struct xs_gpu_encoder xs_gpu_encoder;
xsf_status xs_gpu_encoder_create(xs_gpu_encoder **enc, const xs_encoder_config *cfg, int device,
                                 xs_cuda_stream stream, xsf_error *err);
void xs_gpu_encoder_destroy(xs_gpu_encoder *enc);
size_t xs_gpu_encoder_max_bytes(const xs_gpu_encoder *enc);
/* Encodes a picture (XSF_PLANAR_U16, the configuration's components and
 * sizes) in host memory (uploaded on the stream; pinned memory makes the
 * upload asynchronous) or, with memory XSF_MEMORY_DEVICE, already in device
 * memory of the encoder's device (read in place; strides even). */
xsf_status xs_gpu_encode(xs_gpu_encoder *enc, const xsf_picture *pic);
/* The last codestream in device memory (valid until the next encode). */
const uint8_t *xs_gpu_encoder_codestream(const xs_gpu_encoder *enc);
/* Copies the last codestream to host memory; with sync=0 the copy is only
 * enqueued and *len is the size where it is known in advance (with a target),
 * else 0 until xs_gpu_encoder_sync. */
xsf_status xs_gpu_encoder_download(xs_gpu_encoder *enc, uint8_t *out, size_t cap, size_t *len,
                                   int sync);
/* Waits for the stream; reports errors found on the GPU. */
xsf_status xs_gpu_encoder_sync(xs_gpu_encoder *enc);
const char *xs_gpu_encoder_error(const xs_gpu_encoder *enc);
/* Per-stage times of the last frame in milliseconds, once timing is on (it
 * adds events to the stream); valid after a sync. Returns the stage count. */
void xs_gpu_encoder_set_timing(xs_gpu_encoder *enc, int on);
int xs_gpu_encoder_stage_times(const xs_gpu_encoder *enc, const char **names, float *ms, int max);

/* JPEG XS in the codec table (xs/codec_xs.c; codec/include/xsf_codecs.h finds it). */
struct xsf_codec;
extern const struct xsf_codec xs_codec;

#ifdef __cplusplus
}
#endif
#endif
