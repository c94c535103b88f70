/* xsflow BPC-PaCo: bitplane image coding with parallel coefficient processing
 * (Enfedaque, thesis ch. 3-4; Bruns, thesis ch. 8), the comparison codec of
 * xsflow. A whole wavelet codec around the coder: colour transform, 5/3 or
 * 9/7 DWT (wavelet/), quantization, 64x64 code blocks each coded by 32
 * lockstep arithmetic coders, rate control by truncation (distortion-rate
 * slopes), and a versioned codestream (bpc/FORMAT.md). C reference and CUDA
 * kernels produce identical codestreams and pictures.
 *
 * Nothing here prints or exits; every call returns an xsf_status and the
 * handles keep the message of their last failure. Sizes are validated before
 * use; a codestream is hostile input. This header needs no CUDA header:
 * `struct CUstream_st *` is cudaStream_t. */
#ifndef XSF_BPC_H
#define XSF_BPC_H

#include <stddef.h>
#include <stdint.h>

#include "xsf.h"
#include "xsf_picture.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- fixed parameters of the coder (thesis values, FORMAT.md) ---- */
#define BPC_CODEBLOCK 64     /* code blocks are 64x64 (smaller at band edges) */
#define BPC_CODERS 32        /* one arithmetic coder per stripe of two columns */
#define BPC_CODEWORD_BITS 16 /* W: fixed-length codewords of 16 bits */
#define BPC_PROB_BITS 15     /* Pb: probabilities p/2^15 of the symbol 0, p in 1..32767 */
#define BPC_MAX_PLANES 28    /* magnitude bitplanes of a code block */
#define BPC_MAX_PASSES (3 * BPC_MAX_PLANES - 2)
#define BPC_MAX_LEVELS 6
#define BPC_MAX_COMPONENTS 4
#define BPC_MAX_DEPTH 16
#define BPC_MAX_DIMENSION 65535u /* picture width and height */
/* Largest picture, in samples over all components (2^28, as the readers). */
#define BPC_MAX_SAMPLES ((size_t)1 << 28)

/* Coding-pass variants: Bruns' single pass per bitplane, the thesis' two
 * passes (significance, refinement) and three passes (significance
 * propagation, magnitude refinement, cleanup). */
typedef enum bpc_variant {
    BPC_VARIANT_1PASS = 1,
    BPC_VARIANT_2PASS = 2,
    BPC_VARIANT_3PASS = 3,
} bpc_variant;

/* Number of coding passes of a code block with `planes` magnitude bitplanes. */
int bpc_pass_count(bpc_variant variant, int planes);

/* ---- probability tables (stationary model, thesis 3.2.2) ---- */

/* One table set: for each variant, wavelet band (level and orientation),
 * table plane and context, the probability p (1..32767) that the coded
 * symbol is 0, as p / 2^15. */
typedef struct bpc_tables bpc_tables;

/* The built-in sets (tables_builtin.c, trained as bpc/README.md says): one
 * for the reversible 5/3 path (filter 0) and one for the irreversible 9/7
 * path (filter 1). Never NULL; shared, not to be destroyed. */
const bpc_tables *bpc_tables_builtin(int filter);
/* 0 for the built-in sets, else the CRC-32 of the table file: the codestream
 * names the tables it was coded with by this number. */
uint32_t bpc_tables_id(const bpc_tables *t);
/* Reads a table file (written by bpc_tables_save or `xsflow bpc-train`). */
xsf_status bpc_tables_load(bpc_tables **t, const uint8_t *data, size_t len, xsf_error *err);
/* Serializes `t` into a buffer the caller frees. */
xsf_status bpc_tables_save(const bpc_tables *t, uint8_t **data, size_t *len, xsf_error *err);
void bpc_tables_destroy(bpc_tables *t);
/* The C source of the built-in sets (tables_builtin.c, what `xsflow bpc-train
 * --builtin` writes): bpc_builtin_source, the `nsources` names in `sources`
 * joined by spaces (what the sets were trained on), and bpc_builtin_hex, per
 * filter (t53, then t97), variant and band one byte per entry, a code of its
 * log-odds, as two hex digits, without the planes above the band's last
 * distinct one, and {0} for a variant 2 equal to variant 1 (the reader
 * restores both); `name53` and `name97` (the table files) go into its comment.
 * *text is NUL-terminated, *len bytes without the NUL, the caller frees it. */
xsf_status bpc_tables_builtin_c(const bpc_tables *t53, const bpc_tables *t97, const char *name53,
                                const char *name97, const char *const *sources, int nsources,
                                char **text, size_t *len, xsf_error *err);
