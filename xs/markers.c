/* Codestream header reader: SOC and the marker segments up to the first slice
 * header (21122-1 Annex A). Every length is checked before it is used. */
#include <string.h>

#include "xs_internal.h"
#include "xsf_colour.h"

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}
static uint32_t rd32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static const char *marker_name(uint16_t m)
{
    switch (m) {
    case XS_MARKER_SOC: return "SOC";
    case XS_MARKER_EOC: return "EOC";
    case XS_MARKER_PIH: return "PIH";
    case XS_MARKER_CDT: return "CDT";
    case XS_MARKER_WGT: return "WGT";
    case XS_MARKER_COM: return "COM";
    case XS_MARKER_NLT: return "NLT";
    case XS_MARKER_CWD: return "CWD";
    case XS_MARKER_CTS: return "CTS";
    case XS_MARKER_CRG: return "CRG";
    case XS_MARKER_SLH: return "SLH";
    case XS_MARKER_CAP: return "CAP";
    }
    return "unknown marker";
}

#define FAIL(st, off, mk, ...)                                                                     \
    do {                                                                                           \
        char why_[160];                                                                            \
        snprintf(why_, sizeof why_, __VA_ARGS__);                                                  \
        return xsf_error_set(err, st, "byte %zu: %s: %s", (size_t)(off), marker_name(mk), why_);   \
    } while (0)

#include <stdio.h>

static xsf_status parse_pih(xs_header *h, const uint8_t *p, size_t off, xsf_error *err)
{
    /* 21122-1 A.4.4, Table A.7: 26 bytes from the length field on. */
    h->lcod = rd32(p + 4);
    h->ppih = rd16(p + 8);
    h->plev = rd16(p + 10);
    h->wf = rd16(p + 12);
    h->hf = rd16(p + 14);
    h->cw = rd16(p + 16);
    h->hsl = rd16(p + 18);
    h->nc = p[20];
    h->ng = p[21];
    h->ss = p[22];
    h->bw = p[23];
    h->fq = p[24] >> 4;
    h->br = p[24] & 15;
    h->fslc = p[25] >> 7;
    h->ppoc = (p[25] >> 4) & 7;
    h->cpih = p[25] & 15;
    h->nlx = p[26] >> 4;
    h->nly = p[26] & 15;
    h->lh = p[27] >> 7;
    h->rl = (p[27] >> 6) & 1;
    h->qpih = (p[27] >> 4) & 3;
    h->fs = (p[27] >> 2) & 3;
    h->rm = p[27] & 3;
    const uint16_t M = XS_MARKER_PIH;
    if (h->wf == 0 || h->hf == 0)
        FAIL(XSF_ERR_INVALID, off, M, "picture size %ux%u is empty", h->wf, h->hf);
    if (h->nc == 0 || h->nc > XS_MAX_COMPONENTS)
        FAIL(XSF_ERR_INVALID, off, M, "Nc=%u components, expected 1..%d", h->nc, XS_MAX_COMPONENTS);
    if (h->hsl == 0)
        FAIL(XSF_ERR_INVALID, off, M, "slice height Hsl=0");
    if (h->ng != 4)
        FAIL(XSF_ERR_INVALID, off, M, "code group size Ng=%u, expected 4", h->ng);
    if (h->ss != 8)
        FAIL(XSF_ERR_INVALID, off, M, "significance group size Ss=%u, expected 8", h->ss);
    if (h->br != 4)
        FAIL(XSF_ERR_INVALID, off, M, "bitplane count bits Br=%u, expected 4", h->br);
    if (h->bw == 0 || h->bw > 20 || h->fq > 8 || h->fq >= h->bw)
        FAIL(XSF_ERR_UNSUPPORTED, off, M,
             "precision Bw=%u with Fq=%u fractional bits (supported: Bw<=20, Fq<=8)", h->bw, h->fq);
    if (h->fslc != 0)
        FAIL(XSF_ERR_UNSUPPORTED, off, M, "slice coding mode Fslc=%u", h->fslc);
    if (h->ppoc != 0)
        FAIL(XSF_ERR_UNSUPPORTED, off, M, "progression order Ppoc=%u", h->ppoc);
    if (h->cpih == 3)
        FAIL(XSF_ERR_UNSUPPORTED, off, M,
             "Star-Tetrix colour transform (Cpih=3) is not implemented");
    if (h->cpih != 0 && h->cpih != 1)
        FAIL(XSF_ERR_INVALID, off, M, "colour transform Cpih=%u", h->cpih);
    if (h->nlx < 1 || h->nlx > XS_MAX_NLX)
        FAIL(XSF_ERR_INVALID, off, M, "NLx=%u horizontal levels, expected 1..%d", h->nlx,
             XS_MAX_NLX);
    if (h->nly > XS_MAX_NLY || h->nly > h->nlx)
        FAIL(XSF_ERR_INVALID, off, M,
             "NLy=%u vertical levels with NLx=%u, expected 0..%d and <= NLx", h->nly, h->nlx,
             XS_MAX_NLY);
    if (h->qpih > 1)
        FAIL(XSF_ERR_INVALID, off, M, "quantizer type Qpih=%u", h->qpih);
    if (h->fs > 1)
        FAIL(XSF_ERR_INVALID, off, M, "sign handling Fs=%u", h->fs);
    if (h->rm > 1)
        FAIL(XSF_ERR_INVALID, off, M, "run mode Rm=%u", h->rm);
    return XSF_OK;
}

