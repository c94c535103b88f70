/* xsflow codec interface: what a codec offers the rest of xsflow, as one
 * table of functions (xsf_codec), so that the pipeline, the program and the
 * other callers name no codec: they find one by name or by probing its
 * bytes (codec/include/xsf_codecs.h, the registry) and call through its table.
 *
 * A frame's header is parsed once: parse_header (or describe, for a header
 * its caller parsed with the codec's own parser, such as the RTP receiver's
 * JPEG XS header) gives an xsf_codec_frame, which says what picture the
 * codestream decodes to and carries the codec's parsed header; the decoders
 * take it back with the codestream and read the header from it, not from
 * the bytes again.
 *
 * Decoders write into pictures their caller allocated (xsf_picture: the
 * format parse_header gave, planes from the caller's allocator): a CPU
 * decoder into host memory, a GPU decoder into device memory of its GPU
 * (and copies rows of the picture into host pictures on its stream).
 *
 * Every entry the codec does not have is NULL: a codec without a GPU decoder
 * (or a build without CUDA, whose GPU entries answer XSF_ERR_NODEVICE),
 * a GPU decoder without incremental decoding (gpu_begin NULL).
 *
 * Encoders (xsf_codec.encoder, NULL for a codec without one) take their
 * settings in two parts: what every codec understands (xsf_encode_settings:
 * the pictures' format, a rate or lossless, the colour transform) and the
 * codec's own knobs by name, as text ("nlx=4 quant=uniform"), from the
 * table the codec lists (xsf_option.h), so that a command line, a
 * configuration or a comparison can set them without the codec's header.
 *
 * Threads: a decoder or encoder handle is used by one thread at a time; the
 * table and the functions without a handle may be called from any thread.
 * A GPU decoder or encoder is bound to the device and CUDA stream given at
 * creation: each call makes that device current and the caller's current
 * again before it returns (xsf_cuda_device.h), so any thread may call it.
 * Nothing here prints. */
#ifndef XSF_CODEC_H
#define XSF_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "xsf.h"
#include "xsf_option.h"
#include "xsf_picture.h"
#include "xsf_pool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct xsf_codec xsf_codec;

/* Room for a codec's parsed header inside xsf_codec_frame (JPEG XS's
 * xs_header is about 650 bytes). */
#define XSF_CODEC_HEADER_MAX 1024

/* Where the codestream says its picture sits in an interlaced frame. */
typedef enum xsf_field {
    XSF_FIELD_NONE = 0,   /* a progressive picture, or the codestream does not say */
    XSF_FIELD_TOP = 1,    /* the first (top) field of a frame */
    XSF_FIELD_BOTTOM = 2, /* the second (bottom) field */
} xsf_field;

/* One frame's codestream, described from its header. */
typedef struct xsf_codec_frame {
    const xsf_codec *codec;
    xsf_format format;       /* the picture it decodes to */
    size_t codestream_bytes; /* the codestream's size where the header says it, else 0 */
    size_t header_bytes;     /* bytes of the header (what parse_header needed) */
    xsf_field field;
    xsf_colour colour; /* what the codestream implies (RGB after a colour transform,
                          source XSF_COLOUR_CODESTREAM), else xsf_colour_default's */
    /* The codec's parsed header (JPEG XS: xs_header; BPC-PaCo: bpc_info), for its decoders. */
    union {
        max_align_t align;
        unsigned char bytes[XSF_CODEC_HEADER_MAX];
    } header;
} xsf_codec_frame;

/* ---- encoders ---- */

