/* Internal structures of bpc/: picture geometry (bands and code blocks),
 * tables, codestream header, rate control. Not for use outside bpc/ (the
 * tests may include it). */
#ifndef XSF_BPC_INTERNAL_H
#define XSF_BPC_INTERNAL_H

#include <stdint.h>

#include "bpc.h"
#include "coder_rules.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BPC_MAX_BANDS (3 * BPC_MAX_LEVELS + 1)
#define BPC_MAGIC_BYTES 8
extern const uint8_t bpc_magic[BPC_MAGIC_BYTES];
#define BPC_VERSION_MAJOR 1
#define BPC_VERSION_MINOR 0

enum { BPC_ORIENT_LL = 0, BPC_ORIENT_HL = 1, BPC_ORIENT_LH = 2, BPC_ORIENT_HH = 3 };

/* One band of one component, in the Mallat layout of wavelet.h. */
typedef struct bpc_band {
    int level;  /* 1..levels; the LL band has level == levels (0 without DWT) */
    int orient; /* BPC_ORIENT_* */
    size_t x0, y0, w, h;
    size_t cbx, cby;  /* code blocks across and down */
    size_t first_cb;  /* index of its first code block in the picture's list */
    double gain;      /* synthesis energy gain (sum of squares of its basis functions) */
    double l1;        /* analysis L1 norm: |coefficient| <= l1 * max |sample| */
    float step;       /* quantization step (1 for the 5/3) */
    int planes_bound; /* bitplanes its code blocks can need at most */
} bpc_band;

typedef struct bpc_component_layout {
    int width, height, depth;
    int nbands;
    bpc_band band[BPC_MAX_BANDS]; /* LL, then per level from `levels` to 1: HL, LH, HH */
    double colour_gain;           /* energy gain of the inverse colour transform */
} bpc_component_layout;

/* A code block, as the kernels and the C coder see it. */
typedef struct bpc_cb_desc {
    uint32_t comp;
    uint32_t band;       /* index into the component's bands */
    uint32_t table_band; /* level * 4 + orientation */
    uint32_t x0, y0;     /* in the component's plane */
    uint32_t w, h;
} bpc_cb_desc;

/* Everything the header fixes: parameters, geometry, steps. */
typedef struct bpc_layout {
    int nc;
    int width[BPC_MAX_COMPONENTS], height[BPC_MAX_COMPONENTS], depth[BPC_MAX_COMPONENTS];
    bpc_variant variant;
    bpc_filter filter;
    int levels;
    bpc_colour colour; /* NONE, RCT or ICT */
    float qstep;
    int table_plane_offset;
    uint32_t tables_id;
    bpc_component_layout comp[BPC_MAX_COMPONENTS];
    size_t ncb;
    bpc_cb_desc *cb; /* ncb entries, codestream order (owned) */
    size_t header_bytes;
} bpc_layout;

/* Fills geometry, gains, steps and bounds from the picture shape and the
 * parameters (encoder) or from the header (decoder: steps are read, not
 * computed). Frees with bpc_layout_free. */
xsf_status bpc_layout_init(bpc_layout *lay, const bpc_params *params, const xsf_format *shape,
                           xsf_error *err);
xsf_status bpc_layout_build_codeblocks(bpc_layout *lay, xsf_error *err);
void bpc_layout_free(bpc_layout *lay);
/* Bands from the components' sizes (bpc_layout_init, and the decoder,
 * which then sets the header's steps), then the decoder's bitplane bounds
 * with those steps. */
void bpc_layout_bands_from_header(bpc_layout *lay);
void bpc_layout_bounds_from_header(bpc_layout *lay);
/* The wavelet transform of component c's plane (width elements per row;
 * `planes` planes of its size stacked one after the other): the layout's
 * filter and levels, on int32 samples for the 5/3, float for the 9/7. */
struct wav_plan_desc;
void bpc_layout_wavelet(const bpc_layout *lay, int c, size_t planes, struct wav_plan_desc *d);
/* Synthesis gains and L1 norms of every band for a filter and level count
 * (2D, separable). */
void bpc_band_gains(bpc_filter filter, int levels, bpc_component_layout *comp);

/* ---- tables ---- */

struct bpc_tables {
    uint32_t id;
    /* p[variant - 1][band][table plane][context]; 14 contexts used of 27 for
     * 1 and 2 passes. */
    uint16_t p[3][BPC_TABLE_BANDS][BPC_TABLE_PLANES][BPC_NCTX_MAX];
};

/* tables_builtin.c (bpc_tables_builtin_c writes it): per filter (5/3, 9/7),
 * variant 1..3 and band, the band's table planes from plane 0 up to the last
 * that differs from the one below it (the planes above repeat it), the
 * variant's contexts each, two hex digits per entry (a code of the log-odds,
 * tables.c); a variant whose band 0 is NULL has variant 1's tables. What the
 * sets were trained on, in bpc_builtin_source. */
extern const char *const bpc_builtin_hex[2][3][BPC_TABLE_BANDS];
extern const char *const bpc_builtin_source;

/* ---- codestream ---- */

size_t bpc_header_size(int nc, int levels);
/* The size of a codestream of lay's header, index_bytes and data_bytes
 * (*total); XSF_ERR_ARG where it passes 4 GiB or `cap`. */
xsf_status bpc_codestream_size(const bpc_layout *lay, size_t index_bytes, size_t data_bytes,
                               size_t cap, size_t *total, xsf_error *err);
/* Writes the main header of `lay` (index_bytes and data_bytes given). */
void bpc_write_header(const bpc_layout *lay, size_t index_bytes, size_t data_bytes, uint8_t *out);