static xsf_status parse_cdt(xs_header *h, const uint8_t *p, uint16_t len, size_t off,
                            xsf_error *err)
{
    const uint16_t M = XS_MARKER_CDT;
    if (len != 2 + 2 * h->nc)
        FAIL(XSF_ERR_INVALID, off, M, "length %u, expected %u for %u components", len,
             2 + 2 * h->nc, h->nc);
    for (int c = 0; c < h->nc; c++) {
        h->depth[c] = p[4 + 2 * c];
        h->sx[c] = p[5 + 2 * c] >> 4;
        h->sy[c] = p[5 + 2 * c] & 15;
        if (h->depth[c] < 8 || h->depth[c] > 16)
            FAIL(XSF_ERR_UNSUPPORTED, off, M, "component %d bit depth %u (supported: 8..16)", c,
                 h->depth[c]);
        if (h->depth[c] > h->bw)
            FAIL(XSF_ERR_INVALID, off, M, "component %d bit depth %u exceeds Bw=%u", c, h->depth[c],
                 h->bw);
        if (h->sx[c] < 1 || h->sx[c] > 2 || h->sy[c] < 1 || h->sy[c] > 2)
            FAIL(XSF_ERR_UNSUPPORTED, off, M, "component %d sampling %ux%u (supported: 1 or 2)", c,
                 h->sx[c], h->sy[c]);
        if (h->wf % h->sx[c] || h->hf % h->sy[c])
            FAIL(XSF_ERR_UNSUPPORTED, off, M,
                 "picture %ux%u is not a multiple of component %d sampling %ux%u", h->wf, h->hf, c,
                 h->sx[c], h->sy[c]);
    }
    return XSF_OK;
}

static xsf_status parse_nlt(xs_header *h, const uint8_t *p, uint16_t len, size_t off,
                            xsf_error *err)
{
    const uint16_t M = XS_MARKER_NLT;
    if (len < 3)
        FAIL(XSF_ERR_INVALID, off, M, "length %u too short", len);
    h->tnlt = p[4];
    if (h->tnlt == 1) {
        if (len != 5)
            FAIL(XSF_ERR_INVALID, off, M, "length %u, expected 5 for the quadratic NLT", len);
        h->nlt_sigma = p[5] >> 7;
        h->nlt_alpha = (uint16_t)(rd16(p + 5) & 0x7fff);
    } else if (h->tnlt == 2) {
        if (len != 12)
            FAIL(XSF_ERR_INVALID, off, M, "length %u, expected 12 for the extended NLT", len);
        h->nlt_t1 = rd32(p + 5);
        h->nlt_t2 = rd32(p + 9);
        h->nlt_e = p[13];
        if (h->nlt_e < 1 || h->nlt_e >= h->bw || h->nlt_t1 >= h->nlt_t2 ||
            h->nlt_t2 > (1u << h->bw))
            FAIL(XSF_ERR_INVALID, off, M, "extended NLT parameters T1=%u T2=%u E=%u with Bw=%u",
                 h->nlt_t1, h->nlt_t2, h->nlt_e, h->bw);
    } else {
        FAIL(XSF_ERR_INVALID, off, M, "non-linearity type Tnlt=%u", h->tnlt);
    }
    return XSF_OK;
}