/* What an encoder is asked to do, in terms every codec understands. */
typedef struct xsf_encode_settings {
    xsf_format format; /* the pictures: every picture encoded has this format */
    int rgb;           /* components 0..2 hold R', G', B' (a .ppm): what a colour
                          transform expects */
    /* Rate: codestreams of floor(bpp * width[0] * height[0] / 8) bytes, or of
     * target_bytes; where both are given the codec's rule picks (JPEG XS:
     * target_bytes; BPC-PaCo: bpp). How closely a codestream meets it is the
     * codec's (JPEG XS: exactly; BPC-PaCo: at most, and within 1 %). Neither
     * and not lossless: the codec's own knobs say (JPEG XS: rc=fixed; else
     * XSF_ERR_ARG), BPC-PaCo keeps every coding pass. */
    double bpp;
    size_t target_bytes;
    int lossless; /* 1: every sample back as it was; no target */
    /* -1: the codec's default (JPEG XS: on where rgb; BPC-PaCo: on where
     * components 0..2 share size and depth); 0: off; 1: on (the codec's
     * transform: JPEG XS the RCT; BPC-PaCo the RCT with its 5/3, the ICT with
     * its 9/7). A knob of the codec's own (rct, colour) wins over this. */
    int colour_transform;
    /* The codec's own knobs, "key=value key ..." (xsf_options_apply) from its
     * encoder->options; NULL: none. */
    const char *options;
    /* The codec's parameters from params_set (BPC-PaCo: "tables"), or NULL. */
    const void *params;
} xsf_encode_settings;

/* Zeroes s and sets colour_transform to -1. */
static inline void xsf_encode_settings_init(xsf_encode_settings *s)
{
    *s = (xsf_encode_settings){.colour_transform = -1};
}

/* How an encoder codes with given settings: what a comparison reports. */
typedef struct xsf_encode_info {
    const char *transform;  /* the wavelet filter: "5/3", "9/7" (static strings) */
    int levels_h, levels_v; /* decomposition levels, 0 where the settings are refused */
    const char *colour;     /* the colour transform: "none", "RCT", "ICT" */
    double qstep;           /* a quantization step in 8-bit units where the codec has one
                               (BPC-PaCo's 9/7), else 0 */
} xsf_encode_info;

typedef struct xsf_encoder_ops {
    /* The codec's own knobs (xsf_option.h), ending with XSF_OPTION_END:
     * names, values, help, headings, as a command line shows them. A knob of
     * kind XSF_OPTION_FILE names a file whose bytes go to params_set under
     * the knob's name. */
    const xsf_option *options;
    /* XSF_OK when the codec takes knob `key` with this value (NULL for a
     * flag); the message says why not, naming the value, not the knob. */
    xsf_status (*check_option)(const char *key, const char *value, xsf_error *err);
    /* Checks what it can of the settings without a picture (format.nc 0):
     * the rate, the knobs and how they go together; with a format, all of
     * them, as create would. */
    xsf_status (*check)(const xsf_encode_settings *s, xsf_error *err);
    /* Fills *info for the settings (what is known where they are refused:
     * levels 0). */
    void (*describe)(const xsf_encode_settings *s, xsf_encode_info *info);
    /* What parse_header gives for the codestreams of these settings (s->format
     * set), from the header the encoder writes, without coding a picture:
     * what a caller announces before the first codestream (GStreamer caps).
     * codestream_bytes is the size the rate fixes, else 0. Fails as check
     * does. NULL where the codec cannot say. */
    xsf_status (*header)(const xsf_encode_settings *s, xsf_codec_frame *out, xsf_error *err);
    /* The picture a headerless input (.yuv) is taken as where the user does
     * not say: sampling ("422") and depth, as FFmpeg encoders name a
     * preferred pixel format. */
    const char *yuv_sampling;
    int yuv_depth;

    /* XSF_OK where a GPU is usable and the build has the encoder's kernels. */
    xsf_status (*gpu_available)(void);
    /* An encoder for pictures of s->format: the C encoder (device -1) or the
     * GPU encoder on `device`, its work on `stream` (a cudaStream_t; NULL:
     * a stream of its own). Both give the same bytes. XSF_ERR_ARG or
     * XSF_ERR_UNSUPPORTED when the codec refuses the settings; blocks (a GPU
     * encoder allocates its device memory here). The settings are copied
     * (options parsed, params kept: they must outlive the encoder). */
    xsf_status (*create)(void **enc, const xsf_encode_settings *s, int device, void *stream,
                         xsf_error *err);
    void (*destroy)(void *enc);
    /* Bytes that hold any codestream of the encoder. */
    size_t (*max_bytes)(const void *enc);
    /* Codes `in` (s->format; host or pinned memory, or for a GPU encoder
     * device memory of its GPU) into out[0, cap), *len its size; returns
     * when the codestream is whole. out NULL: the codestream stays where
     * the encoder made it (a GPU encoder's device memory: what a benchmark
     * of the kernels times), *len 0. */
    xsf_status (*encode)(void *enc, const xsf_picture *in, uint8_t *out, size_t cap, size_t *len,
                         xsf_error *err);
} xsf_encoder_ops;