/* The pictures a header describes: XSF_PLANAR_U16, its components' sizes
 * and depths. */
void bpc_info_format(const bpc_info *info, xsf_format *f);

/* One code block's index entry: varint passes; if passes > 0: u8 planes and
 * varint codewords. */
size_t bpc_varint_size(uint32_t v);
size_t bpc_index_entry_size(int passes, uint32_t codewords);
size_t bpc_write_index_entry(uint8_t *out, int planes, int passes, uint32_t codewords);

typedef struct bpc_cb_entry {
    uint8_t planes, passes;
    uint32_t codewords;
    size_t offset; /* from the start of the data */
} bpc_cb_entry;
/* Reads and validates the index against the layout's code blocks and the
 * data length. */
xsf_status bpc_read_index(const bpc_layout *lay, const uint8_t *index, size_t index_bytes,
                          size_t data_bytes, bpc_cb_entry *entries, xsf_error *err);

/* The codestream a decoder (decoder.c, gpu_decoder.cu) decodes: its header,
 * its layout (code blocks built), the tables it was coded with and its
 * index, read and validated. */
typedef struct bpc_codestream {
    bpc_info info;
    bpc_layout lay;
    const bpc_tables *tables;
    bpc_cb_entry *entries; /* lay.ncb of them (room for entries_cap) */
    size_t entries_cap;
    const uint8_t *data; /* the code blocks' data (info.data_bytes) in the codestream */
} bpc_codestream;
/* Fills *cs for the codestream buf[0, len) (what it held before is
 * dropped; its room for entries kept): the header from `parsed`, as
 * bpc_parse_header gave it for these bytes (not read again), or where
 * parsed is NULL from the bytes, every field validated and the stated
 * lengths checked against len; the tables: the built-in set, or `external`
 * where the codestream names its id (XSF_ERR_UNSUPPORTED otherwise); then
 * the index. A zeroed *cs is empty; bpc_codestream_free frees it. */
xsf_status bpc_codestream_open(bpc_codestream *cs, const uint8_t *buf, size_t len,
                               const bpc_info *parsed, const bpc_tables *external, xsf_error *err);
void bpc_codestream_free(bpc_codestream *cs);

/* ---- rate control (rate.c; the GPU runs the same rules, rate_rules.h) ---- */

/* Per code block: its truncation points on the convex hull. */
typedef struct bpc_rate_cb {
    int npoints;                    /* hull points after the empty one */
    uint8_t pass[BPC_MAX_PASSES];   /* passes kept at each hull point */
    uint32_t bytes[BPC_MAX_PASSES]; /* index entry + data bytes at each point */
    double slope[BPC_MAX_PASSES];   /* distortion reduction per byte, decreasing */
} bpc_rate_cb;

/* Chooses the passes of every code block: all of them when budget is 0,
 * else the largest selection on the slopes that fits budget bytes of index
 * and data. */
void bpc_rate_select(const bpc_rate_cb *cbs, size_t ncb, size_t budget, uint8_t *passes);

/* ---- internal entry points shared by the C and CUDA codecs ---- */

/* colour.c: samples to DWT planes (width elements per row: int32 for the
 * 5/3, float for the 9/7) and back; bpc_back transforms the planes' colour
 * in place on its way. */
void bpc_front(const bpc_layout *lay, const xsf_picture *img, void *const *planes);
void bpc_back(const bpc_layout *lay, void *const *planes, const xsf_picture *out);

/* encoder.c: colour transform, DWT and quantization of a picture into one
 * int32 plane of quantization indices per component. */
typedef struct bpc_frontend {
    void *plane[BPC_MAX_COMPONENTS]; /* int32 (5/3) or float (9/7) */
    int32_t *q[BPC_MAX_COMPONENTS];  /* indices (the 5/3 planes themselves) */
    struct wav_plan *plan[BPC_MAX_COMPONENTS];
} bpc_frontend;
xsf_status bpc_frontend_init(bpc_frontend *fe, const bpc_layout *lay, xsf_error *err);
xsf_status bpc_frontend_run(bpc_frontend *fe, const bpc_layout *lay, const xsf_picture *img,
                            xsf_error *err);
void bpc_frontend_free(bpc_frontend *fe);
/* Distortion weight of a code block: colour gain x band gain x step^2. */
double bpc_codeblock_weight(const bpc_layout *lay, const bpc_cb_desc *d);
/* The tables a codestream names: built-in (id 0) or `external` if its id
 * matches; NULL otherwise. */
const bpc_tables *bpc_tables_for(const bpc_layout *lay, const bpc_tables *external);
uint16_t bpc_default_p(int variant, int ctx);

/* codec_bpc.c, in builds with CUDA: makes `device` current for a call of
 * the codec table's GPU decoder or encoder (bpc's GPU code works on the
 * current device), the caller's kept in *saved for xsf_cuda_device_leave,
 * which follows whatever this returned (xsf_cuda_device.h); XSF_ERR_CUDA
 * where the device cannot be made current. */
struct xsf_cuda_device_saved;
xsf_status bpc_codec_device_enter(struct xsf_cuda_device_saved *saved, int device, xsf_error *err);
/* codec_bpc_enc.c: the encoders of bpc_codec's table (codec_bpc.c). */
extern const struct xsf_encoder_ops bpc_codec_encoder;

uint32_t bpc_crc32(const uint8_t *data, size_t len);
void bpc_tables_fill_default(bpc_tables *t);
int bpc_p_to_code(uint16_t p);
void bpc_codeblock_count(bpc_variant variant, int plane_offset, const int32_t *coef, size_t pitch,
                         int w, int h, uint64_t *counts);

#ifdef __cplusplus
}
#endif
#endif