/* The same on files: a table file read whole (bpc_tables_load; a file that
 * does not open: XSF_ERR_IO "cannot open: ..."), `t` written as a new table
 * file (bpc_tables_save; "cannot write" where the file cannot be made or
 * written whole), and the built-in sets' C source from the table files
 * path53 and path97 into `out`, *subject then the file the failure is about. */
xsf_status bpc_tables_read_file(bpc_tables **t, const char *path, xsf_error *err);
xsf_status bpc_tables_write_file(const bpc_tables *t, const char *path, xsf_error *err);
xsf_status bpc_tables_builtin_c_file(const char *path53, const char *path97,
                                     const char *const *sources, int nsources, const char *out,
                                     const char **subject, xsf_error *err);

/* ---- pictures ---- */

/* Pictures are xsf_picture (common/include/xsf_picture.h): XSF_PLANAR_U16, one
 * plane of unsigned right-aligned samples per component, depths 1..16. */

typedef enum bpc_colour {
    BPC_COLOUR_NONE = 0,
    BPC_COLOUR_RCT = 1, /* reversible (15444-1 G.2), with the 5/3 */
    BPC_COLOUR_ICT = 2, /* irreversible YCbCr (15444-1 G.3), with the 9/7 */
    BPC_COLOUR_AUTO = 3 /* RCT or ICT by filter when components 0-2 share size and depth */
} bpc_colour;

/* The colour a codestream with this transform describes: RCT and ICT
 * decode to R', G', B' as they are (xsf_colour_rgb: matrix identity,
 * rgb_order 1, full range, source XSF_COLOUR_CODESTREAM); NONE says
 * nothing (xsf_colour_default). */
void bpc_transform_colour(bpc_colour transform, xsf_colour *colour);

typedef enum bpc_filter { BPC_FILTER_53 = 0, BPC_FILTER_97 = 1 } bpc_filter;

typedef struct bpc_params {
    bpc_variant variant; /* default 2 passes */
    bpc_filter filter;   /* 5/3 reversible (lossless when not truncated) or 9/7 */
    int levels;          /* 0..6 symmetric DWT levels (default 5) */
    bpc_colour colour;   /* default AUTO */
    float qstep;         /* 9/7: base quantization step in 8-bit units (default 1) */
    /* Rate: the codestream's size in bytes, header included; 0 = keep every
     * coding pass (lossless with the 5/3). bpc_params_set_bpp fills it. */
    size_t target_bytes;
    const bpc_tables *tables; /* NULL: the built-in set of the filter */
} bpc_params;

void bpc_params_default(bpc_params *p);
/* target_bytes = floor(bpp * width * height / 8) for a picture of that size. */
void bpc_params_set_bpp(bpc_params *p, double bpp, int width, int height);

/* ---- codestream ---- */

/* True when buf starts with the BPC-PaCo signature (8 bytes). */
int bpc_detect(const uint8_t *buf, size_t len);

typedef struct bpc_info {
    int version_major, version_minor;
    size_t codestream_bytes; /* the whole codestream (the next one starts after it) */
    size_t header_bytes, index_bytes, data_bytes;
    int nc;
    int width[BPC_MAX_COMPONENTS], height[BPC_MAX_COMPONENTS], depth[BPC_MAX_COMPONENTS];
    bpc_variant variant;
    bpc_filter filter;
    int levels;
    bpc_colour colour;
    uint32_t tables_id;
    int table_plane_offset;
    float qstep;
    size_t codeblocks;
    /* Each band's quantization step (1 for the 5/3): band 0 the LL, then per
     * level from `levels` down to 1 HL, LH, HH (3 * levels + 1 bands). */
    float step[BPC_MAX_COMPONENTS][3 * BPC_MAX_LEVELS + 1];
} bpc_info;

/* Parses and validates the main header; the code blocks' count and that
 * they fit (not the index). What the decoders take back (bpc_decode_parsed,
 * bpc_gpu_decode_parsed) so that a header is parsed once. */
xsf_status bpc_parse_header(const uint8_t *buf, size_t len, bpc_info *info, xsf_error *err);

/* ---- C reference codec ---- */

typedef struct bpc_encoder bpc_encoder;
xsf_status bpc_encoder_create(bpc_encoder **enc, const bpc_params *params, xsf_error *err);
void bpc_encoder_destroy(bpc_encoder *enc);
/* Codes one picture into out (cap bytes; bpc_encode_bound says how many
 * suffice). Single-threaded; an encoder serves one call at a time. */