xsf_status xs_parse_header(const uint8_t *buf, size_t len, xs_header *h, xsf_error *err)
{
    memset(h, 0, sizeof *h);
    if (len < 2)
        return xsf_error_set(err, XSF_ERR_TRUNCATED,
                             "byte 0: codestream of %zu bytes has no SOC marker", len);
    if (rd16(buf) != XS_MARKER_SOC)
        return xsf_error_set(err, XSF_ERR_INVALID, "byte 0: expected SOC marker ff10, found %04x",
                             rd16(buf));
    size_t off = 2;
    unsigned seen = 0; /* bit per marker low byte, for duplicates */
    int wgt_len = -1;
    size_t wgt_off = 0, pih_off = 0;
    for (;;) {
        if (len - off < 2)
            return xsf_error_set(err, XSF_ERR_TRUNCATED,
                                 "byte %zu: codestream ends inside the headers", off);
        uint16_t m = rd16(buf + off);
        if (m == XS_MARKER_SLH)
            break;
        if (m == XS_MARKER_EOC)
            FAIL(XSF_ERR_INVALID, off, m, "end of codestream before any slice");
        if (m != XS_MARKER_CAP && m != XS_MARKER_PIH && m != XS_MARKER_CDT && m != XS_MARKER_WGT &&
            m != XS_MARKER_COM && m != XS_MARKER_NLT && m != XS_MARKER_CWD && m != XS_MARKER_CTS &&
            m != XS_MARKER_CRG)
            return xsf_error_set(err, XSF_ERR_INVALID,
                                 "byte %zu: expected a header marker, found %04x", off, m);
        if (len - off < 4)
            FAIL(XSF_ERR_TRUNCATED, off, m, "codestream ends inside the marker segment");
        uint16_t seglen = rd16(buf + off + 2);
        if (seglen < 2)
            FAIL(XSF_ERR_INVALID, off, m, "segment length %u", seglen);
        if (len - off - 2 < seglen)
            FAIL(XSF_ERR_TRUNCATED, off, m,
                 "segment of %u bytes runs past the end (%zu bytes left)", seglen, len - off - 2);
        const uint8_t *p = buf + off;
        unsigned bit = 1u << (m & 0x1f);
        if (m != XS_MARKER_COM && (seen & bit))
            FAIL(XSF_ERR_INVALID, off, m, "marker segment appears twice");
        /* 21122-1 A.2: CAP follows SOC, PIH follows CAP. */
        if (m == XS_MARKER_CAP && off != 2)
            FAIL(XSF_ERR_INVALID, off, m, "CAP must directly follow SOC");
        if (m != XS_MARKER_CAP && !(seen & (1u << (XS_MARKER_CAP & 0x1f))))
            FAIL(XSF_ERR_INVALID, off, m, "marker before the CAP segment");
        if (m != XS_MARKER_CAP && m != XS_MARKER_PIH && !(seen & (1u << (XS_MARKER_PIH & 0x1f))))
            FAIL(XSF_ERR_INVALID, off, m, "marker before the PIH segment");
        xsf_status st = XSF_OK;
        switch (m) {
        case XS_MARKER_CAP:
            if (seglen > 2 + 4)
                FAIL(XSF_ERR_UNSUPPORTED, off, m, "capabilities of %u bytes (at most 4 supported)",
                     seglen - 2);
            for (int i = 0; i < seglen - 2; i++)
                for (int k = 0; k < 8; k++)
                    if (p[4 + i] & (0x80 >> k))
                        h->cap_bits |= 1u << (8 * i + k);
            break;
        case XS_MARKER_PIH:
            if (seglen != 26)
                FAIL(XSF_ERR_INVALID, off, m, "length %u, expected 26", seglen);
            pih_off = off;
            st = parse_pih(h, p, off, err);
            break;
        case XS_MARKER_CDT: st = parse_cdt(h, p, seglen, off, err); break;
        case XS_MARKER_WGT:
            /* The number of bands is known only once CWD has been seen: checked below. */
            if (seglen & 1 || (seglen - 2) / 2 > XS_MAX_BANDS)
                FAIL(XSF_ERR_INVALID, off, m, "length %u is not a table of gain/priority pairs",
                     seglen);
            h->nbands = (seglen - 2) / 2;
            for (int b = 0; b < h->nbands; b++) {
                h->gain[b] = p[4 + 2 * b];
                h->priority[b] = p[5 + 2 * b];
            }
            wgt_len = seglen;
            wgt_off = off;
            break;
        case XS_MARKER_COM:
            if (seglen < 4)
                FAIL(XSF_ERR_INVALID, off, m, "length %u too short for Tcom", seglen);
            break;
        case XS_MARKER_NLT: st = parse_nlt(h, p, seglen, off, err); break;
        case XS_MARKER_CWD:
            if (seglen != 3)
                FAIL(XSF_ERR_INVALID, off, m, "length %u, expected 3", seglen);
            h->sd = p[4];
            if (h->sd >= h->nc)
                FAIL(XSF_ERR_INVALID, off, m, "Sd=%u components without decomposition of %u", h->sd,
                     h->nc);
            break;
        case XS_MARKER_CTS:
            if (seglen != 4)
                FAIL(XSF_ERR_INVALID, off, m, "length %u, expected 4", seglen);
            h->has_cts = 1;
            h->cts_cf = p[4] & 15;
            h->cts_e1 = p[5] >> 4;
            h->cts_e2 = p[5] & 15;
            break;
        case XS_MARKER_CRG:
            if (seglen != 2 + 4 * h->nc)
                FAIL(XSF_ERR_INVALID, off, m, "length %u, expected %u", seglen, 2 + 4 * h->nc);
            h->has_crg = 1;
            for (int c = 0; c < h->nc; c++) {
                h->crg_x[c] = rd16(p + 4 + 4 * c);
                h->crg_y[c] = rd16(p + 6 + 4 * c);
            }
            break;
        }
        if (st != XSF_OK)
            return st;
        seen |= bit;
        off += 2 + (size_t)seglen;
    }
    if (!(seen & (1u << (XS_MARKER_PIH & 0x1f))))
        FAIL(XSF_ERR_INVALID, off, XS_MARKER_SLH, "slice before the picture header PIH");
    if (!(seen & (1u << (XS_MARKER_CDT & 0x1f))))
        FAIL(XSF_ERR_INVALID, off, XS_MARKER_SLH, "slice before the component table CDT");
    if (!(seen & (1u << (XS_MARKER_WGT & 0x1f))))
        FAIL(XSF_ERR_INVALID, off, XS_MARKER_SLH, "slice before the weights table WGT");
    if (h->cpih == 1) {
        if (h->nc < 3)
            FAIL(XSF_ERR_INVALID, off, XS_MARKER_PIH, "RCT (Cpih=1) needs 3 components, found %u",
                 h->nc);
        for (int c = 1; c < 3; c++)
            if (h->sx[c] != h->sx[0] || h->sy[c] != h->sy[0] || h->depth[c] != h->depth[0])
                FAIL(XSF_ERR_INVALID, off, XS_MARKER_PIH,
                     "RCT (Cpih=1) needs equal sampling and depth in components 0..2");
    }
    h->header_bytes = off;
    /* The band count depends on CDT and CWD: check WGT against it now. The
     * geometry's checks concern PIH and CDT fields: name where PIH starts. */
    xs_geometry g;
    xsf_error gerr = {0};
    xsf_status st = xs_geometry_init(&g, h, &gerr);
    if (st != XSF_OK)
        return xsf_error_set(err, st, "byte %zu: PIH: %s", pih_off, gerr.msg);
    if (h->nbands != g.nbands)
        FAIL(XSF_ERR_INVALID, wgt_off, XS_MARKER_WGT,
             "length %d holds %d bands, the picture has %d", wgt_len, h->nbands, g.nbands);
    return XSF_OK;
}

