/* Precinct decoding: precinct header, packets and their subpackets
 * (significance, bitplane counts, data, signs), dequantization
 * (21122-1 Annex C and D). Coefficients land in the component planes in
 * Mallat layout, scaled by 2^Fq, ready for the inverse DWT. */
#include <string.h>

#include "bitreader.h"
#include "xs_decoder.h"

#define FAILP(st, ...) xsf_error_set(err, st, __VA_ARGS__)

/* 21122-1 C.7 (Table C.10): truncation position of a band from the
 * precinct's quantization Q and refinement R. */
static int truncation(const xs_band *b, int q, int r)
{
    int t = q - b->gain - (b->priority < r ? 1 : 0);
    return t < 0 ? 0 : (t > XS_MAX_GCLI ? XS_MAX_GCLI : t);
}

/* Bitplane counts of one band line (21122-1 C.7): raw, unary without
 * prediction, or vertical prediction through the bounded code; significance
 * flags mark groups of 8 code groups whose residuals (Rm=0) or counts
 * (Rm=1) are zero. Returns 0, or -1 on a code the line cannot hold. */
static int decode_gcli_line(xs_bits *br, uint8_t *g, int n, int raw, int mode, const uint8_t *sig,
                            int gtli, const uint8_t *top, int t, int rm)
{
    if (raw) {
        for (int i = 0; i < n; i++)
            g[i] = (uint8_t)xs_bits_get(br, 4);
        return br->overrun ? -1 : 0;
    }
    const int use_sig = mode & 2, vpred = mode & 1;
    for (int i = 0; i < n; i++) {
        int insignificant = use_sig && sig[i >> 3];
        int v;
        if (!vpred) {
            if (insignificant) {
                v = gtli;
            } else {
                int x = xs_bits_unary(br, 32);
                if (x < 0)
                    return -1;
                v = gtli + x;
            }
        } else {
            int mtop = top[i] > t ? top[i] : t;
            if (insignificant) {
                v = rm ? gtli : mtop;
            } else {
                int x = xs_bits_unary(br, 32);
                if (x < 0)
                    return -1;
                int thr = mtop - gtli > 0 ? mtop - gtli : 0;
                v = mtop + xs_bounded_residual(x, thr);
            }
        }
        if (v > XS_MAX_GCLI)
            return -1;
        g[i] = (uint8_t)v;
    }
    return 0;
}

/* Magnitudes (and, without sign packing, signs) of one band line, with
 * the inverse quantizer of 21122-1 D.3 applied and the 2^Fq scale. Returns
 * the number of non-zero padding coefficients of the last code group, whose
 * signs the sign subpacket carries too, or -1 on overrun. */
static int decode_data_line(xs_bits *br, int32_t *out, int w, const uint8_t *g, int gtli, int fs,
                            int uniform, int fq)
{
    int padding_nonzero = 0;
    const int groups = (w + 3) / 4;
    for (int i = 0; i < groups; i++) {
        const int count = w - 4 * i < 4 ? w - 4 * i : 4;
        const int nbp = g[i] - gtli;
        if (nbp <= 0) {
            for (int j = 0; j < count; j++)
                out[4 * i + j] = 0;
            continue;
        }
        uint32_t signs = fs ? 0 : xs_bits_get(br, 4);
        uint32_t m0 = 0, m1 = 0, m2 = 0, m3 = 0;
        for (int p = 0; p < nbp; p++) {
            uint32_t nib = xs_bits_get(br, 4);
            m0 = (m0 << 1) | (nib >> 3);
            m1 = (m1 << 1) | ((nib >> 2) & 1);
            m2 = (m2 << 1) | ((nib >> 1) & 1);
            m3 = (m3 << 1) | (nib & 1);
        }
        uint32_t m[4] = {m0, m1, m2, m3};
        for (int j = 0; j < 4; j++) {
            uint32_t v = m[j] << gtli;
            if (v && gtli) {
                if (uniform) {
                    const int scale = g[i] - gtli + 1;
                    uint32_t acc = 0;
                    for (uint32_t r = v; r; r >>= scale)
                        acc += r;
                    v = acc;
                } else {
                    v |= 1u << (gtli - 1);
                }
            }
            if (j >= count) {
                padding_nonzero += v != 0;
                continue;
            }
            int32_t s = (int32_t)(v << fq);
            out[4 * i + j] = ((signs >> (3 - j)) & 1) ? -s : s;
        }
    }
    return br->overrun ? -1 : padding_nonzero;
}

