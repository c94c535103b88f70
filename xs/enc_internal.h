/* Internal state of the JPEG XS encoders: what the C reference and the CUDA
 * encoder share (configuration, header, geometry, band-line layout, budgets). */
#ifndef XS_ENC_INTERNAL_H
#define XS_ENC_INTERNAL_H

#include "enc_rate.h"
#include "wavelet.h"
#include "xs_internal.h"
#include "xsf_pool.h"
#include "xsf_vector.h" /* XSF_VECTOR_CLONES on the widest loops */

#define ENC_MAX_HEADER_BYTES 1024 /* SOC..WGT/NLT/CWD: 2+6+28+18+2+2*256+14+5 at most */

/* Everything derived from a configuration, shared by both encoders. */
typedef struct enc_plan {
    xs_encoder_config cfg;
    xs_header hdr;
    xs_geometry geom;
    enc_params params;
    uint8_t header[ENC_MAX_HEADER_BYTES]; /* SOC .. the last header marker, Lcod included */
    size_t header_bytes;
    size_t nprecincts;     /* rows * cols */
    uint32_t *bline_first; /* nprecincts + 1 entries into bline */
    enc_bline *bline;      /* every band line of every precinct, codestream order */
    size_t nblines;
    int max_blines; /* most band lines in one precinct */
    /* Budgets (targets only): allotment of each precinct in bytes, and the
     * codestream size. */
    uint32_t *allot;
    size_t target_bytes;
    size_t max_bytes; /* bound on the codestream size */
    /* Forward non-linearity: per component, sample value -> coefficient (NULL: linear). */
    int32_t *nlt_lut[XS_MAX_COMPONENTS];
} enc_plan;

xsf_status enc_plan_init(enc_plan *plan, const xs_encoder_config *cfg, xsf_error *err);
void enc_plan_free(enc_plan *plan);

/* Header and weights for a configuration (enc_config.c). */
xsf_status enc_make_header(const xs_encoder_config *cfg, xs_header *hdr, xsf_error *err);
/* Gains and priorities that minimize the squared error over R, G, B (RCT)
 * or the luma-weighted (8:1:1) YCbCr error (enc_weights.c). */
xsf_status enc_psnr_weights(const xs_header *hdr, uint8_t *gain, uint8_t *priority, xsf_error *err);
/* The energy of every band's synthesis basis function for hdr's band
 * structure (on a small picture of the same structure, whose geometry g
 * receives), band order (enc_weights.c). */
xsf_status enc_band_energies(const xs_header *hdr, xs_geometry *g, double *energy, xsf_error *err);
/* Gains and priorities from relative weights of the squared error of each
 * band: gain the integer part of log2(sqrt(w)) above the smallest, priority
 * the rank of its fractional part (largest first). */
void enc_weights_to_gains(int nbands, const double *weight, uint8_t *gain, uint8_t *priority);
/* Profile and level checks; fills hdr->plev when cfg->plev < 0. */
xsf_status enc_check_profile(const xs_encoder_config *cfg, xs_header *hdr, size_t codestream_bytes,
                             xsf_error *err);
/* Serializes SOC..the last header marker segment (enc_markers.c). */
size_t enc_write_header(const xs_header *hdr, uint8_t *out, size_t cap);
/* Forward NLT tables (enc_input.c). */
xsf_status enc_nlt_tables(const xs_header *hdr, int32_t *lut[XS_MAX_COMPONENTS], xsf_error *err);

/* The C encoder. A frame runs on a pool of threads (xsf_pool.h): the
 * input stage over stripes of rows where one is needed, then one run over
 * tasks slice by slice: the forward DWT level by level (each level of a
 * slice once the level before is done in it and in its neighbours), the
 * bitplane counts and then the cost tables precinct by precinct, the rate
 * decision slice by slice (inside a slice each precinct needs the one
 * before: vertical prediction, the shares and the carried budget), then the
 * packing precinct by precinct. Every part writes to a place of its own;
 * errors are reported in codestream order. */
typedef struct enc_worker {
    enc_choice choice;    /* slice_shares' scratch */
    uint32_t *dwt;        /* wav_part_scratch words */
    const int32_t **line; /* packing: each band line's coefficients (max_blines) */
} enc_worker;

typedef struct enc_slice_result {
    xsf_error err;   /* status XSF_OK: every precinct of the slice was decided */
    size_t precinct; /* the first precinct left undecided (where it failed) */
} enc_slice_result;