struct xsf_codec {
    const char *name;      /* "jpeg-xs", "bpc-paco": what a configuration names */
    const char *long_name; /* "JPEG XS (ISO/IEC 21122-1)" */
    const char *extension; /* the files' usual extension without the dot: "jxs", "bpc" */

    /* How sure the codec is that buf starts one of its codestreams: 0 (not
     * one) to 100 (its signature). Reads at most len bytes. */
    int (*probe)(const uint8_t *buf, size_t len);
    /* Parses the header at buf[0, len) into *out. XSF_ERR_TRUNCATED when
     * the header is not whole in len bytes (more may make it whole); other
     * errors say what is wrong, at which byte. */
    xsf_status (*parse_header)(const uint8_t *buf, size_t len, xsf_codec_frame *out,
                               xsf_error *err);
    /* The same from a header the caller parsed itself with the codec's own
     * parser (`parsed`, `size` bytes: sizeof the codec's header struct). */
    xsf_status (*describe)(const void *parsed, size_t size, xsf_codec_frame *out, xsf_error *err);
    /* The size of the codestream at buf[0, len), from its structure (what
     * a file of codestreams one after the other is walked by). */
    xsf_status (*codestream_size)(const uint8_t *buf, size_t len, size_t *bytes, xsf_error *err);

    /* Optional settings of the decoders, by name, gathered in *params
     * (created by the first call, freed with params_free); the decode calls
     * take them. BPC-PaCo: "tables", the bytes of a table file. NULL where
     * the codec has none. */
    xsf_status (*params_set)(void **params, const char *key, const uint8_t *value, size_t len,
                             xsf_error *err);
    void (*params_free)(void *params);

    /* ---- CPU decoder ---- */
    xsf_status (*cpu_create)(void **dec, xsf_error *err);
    void (*cpu_destroy)(void *dec);
    /* Decodes the codestream buf[0, len) that `frame` describes into `out`,
     * a host picture of frame->format (its planes the caller's), or of an
     * output pixel format of it: out->fmt what xsf_format_convert gives for
     * frame->format, frame->colour and out->fmt.container (XSF_ERR_ARG for
     * another shape, XSF_ERR_UNSUPPORTED where the format does not apply);
     * out's colour and properties stay the caller's. */
    xsf_status (*cpu_decode)(void *dec, const xsf_codec_frame *frame, const void *params,
                             const uint8_t *buf, size_t len, xsf_picture *out, xsf_error *err);
    /* The C decoder decodes each frame on `par`'s threads from now on (xsf_pool.h:
     * the same picture, in parts; NULL: one thread). NULL where the codec's C
     * decoder has no parts (it decodes on the calling thread). */
    void (*cpu_parallel)(void *dec, const xsf_parallel *par);