void xs_header_colour(const xs_header *h, xsf_colour *colour)
{
    /* 21122-1 F.3, F.5: the inverse transform gives the components back
     * as R', G', B' (Star-Tetrix: the colour filter array's). */
    if (h->cpih == 1 || h->cpih == 3)
        xsf_colour_rgb(colour, XSF_COLOUR_CODESTREAM);
    else
        xsf_colour_default(colour);
}

const char *xs_profile_name(uint16_t ppih)
{
    /* 21122-2 Table A.7 (Ppih values). */
    switch (ppih) {
    case 0x0000: return "Unrestricted";
    case 0x1500: return "Light 422.10";
    case 0x1a00: return "Light 444.12";
    case 0x2500: return "Light-Subline 422.10";
    case 0x3240: return "Main 420.12";
    case 0x3540: return "Main 422.10";
    case 0x3a40: return "Main 444.12";
    case 0x3e40: return "Main 4444.12";
    case 0x4a40: return "High 444.12";
    case 0x4e40: return "High 4444.12";
    case 0x6ec0: return "MLS.12";
    case 0x9300: return "Light Bayer";
    case 0xb340: return "Main Bayer";
    case 0xc340: return "High Bayer";
    }
    return "unknown profile";
}

const char *xs_level_name(uint16_t plev)
{
    switch (plev >> 8) {
    case 0x00: return "Unrestricted";
    case 0x04: return "1k-1";
    case 0x10: return "2k-1";
    case 0x20: return "4k-1";
    case 0x24: return "4k-2";
    case 0x28: return "4k-3";
    case 0x30: return "8k-1";
    case 0x34: return "8k-2";
    case 0x38: return "8k-3";
    case 0x40: return "10k-1";
    }
    return "unknown level";
}

const char *xs_sublevel_name(uint16_t plev)
{
    switch (plev & 0xff) {
    case 0x00: return "Unrestricted";
    case 0x80: return "Full";
    case 0x10: return "Sublev12bpp";
    case 0x0c: return "Sublev9bpp";
    case 0x08: return "Sublev6bpp";
    case 0x06: return "Sublev4bpp";
    case 0x04: return "Sublev3bpp";
    case 0x03: return "Sublev2bpp";
    }
    return "unknown sublevel";
}