struct xs_encoder {
    xsf_error err;
    enc_plan plan;
    int32_t *coef[XS_MAX_COMPONENTS]; /* Mallat planes, Wc x Hc (NULL where ring[c]) */
    /* The coefficients of the components whose DWT runs slice by slice
     * (first[c]) live in a ring of ring_slots slices (slice s in slot s %
     * ring_slots) that the DWT fills and the packing reads, reused as
     * slices are packed, so that they stay in cache: a slot holds, level by
     * level (1..nly), the slice's low rows of the level then its high rows
     * (wav_forward_level_part's rows, each as wide as the level's input,
     * level_width), then below nly the low band it leaves (the next level's
     * input rows, as wide as that input).
     * Row brow of band b (component c) is at ring[c] + (slice % ring_slots)
     * * ring_slot[c] + band_off[b] + (brow % band_rows[b]) * band_pitch[b]
     * (band_row, encoder.c). */
    int32_t *ring[XS_MAX_COMPONENTS];
    size_t ring_slot[XS_MAX_COMPONENTS];                 /* words of a slot */
    size_t level_off[XS_MAX_COMPONENTS][XS_MAX_NLY + 1]; /* level l's low rows in a slot */
    size_t level_width[XS_MAX_COMPONENTS][XS_MAX_NLY + 1];
    size_t band_off[XS_MAX_BANDS], band_pitch[XS_MAX_BANDS], band_rows[XS_MAX_BANDS];
    int ring_slots;
    /* first[c]: the DWT's levels that split rows run slice by slice from
     * sources of rows (wav_forward_level_part), level 1's made from the
     * picture as it goes, or with the RCT (which mixes components) read
     * from in[c]; input[c]: where the input stage writes (coef, in, or
     * NULL: nothing). */
    uint8_t first[XS_MAX_COMPONENTS];
    int32_t *in[XS_MAX_COMPONENTS];
    int32_t *input[XS_MAX_COMPONENTS];
    wav_plan *wav[XS_MAX_COMPONENTS];
    uint8_t *gcli; /* bitplane count per code group (xs_geometry layout) */
    /* The bands the DWT's horizontal step of level l finishes in component
     * c: step_band[c][l][0..step_bands[c][l]) (enc_band_row_gcli), and per
     * row of those bands whether a magnitude needs more than 15 bit planes:
     * row_sat[row_sat_first[b] + row]. */
    uint8_t step_band[XS_MAX_COMPONENTS][XS_MAX_NLX + 1][4];
    uint8_t step_bands[XS_MAX_COMPONENTS][XS_MAX_NLX + 1];
    size_t row_sat_first[XS_MAX_BANDS];
    uint8_t *row_sat;
    uint16_t *reach;       /* four 4-bit sign reaches per code group */
    enc_line_cost *cost;   /* cost tables of every band line (plan.bline order) */
    enc_choice *choice;    /* per precinct: its decision */
    uint8_t *gtli;         /* rows x cols x nbands truncation positions */
    uint32_t *share;       /* XS_RC_SLICE: each precinct's share of its slice (enc_slice_share) */
    size_t *prec_off;      /* per precinct: where it is written (as slice_off counts) */
    uint8_t *flag;         /* per precinct: bit 0 a magnitude over 15 bit planes (counts),
                              bit 1 packets of another size than decided (packing) */
    struct enc_sync *sync; /* the order of a frame's tasks and what is done (encoder.c) */
    xs_encoder_stats stats;
    xsf_pool *pool;
    enc_worker *worker; /* one per pool thread */
    enc_slice_result *slice;
    size_t *slice_off; /* per slice: its offset in the codestream (targets) or in the
                          bound layout (fixed rate) */
    uint8_t *spill;    /* fixed rate into an output smaller than the bound: max_bytes */
};

/* Input stage: checks the picture against the plan, then samples to
 * coefficients (scaling or NLT, DC offset, RCT) for the picture rows
 * [row0, row1) of component 0 (the rows of a subsampled component that lie
 * there: row0 and row1 even, or the picture's height). */
xsf_status enc_input_check(const enc_plan *plan, const xsf_picture *pic, xsf_error *err);
void enc_input_rows(const enc_plan *plan, const xsf_picture *pic,
                    int32_t *const coef[XS_MAX_COMPONENTS], int row0, int row1);
/* Row y of component c's samples to coefficients (without the RCT, which
 * mixes components): what enc_input_rows writes there, for a coef[c] left
 * NULL, whose rows the DWT makes as it goes. */
void enc_input_row(const enc_plan *plan, const xsf_picture *pic, int c, int y, int32_t *out);
/* Bitplane counts and sign reaches of the code groups of precinct p
 * (enc_analysis.c); 0, or -1 when a magnitude needs more than 15 bit planes.
 * untransformed: only the lines of bands without a horizontal level (lx 0:
 * no DWT), the others being enc_band_row_gcli's. */
int enc_precinct_gcli(const enc_plan *plan, size_t p, int32_t *const coef[XS_MAX_COMPONENTS],
                      uint8_t *gcli, uint16_t *reach, int untransformed);
/* The same for row brow of band `band`, every precinct column, its
 * coefficients at row: what enc_precinct_gcli writes for the band lines of
 * that row. The forward DWT's horizontal step of level lx writes a band of
 * level lx for the last time, so the encoder counts each row right after
 * that step, while the row is in cache. */
int enc_band_row_gcli(const enc_plan *plan, int band, int brow, const int32_t *row, uint8_t *gcli,
                      uint16_t *reach);
/* Cost tables of the band lines of precinct p: what enc_cost_sig_group
 * sums over their significance groups (enc_analysis.c); first_only: only
 * what depends on gtli_above, the vertical prediction tables (unary[m] for
 * m with ENC_MODE_VPRED) of its first lines, the rest of the tables being
 * those of an earlier call on the same counts. */
void enc_precinct_costs(const enc_plan *plan, size_t p, const uint8_t *gcli, const uint16_t *reach,
                        const uint8_t *gtli_above, int first_only, enc_line_cost *cost);
/* Writes precinct p at out (its size total_bytes, padding included), the
 * coefficients of its band lines at line[0 .. its band lines); returns the
 * bytes its packets took, or 0 on an internal mismatch. */
size_t enc_write_precinct(const enc_plan *plan, size_t p, int q, int r, const enc_choice *ch,
                          const enc_line_cost *cost, const int32_t *const *line,
                          const uint8_t *gcli, const uint8_t *gtli_above, uint8_t *out,
                          size_t total_bytes);

#endif