xsf_status bpc_encode(bpc_encoder *enc, const xsf_picture *img, uint8_t *out, size_t cap,
                      size_t *len);
/* Bytes that suffice for a picture of format `fmt` (0: the format or the
 * parameters are refused). */
size_t bpc_encode_bound(const bpc_params *params, const xsf_format *fmt);
const char *bpc_encoder_error(const bpc_encoder *enc);

typedef struct bpc_decoder bpc_decoder;
xsf_status bpc_decoder_create(bpc_decoder **dec, xsf_error *err);
void bpc_decoder_destroy(bpc_decoder *dec);
/* Tables for codestreams coded with external tables (bpc_tables_id != 0);
 * the decoder keeps the pointer. */
void bpc_decoder_set_tables(bpc_decoder *dec, const bpc_tables *tables);
/* Decodes the codestream at buf; *consumed is its length, *img is a view
 * (ref NULL) of host planes owned by the decoder, valid until the next
 * call, with the colour of bpc_transform_colour. */
xsf_status bpc_decode(bpc_decoder *dec, const uint8_t *buf, size_t len, size_t *consumed,
                      const xsf_picture **img);
/* The same with the codestream's header as bpc_parse_header gave it for
 * these bytes (`info`; its bytes are not parsed again); NULL: as bpc_decode. */
xsf_status bpc_decode_parsed(bpc_decoder *dec, const bpc_info *info, const uint8_t *buf, size_t len,
                             size_t *consumed, const xsf_picture **img);
const char *bpc_decoder_error(const bpc_decoder *dec);

/* ---- training (xsflow bpc-train) ---- */

typedef struct bpc_trainer bpc_trainer;
/* Counts, for one set of parameters (filter, levels, colour, qstep;
 * variant and rate are ignored: every variant is counted), the symbols the
 * coder emits per band, table plane and context. levels < 0: every level
 * count 0..6 (what the built-in sets are trained with). */
xsf_status bpc_trainer_create(bpc_trainer **tr, const bpc_params *params, xsf_error *err);
void bpc_trainer_destroy(bpc_trainer *tr);
xsf_status bpc_trainer_add(bpc_trainer *tr, const xsf_picture *img);
/* average = 0: probabilities of the pooled counts; 1: the mean of each
 * picture's probabilities (Bruns 8.5, averaged LUT). Entries with too few
 * symbols take those of the nearest trained plane of the band. */
xsf_status bpc_trainer_finish(bpc_trainer *tr, int average, bpc_tables **tables);
const char *bpc_trainer_error(const bpc_trainer *tr);
/* Pictures added and symbols counted so far. */
void bpc_trainer_totals(const bpc_trainer *tr, size_t *pictures, uint64_t *symbols);

/* ---- CUDA codec (same codestreams and pictures as the C reference) ----
 *
 * CUDA devices: an encoder or decoder belongs to the device that was current
 * at its creation (its stream must belong to it); the caller makes that
 * device current for every call on it. No call changes the current device
 * (xsf_cuda_device.h). (The `device` argument of bpc_gpu_encode and
 * bpc_gpu_decode says where the planes are, not which GPU.) */

struct CUstream_st;
/* XSF_OK when a usable GPU is present and this build has the kernels. */
xsf_status bpc_gpu_available(void);

typedef struct bpc_gpu_encoder bpc_gpu_encoder;
/* Allocates every device buffer for pictures of format `shape`
 * (components, sizes and depths); blocks. */
xsf_status bpc_gpu_encoder_create(bpc_gpu_encoder **enc, const bpc_params *params,
                                  const xsf_format *shape, struct CUstream_st *stream,
                                  xsf_error *err);
void bpc_gpu_encoder_destroy(bpc_gpu_encoder *enc);
/* Codes a picture whose planes are host memory (host or pinned) or device
 * memory (XSF_MEMORY_DEVICE, read in place; strides even). Synchronizes the
 * encoder's stream (the size is known only at the end). */
xsf_status bpc_gpu_encode(bpc_gpu_encoder *enc, const xsf_picture *img, uint8_t *out, size_t cap,
                          size_t *len);
const char *bpc_gpu_encoder_error(const bpc_gpu_encoder *enc);

typedef struct bpc_gpu_decoder bpc_gpu_decoder;
xsf_status bpc_gpu_decoder_create(bpc_gpu_decoder **dec, struct CUstream_st *stream,
                                  xsf_error *err);