    /* ---- GPU decoder (NULL where the codec has none) ---- */
    /* XSF_OK where a GPU is usable and the build has the codec's kernels. */
    xsf_status (*gpu_available)(void);
    /* On `device`, its work on `stream` (a cudaStream_t; NULL: the default stream). */
    xsf_status (*gpu_create)(void **dec, int device, void *stream, xsf_error *err);
    void (*gpu_destroy)(void *dec);
    /* Enqueues the decoding of buf[0, len) (host memory; pinned makes the
     * upload asynchronous) into `out`, a device picture of frame->format on
     * the decoder's GPU (nothing copied on the device), or, out NULL, into
     * planes of the decoder's own, valid until its next decode. The picture
     * may be in an output pixel format (out->fmt, or with out NULL
     * frame->format, as xsf_format_convert gives it for the decoded format
     * and frame->colour, the colour the conversion uses): the decoder
     * writes that format itself, as cpu_decode's. Errors of the headers
     * come at once, errors in the data from gpu_sync. */
    xsf_status (*gpu_decode)(void *dec, const xsf_codec_frame *frame, const void *params,
                             const uint8_t *buf, size_t len, xsf_picture *out, xsf_error *err);
    /* Enqueues the copy of rows [from[c], to[c]) of each component of the
     * picture under way or last decoded into the host picture `host`
     * (pinned makes it asynchronous), at their place. For an output pixel
     * format, c indexes the planes (xsf_format_planes), whose rows are
     * component c's (xsf_format_plane_rows is height[c]). */
    xsf_status (*gpu_download_rows)(void *dec, xsf_picture *host,
                                    const int from[XSF_MAX_COMPONENTS],
                                    const int to[XSF_MAX_COMPONENTS], xsf_error *err);
    /* The same as gpu_decode with the codestream already in device memory of
     * the decoder's GPU (`dev`, len bytes), `buf` its copy in host memory
     * (what the headers are read from). NULL where the codec has none. */
    xsf_status (*gpu_decode_device)(void *dec, const xsf_codec_frame *frame, const void *params,
                                    const uint8_t *buf, const uint8_t *dev, size_t len,
                                    xsf_picture *out, xsf_error *err);
    /* Waits for the decoder's stream; reports the errors found in the data. */
    xsf_status (*gpu_sync)(void *dec, xsf_error *err);

    /* Incremental decoding of a codestream that arrives in order (NULL
     * where the codec has none): buf is the same buffer in every call of
     * one frame, its first len bytes final. begin (XSF_ERR_AGAIN: not
     * enough yet, nothing under way, out not kept) writes into `out` (as
     * gpu_decode) from then on; more launches what buf[0, len) now holds;
     * end finishes with the whole codestream; abort ends the frame without
     * a picture. rows: rows [0, rows[c]) are final once the work enqueued so
     * far has run (for an output pixel format, the components of its
     * format: luma rows and their chroma rows, P010/NV12/I420 two luma rows
     * a chroma row). */
    xsf_status (*gpu_begin)(void *dec, const xsf_codec_frame *frame, const uint8_t *buf, size_t len,
                            xsf_picture *out, xsf_error *err);
    xsf_status (*gpu_more)(void *dec, const uint8_t *buf, size_t len, xsf_error *err);
    xsf_status (*gpu_end)(void *dec, const uint8_t *buf, size_t len, xsf_error *err);
    void (*gpu_abort)(void *dec);
    void (*gpu_rows)(void *dec, int rows[XSF_MAX_COMPONENTS]);

    /* ---- encoder (NULL where the codec has none) ---- */
    const xsf_encoder_ops *encoder;
};

/* ---- for the codecs: what every codec's table functions do alike
 * (common/xsf_codec.c) ---- */

/* A codec library's failure passed on: `st` with the library's message
 * `msg` (the status's name where msg is NULL or empty). Returns st. */
xsf_status xsf_codec_fail(xsf_error *err, xsf_status st, const char *msg);