static int decode_sign_line(xs_bits *br, int32_t *out, int w, int padding_nonzero)
{
    for (int x = 0; x < w; x++)
        if (out[x] && xs_bits_get(br, 1))
            out[x] = -out[x];
    for (int k = 0; k < padding_nonzero; k++)
        xs_bits_get(br, 1);
    return br->overrun ? -1 : 0;
}

static uint32_t rd_bits(const uint8_t *p, int first, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return (uint32_t)((v << first) >> (64 - n));
}

xsf_status xs_decode_precinct(xs_decoder *d, uint8_t *sig_scratch, xsf_error *err,
                              const uint8_t *buf, size_t len, size_t base, int row, int col,
                              int first_in_slice, size_t *used)
{
    const xs_geometry *g = &d->geom;
    const xs_header *h = &d->hdr;
    const size_t hb = g->precinct_header_bytes;
    if (len < hb)
        return FAILP(XSF_ERR_TRUNCATED,
                     "byte %zu: precinct (%d,%d): header of %zu bytes runs past the end", base, row,
                     col, hb);
    const uint32_t lprc = ((uint32_t)buf[0] << 16) | ((uint32_t)buf[1] << 8) | buf[2];
    const int q = buf[3], r = buf[4];
    if (lprc > len - hb)
        return FAILP(
            XSF_ERR_TRUNCATED,
            "byte %zu: precinct (%d,%d): length Lprc=%u runs past the end (%zu bytes left)", base,
            row, col, lprc, len - hb);
    uint8_t *gtli = d->gtli + ((size_t)row * g->cols + col) * g->nbands;
    const uint8_t *gtli_top = row > 0 ? gtli - (size_t)g->cols * g->nbands : NULL;
    uint8_t mode[XS_MAX_BANDS];
    for (int b = 0; b < g->nbands; b++) {
        mode[b] = (uint8_t)((buf[5 + b / 4] >> (6 - 2 * (b & 3))) & 3);
        gtli[b] = (uint8_t)truncation(&g->band[b], q, r);
        if ((mode[b] & 1) && first_in_slice)
            return FAILP(XSF_ERR_INVALID,
                         "byte %zu: precinct (%d,%d): band %d uses vertical prediction in the "
                         "first precinct of a slice",
                         base, row, col, b);
    }

    const uint8_t *data = buf + hb;
    const size_t end = lprc;
    size_t pos = 0;
    const size_t pkt_hdr_bytes = g->long_headers ? 7 : 5;
    for (int pi = 0; pi < g->npackets; pi++) {
        const xs_packet *pk = &g->packet[pi];
        int present = 0;
        for (int b = pk->first; b < pk->last; b++)
            if (xs_band_prec_height(&g->band[b], row) > pk->line)
                present = 1;
        if (!present)
            continue;
        if (end - pos < pkt_hdr_bytes)
            return FAILP(XSF_ERR_INVALID,
                         "byte %zu: precinct (%d,%d) packet %d: header runs past Lprc",
                         base + hb + pos, row, col, pi);
        /* 21122-1 C.4, Table C.5: Dr, Ldat, Lcnt, Lsgn. */
        uint8_t hdr8[8] = {0};
        memcpy(hdr8, data + pos, pkt_hdr_bytes);
        const int raw = hdr8[0] >> 7;
        uint32_t ldat, lcnt, lsgn;
        if (g->long_headers) {
            ldat = rd_bits(hdr8, 1, 20);
            lcnt = rd_bits(hdr8, 21, 20);
            lsgn = rd_bits(hdr8, 41, 15);
        } else {
            ldat = rd_bits(hdr8, 1, 15);
            lcnt = rd_bits(hdr8, 16, 13);
            lsgn = rd_bits(hdr8, 29, 11);
        }
        pos += pkt_hdr_bytes;

        /* Significance subpacket: no length field, its size follows from the bands. */
        uint8_t *sig = sig_scratch;
        size_t sig_used = 0;
        if (!raw) {
            size_t bits = 0;
            for (int b = pk->first; b < pk->last; b++) {
                const xs_band *bd = &g->band[b];
                if (xs_band_prec_height(bd, row) > pk->line && (mode[b] & 2))
                    bits += ((size_t)(xs_band_prec_width(g, bd, col) + 3) / 4 + 7) / 8;
            }
            const size_t bytes = (bits + 7) / 8;
            if (bytes > end - pos)
                return FAILP(
                    XSF_ERR_INVALID,
                    "byte %zu: precinct (%d,%d) packet %d: significance subpacket runs past Lprc",
                    base + hb + pos, row, col, pi);
            xs_bits br;
            xs_bits_init(&br, data + pos, bytes);
            for (size_t k = 0; k < bits; k++)
                sig[k] = (uint8_t)xs_bits_get(&br, 1);
            pos += bytes;
        }
        if (lcnt > end - pos || ldat > end - pos - lcnt || lsgn > end - pos - lcnt - ldat)
            return FAILP(XSF_ERR_INVALID,
                         "byte %zu: precinct (%d,%d) packet %d: subpackets Lcnt=%u Ldat=%u Lsgn=%u "
                         "exceed Lprc=%u",
                         base, row, col, pi, lcnt, ldat, lsgn, lprc);

        xs_bits br;
        xs_bits_init(&br, data + pos, lcnt);
        for (int b = pk->first; b < pk->last; b++) {
            const xs_band *bd = &g->band[b];
            if (xs_band_prec_height(bd, row) <= pk->line)
                continue;
            const int w = xs_band_prec_width(g, bd, col);
            const int n = (w + 3) / 4;
            const size_t brow = (size_t)row * bd->lines + pk->line;
            uint8_t *gl = d->gcli + bd->gcli_offset + brow * bd->gcli_stride +
                          (size_t)col * ((bd->col_width + 3) / 4);
            const uint8_t *top = NULL;
            int t = gtli[b];
            if (mode[b] & 1) {
                top =
                    gl - bd->gcli_stride; /* previous line of the band: same or previous precinct */
                const int gt = pk->line == 0 ? gtli_top[b] : gtli[b];
                t = gt > gtli[b] ? gt : gtli[b];
            }
            const uint8_t *s = (!raw && (mode[b] & 2)) ? sig + sig_used : NULL;
            if (s)
                sig_used += ((size_t)n + 7) / 8;
            if (decode_gcli_line(&br, gl, n, raw, mode[b], s, gtli[b], top, t, h->rm) < 0)
                return FAILP(
                    XSF_ERR_INVALID,
                    "byte %zu: precinct (%d,%d) packet %d band %d: invalid bitplane count code",
                    base, row, col, pi, b);
        }
        if (br.overrun)
            return FAILP(XSF_ERR_INVALID,
                         "byte %zu: precinct (%d,%d) packet %d: bitplane counts overrun Lcnt=%u",
                         base, row, col, pi, lcnt);
        pos += lcnt;

        int padding[XS_MAX_BANDS];
        xs_bits_init(&br, data + pos, ldat);
        for (int b = pk->first; b < pk->last; b++) {
            const xs_band *bd = &g->band[b];
            padding[b - pk->first] = 0;
            if (xs_band_prec_height(bd, row) <= pk->line)
                continue;
            const int w = xs_band_prec_width(g, bd, col);
            const size_t brow = (size_t)row * bd->lines + pk->line;
            const uint8_t *gl = d->gcli + bd->gcli_offset + brow * bd->gcli_stride +
                                (size_t)col * ((bd->col_width + 3) / 4);
            int32_t *out = d->coef[bd->comp] +
                           (size_t)(bd->y0 + brow) * d->geom.comp[bd->comp].width + bd->x0 +
                           (size_t)col * bd->col_width;
            int pad = decode_data_line(&br, out, w, gl, gtli[b], h->fs, h->qpih == 1, h->fq);
            if (pad < 0)
                return FAILP(XSF_ERR_INVALID,
                             "byte %zu: precinct (%d,%d) packet %d band %d: data overrun Ldat=%u",
                             base, row, col, pi, b, ldat);
            padding[b - pk->first] = pad;
        }
        pos += ldat;

        if (h->fs) {
            xs_bits_init(&br, data + pos, lsgn);
            for (int b = pk->first; b < pk->last; b++) {
                const xs_band *bd = &g->band[b];
                if (xs_band_prec_height(bd, row) <= pk->line)
                    continue;
                const int w = xs_band_prec_width(g, bd, col);
                const size_t brow = (size_t)row * bd->lines + pk->line;
                int32_t *out = d->coef[bd->comp] +
                               (size_t)(bd->y0 + brow) * d->geom.comp[bd->comp].width + bd->x0 +
                               (size_t)col * bd->col_width;
                if (decode_sign_line(&br, out, w, padding[b - pk->first]) < 0)
                    return FAILP(
                        XSF_ERR_INVALID,
                        "byte %zu: precinct (%d,%d) packet %d band %d: signs overrun Lsgn=%u", base,
                        row, col, pi, b, lsgn);
            }
        }
        pos += lsgn;
    }
    *used = hb + lprc;
    return XSF_OK;
}