void bpc_gpu_decoder_destroy(bpc_gpu_decoder *dec);
void bpc_gpu_decoder_set_tables(bpc_gpu_decoder *dec, const bpc_tables *tables);
/* Decodes into device planes owned by the decoder (device = 1: memory
 * XSF_MEMORY_DEVICE on the current device when the decoder was created) or
 * into host planes (device = 0); device buffers grow when a larger picture
 * arrives. *img is a view (ref NULL) valid until the next call, with the
 * colour of bpc_transform_colour. Synchronizes the decoder's stream. */
xsf_status bpc_gpu_decode(bpc_gpu_decoder *dec, const uint8_t *buf, size_t len, int device,
                          size_t *consumed, const xsf_picture **img);
/* The same with the header bpc_parse_header gave for these bytes (NULL:
 * as bpc_gpu_decode), as bpc_decode_parsed. */
xsf_status bpc_gpu_decode_parsed(bpc_gpu_decoder *dec, const bpc_info *info, const uint8_t *buf,
                                 size_t len, int device, size_t *consumed, const xsf_picture **img);
const char *bpc_gpu_decoder_error(const bpc_gpu_decoder *dec);

/* ---- the code-block coder alone (tests, benchmark, training) ---- */

/* Results of coding one code block: its bitplanes and, per coding pass, the
 * codewords reserved up to the end of the pass (the truncation point) and
 * the distortion reduction of the pass in units of 2^(2j - 2*BPC_DIST_FRAC)
 * squared quantization indices (j: the pass' bitplane). */
#define BPC_DIST_FRAC 8
typedef struct bpc_codeblock_result {
    int planes;
    int passes;
    uint32_t pass_codewords[BPC_MAX_PASSES];
    int64_t pass_distortion[BPC_MAX_PASSES];
} bpc_codeblock_result;

/* The probabilities of one band for one variant: [table plane][context]. */
typedef struct bpc_band_probs {
    const uint16_t *p; /* BPC_TABLE_PLANES rows of 27 contexts (bpc_context_count used) */
    int plane_offset;  /* table plane = clamp(bitplane + plane_offset, 0, BPC_TABLE_PLANES - 1) */
} bpc_band_probs;

#define BPC_TABLE_PLANES 20
#define BPC_TABLE_BANDS 28 /* 4 orientations (LL, HL, LH, HH) x levels 0..6 */
int bpc_context_count(bpc_variant variant);
/* The probabilities of band (level, orientation) in a table set. */
bpc_band_probs bpc_tables_band(const bpc_tables *t, bpc_variant variant, int level, int orientation,
                               int plane_offset);

/* Bytes a code block of w x h coefficients with `planes` bitplanes may need:
 * every codeword holds two symbols or more (FORMAT.md), so at most one byte
 * per symbol plus one codeword per coder. */
size_t bpc_codeblock_bound(int w, int h, int planes);

/* Codes the w x h (1..64) quantization indices at coef (row pitch `pitch`,
 * two's complement, magnitudes below 2^BPC_MAX_PLANES) into out. */
xsf_status bpc_codeblock_encode(bpc_variant variant, const bpc_band_probs *probs,
                                const int32_t *coef, size_t pitch, int w, int h, uint8_t *out,
                                size_t cap, bpc_codeblock_result *res, xsf_error *err);
/* Decodes the first `passes` coding passes from len bytes and writes twice
 * the reconstruction (2|v| + 2^p for a coefficient known down to bitplane p,
 * with its sign; 0 if not significant) at recon2. The data must hold exactly
 * the codewords those passes use. */
xsf_status bpc_codeblock_decode(bpc_variant variant, const bpc_band_probs *probs,
                                const uint8_t *data, size_t len, int planes, int passes,
                                int32_t *recon2, size_t pitch, int w, int h, xsf_error *err);

/* What a header says, in words, as `xsflow info` prints a frame: a line per
 * component ("  component 0: 320x180, 8 bits\n"), then the coding passes,
 * the wavelet, the levels and the colour transform, the 9/7's quantization
 * step, the probability tables and the sizes. Writes at most cap bytes, NUL
 * terminated (buf may be NULL with cap 0); returns the length of the whole
 * text, as snprintf does. */
size_t bpc_info_describe(const bpc_info *info, char *buf, size_t cap);

/* BPC-PaCo in the codec table (bpc/codec_bpc.c; codec/include/xsf_codecs.h finds it). */
struct xsf_codec;
extern const struct xsf_codec bpc_codec;

#ifdef __cplusplus
}
#endif
#endif