/* The start of `describe`: XSF_ERR_ARG unless `size` is `header_size` (the
 * codec's parsed-header struct); else *out cleared (a progressive picture,
 * field XSF_FIELD_NONE, format.container XSF_PLANAR_U16), out->codec set
 * and the header kept in out->header, for the rest to fill in.
 * header_size is at most XSF_CODEC_HEADER_MAX. */
xsf_status xsf_codec_frame_start(xsf_codec_frame *out, const xsf_codec *codec, const void *parsed,
                                 size_t size, size_t header_size, xsf_error *err);

/* The parsed header `frame` carries where it is `codec`'s (what its
 * describe kept), else NULL: a decoder then reads the header itself. */
const void *xsf_codec_frame_header(const xsf_codec_frame *frame, const xsf_codec *codec);

/* A CPU decoder's picture `img` (its own planes) into the caller's host
 * picture `out`: the samples only, out's colour and properties stay its
 * owner's. Where img is planar16 and out of another container, out is
 * img converted (xsf_picture_convert, with img's colour: a codec that
 * writes no output pixel format itself gives its decoders' pictures the
 * frame's conversion colour first). XSF_ERR_ARG where out is in device
 * memory or of no format img has or converts to. */
xsf_status xsf_codec_copy_picture(xsf_picture *out, const xsf_picture *img, xsf_error *err);

/* The table's cpu_create and cpu_destroy over a C decoder's typed pair
 *   xsf_status CREATE(TYPE **out, xsf_error *err);   void DESTROY(TYPE *dec);
 * defined as static functions of those names (the table's take a void **,
 * which a TYPE ** is not). Written at file scope, followed by ';' (the
 * macro ends with cpu_create's declaration, which the ';' closes). */
#define XSF_CODEC_CPU_DECODER(TYPE, CREATE, DESTROY)                                               \
    static xsf_status cpu_create(void **dec, xsf_error *err)                                       \
    {                                                                                              \
        TYPE *d = NULL;                                                                            \
        const xsf_status st = CREATE(&d, err);                                                     \
        *dec = d;                                                                                  \
        return st;                                                                                 \
    }                                                                                              \
    static void cpu_destroy(void *dec)                                                             \
    {                                                                                              \
        DESTROY(dec);                                                                              \
    }                                                                                              \
    static xsf_status cpu_create(void **dec, xsf_error *err)

/* The function members of an xsf_codec every codec fills (the header's
 * four; a C decoder; a GPU decoder, or stubs that say XSF_ERR_NODEVICE),
 * for a codec file that writes each as a static function of the member's
 * name (probe, parse_header, describe, codestream_size, cpu_create,
 * cpu_destroy, cpu_decode, gpu_available, gpu_create, gpu_destroy,
 * gpu_decode, gpu_download_rows, gpu_sync): one initializer of its table,
 * which adds the names and the members the codec alone has. */
#define XSF_CODEC_FUNCTIONS                                                                        \
    .probe = probe, .parse_header = parse_header, .describe = describe,                            \
    .codestream_size = codestream_size, .cpu_create = cpu_create, .cpu_destroy = cpu_destroy,      \
    .cpu_decode = cpu_decode, .gpu_available = gpu_available, .gpu_create = gpu_create,            \
    .gpu_destroy = gpu_destroy, .gpu_decode = gpu_decode, .gpu_download_rows = gpu_download_rows,  \
    .gpu_sync = gpu_sync

/* The same for an xsf_encoder_ops: its function members (check_option,
 * check, describe, gpu_available, create, destroy, max_bytes, encode) and
 * the knobs as `knobs`; the table adds yuv_sampling, yuv_depth and, where
 * the codec has it, header. */
#define XSF_ENCODER_FUNCTIONS                                                                      \
    .options = knobs, .check_option = check_option, .check = check, .describe = describe,          \
    .gpu_available = gpu_available, .create = create, .destroy = destroy, .max_bytes = max_bytes,  \
    .encode = encode

#ifdef __cplusplus
}
#endif
#endif
