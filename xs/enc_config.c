/* Encoder configuration: defaults, the header a configuration leads to, and
 * its checks. The header is validated by serializing it and reading it back
 * with the decoder's own parser, so the encoder cannot configure what the
 * decoder would refuse. */
#include <string.h>

#include "enc_internal.h"
#include "enc_tune.h"

void xs_encoder_config_init(xs_encoder_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->rate_control = XS_RC_SLICE;
    cfg->nlx = 5;
    cfg->nly = 2;
    cfg->bw = 20;
    cfg->fq = 8;
    cfg->fs = 1;
    cfg->gcli_modes = XS_GCLI_ALL;
    cfg->slice_lines = 16;
    cfg->plev = -1;
}

xsf_status xs_encoder_config_format(xs_encoder_config *cfg, const char *sampling, int width,
                                    int height, int depth)
{
    static const struct {
        const char *name, *colon;
        int nc, sx, sy;
    } table[] = {
        {"400", "4:0:0", 1, 1, 1}, {"420", "4:2:0", 3, 2, 2},    {"422", "4:2:2", 3, 2, 1},
        {"444", "4:4:4", 3, 1, 1}, {"4444", "4:4:4:4", 4, 1, 1},
    };
    if (!cfg || !sampling)
        return XSF_ERR_ARG;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(sampling, table[i].name) && strcmp(sampling, table[i].colon))
            continue;
        cfg->width = width;
        cfg->height = height;
        cfg->nc = table[i].nc;
        for (int c = 0; c < cfg->nc; c++) {
            cfg->depth[c] = depth;
            cfg->sx[c] = (c == 1 || c == 2) ? table[i].sx : 1;
            cfg->sy[c] = (c == 1 || c == 2) ? table[i].sy : 1;
        }
        return XSF_OK;
    }
    return XSF_ERR_ARG;
}

/* The configuration's effective values where lossless coding overrides them. */
static void effective(const xs_encoder_config *cfg, xs_encoder_config *e)
{
    *e = *cfg;
    if (!e->lossless)
        return;
    int bw = 0;
    for (int c = 0; c < e->nc && c < XS_MAX_COMPONENTS; c++)
        bw = e->depth[c] > bw ? e->depth[c] : bw;
    e->bw = bw;
    e->fq = 0;
    e->rate_control = XS_RC_FIXED;
    e->q = 0;
    e->r = 0;
}

xsf_status enc_make_header(const xs_encoder_config *cfg_in, xs_header *h, xsf_error *err)
{
    xs_encoder_config c;
    effective(cfg_in, &c);
    memset(h, 0, sizeof *h);
    if (c.width < 1 || c.width > 65535 || c.height < 1 || c.height > 65535)
        return xsf_error_set(err, XSF_ERR_ARG, "picture %dx%d: width and height must be 1..65535",
                             c.width, c.height);
    if (c.nc < 1 || c.nc > XS_MAX_COMPONENTS)
        return xsf_error_set(err, XSF_ERR_ARG, "%d components, expected 1..%d", c.nc,
                             XS_MAX_COMPONENTS);
    for (int i = 0; i < c.nc; i++) {
        if (c.depth[i] < 8 || c.depth[i] > 16)
            return xsf_error_set(err, XSF_ERR_ARG, "component %d depth %d, expected 8..16", i,
                                 c.depth[i]);
        if (c.sx[i] < 1 || c.sx[i] > 2 || c.sy[i] < 1 || c.sy[i] > 2)
            return xsf_error_set(err, XSF_ERR_ARG, "component %d sampling %dx%d, expected 1 or 2",
                                 i, c.sx[i], c.sy[i]);
    }
    if (c.bw < 8 || c.bw > 20 || c.fq < 0 || c.fq > 8 || c.fq >= c.bw)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "Bw=%d with Fq=%d: expected Bw 8..20, Fq 0..8 below Bw", c.bw, c.fq);
    if (c.nlx < 1 || c.nlx > XS_MAX_NLX || c.nly < 0 || c.nly > XS_MAX_NLY || c.nly > c.nlx)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "NLx=%d NLy=%d: expected NLx 1..%d, NLy 0..%d and NLy <= NLx", c.nlx,
                             c.nly, XS_MAX_NLX, XS_MAX_NLY);
    if (c.qpih < 0 || c.qpih > 1 || c.fs < 0 || c.fs > 1 || c.rm < 0 || c.rm > 1)
        return xsf_error_set(err, XSF_ERR_ARG, "Qpih=%d Fs=%d Rm=%d: each must be 0 or 1", c.qpih,
                             c.fs, c.rm);
    if (c.cpih != 0 && c.cpih != 1)
        return xsf_error_set(err, XSF_ERR_ARG, "colour transform Cpih=%d (0 none, 1 RCT)", c.cpih);
    if (c.sd < 0 || c.sd >= c.nc)
        return xsf_error_set(err, XSF_ERR_ARG, "Sd=%d components without decomposition of %d", c.sd,
                             c.nc);
    if (c.cpih == 1 && c.sd > c.nc - 3)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "the RCT needs components 0..2 transformed (Sd=%d of %d)", c.sd, c.nc);
    const int lines = c.slice_lines ? c.slice_lines : 16;
    if (lines < (1 << c.nly) || lines % (1 << c.nly) || (lines >> c.nly) > 65535)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "slice height %d lines: expected a multiple of 2^NLy = %d", lines,
                             1 << c.nly);
    if (c.cw < 0 || c.cw > 65535)
        return xsf_error_set(err, XSF_ERR_ARG, "precinct width Cw=%d, expected 0..65535", c.cw);
    if (c.rate_control == XS_RC_FIXED) {
        if (c.q < 0 || c.q > 255 || c.r < 0 || c.r > 255)
            return xsf_error_set(err, XSF_ERR_ARG, "Q=%d R=%d, expected 0..255", c.q, c.r);
    } else if (c.rate_control == XS_RC_SLICE || c.rate_control == XS_RC_PRECINCT) {
        if (!c.target_bytes && !(c.bpp > 0 && c.bpp <= 64))
            return xsf_error_set(err, XSF_ERR_ARG,
                                 "target of %g bits per pixel, expected more than 0 and at most 64",
                                 c.bpp);
    } else {
        return xsf_error_set(err, XSF_ERR_ARG, "rate control mode %d", (int)c.rate_control);
    }
    if (c.tnlt < 0 || c.tnlt > 2)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "non-linearity type %d (0 none, 1 quadratic, 2 extended)", c.tnlt);
    if (c.tnlt == 1 && (c.nlt_sigma < 0 || c.nlt_sigma > 1 || c.nlt_alpha > 32767))
        return xsf_error_set(err, XSF_ERR_ARG,
                             "quadratic NLT sigma=%d alpha=%u: expected 0..1 and 0..32767",
                             c.nlt_sigma, c.nlt_alpha);
    if (c.tnlt && c.lossless)
        return xsf_error_set(err, XSF_ERR_ARG, "lossless coding has no non-linearity");
    if ((c.gcli_modes & ~(unsigned)XS_GCLI_ALL) || !c.gcli_modes)
        return xsf_error_set(err, XSF_ERR_ARG, "coding mode mask 0x%x", c.gcli_modes);

    h->wf = (uint16_t)c.width;
    h->hf = (uint16_t)c.height;
    h->nc = (uint8_t)c.nc;
    h->cw = (uint16_t)c.cw;
    h->hsl = (uint16_t)(lines >> c.nly);
    h->ng = 4;
    h->ss = 8;
    h->bw = (uint8_t)c.bw;
    h->fq = (uint8_t)c.fq;
    h->br = 4;
    h->cpih = (uint8_t)c.cpih;
    h->nlx = (uint8_t)c.nlx;
    h->nly = (uint8_t)c.nly;
    h->lh = (uint8_t)(c.long_headers || (size_t)c.width * c.nc >= 32752);
    h->rl = (uint8_t)((c.gcli_modes & XS_GCLI_RAW) != 0);
    h->qpih = (uint8_t)c.qpih;
    h->fs = (uint8_t)c.fs;
    h->rm = (uint8_t)c.rm;
    h->ppih = c.ppih;
    h->plev = c.plev > 0 ? (uint16_t)c.plev : 0;
    for (int i = 0; i < c.nc; i++) {
        h->depth[i] = (uint8_t)c.depth[i];
        h->sx[i] = (uint8_t)c.sx[i];
        h->sy[i] = (uint8_t)c.sy[i];
    }
    h->sd = (uint8_t)c.sd;
    h->tnlt = (uint8_t)c.tnlt;
    h->nlt_sigma = (uint8_t)c.nlt_sigma;
    h->nlt_alpha = (uint16_t)c.nlt_alpha;
    h->nlt_t1 = c.nlt_t1;
    h->nlt_t2 = c.nlt_t2;
    h->nlt_e = (uint8_t)c.nlt_e;
    /* Capabilities (21122-1 A.4.3): cap[2] quadratic NLT, cap[3] extended NLT,
     * cap[4] vertical subsampling, cap[5] CWD, cap[6] lossless, cap[8] Rl. */
    int vsub = 0;
    for (int i = 0; i < c.nc; i++)
        vsub |= c.sy[i] > 1;
    h->cap_bits = (c.tnlt == 1 ? 1u << 2 : 0) | (c.tnlt == 2 ? 1u << 3 : 0) | (vsub ? 1u << 4 : 0) |
                  (c.sd ? 1u << 5 : 0) | (c.lossless ? 1u << 6 : 0) | (h->rl ? 1u << 8 : 0);

    /* Band count from the geometry, then the weights. */
    xs_geometry g;
    h->nbands = 0;
    xsf_status st = xs_geometry_init(&g, h, err);
    if (st != XSF_OK)
        return st;
    h->nbands = g.nbands;
    if (c.nbands) {
        if (c.nbands != g.nbands)
            return xsf_error_set(err, XSF_ERR_ARG,
                                 "%d gains and priorities given, the picture has %d bands",
                                 c.nbands, g.nbands);
        for (int b = 0; b < g.nbands; b++) {
            if (c.gain[b] > 15)
                return xsf_error_set(err, XSF_ERR_ARG, "gain %u of band %d, expected 0..15",
                                     c.gain[b], b);
            h->gain[b] = c.gain[b];
            h->priority[b] = c.priority[b];
        }
    } else {
        st = enc_tune_weights(h, c.tune, h->gain, h->priority, err);
        if (st != XSF_OK)
            return st;
    }

    /* Read back what would be written: the decoder's checks apply. */
    uint8_t buf[ENC_MAX_HEADER_BYTES + 2];
    size_t n = enc_write_header(h, buf, sizeof buf - 2);
    if (!n)
        return xsf_error_set(err, XSF_ERR_ARG, "header does not fit in %d bytes",
                             ENC_MAX_HEADER_BYTES);
    buf[n] = 0xff;
    buf[n + 1] = 0x20;
    xs_header back;
    st = xs_parse_header(buf, n + 2, &back, err);
    if (st != XSF_OK)
        return st == XSF_ERR_UNSUPPORTED ? st : XSF_ERR_ARG;
    h->header_bytes = n;
    return XSF_OK;
}

xsf_status xs_encoder_config_header(const xs_encoder_config *cfg, xs_header *hdr, xsf_error *err)
{
    enc_plan plan;
    xsf_status st = enc_plan_init(&plan, cfg, err);
    if (st == XSF_OK)
        *hdr = plan.hdr;
    enc_plan_free(&plan);
    return st;
}

/* ---- 21122-2 profiles and levels ----
 *
 * The constraints of Light 422.10, Main 422.10, Main 444.12 and High 444.12
 * that the encoder checks (21122-2 Tables A.1 to A.3 as we read them; the
 * buffer model of its Annex B is not checked): Bw=20, Fq=8, no NLT, no CWD,
 * not lossless, a target rate; NLx 1..5; NLy at most 1 (Light, Main) or 2
 * (High); slices of 16 lines; one precinct column (Cw=0) unless NLy=0
 * (Light: always one); Light: deadzone quantization; the formats and depths
 * in the profile's name (4:0:0 always allowed), RCT only on 4:4:4. Level
 * and sublevel: xs/levels.c. */
typedef struct profile_rule {
    uint16_t ppih;
    const char *name;
    int max_depth, allow_444, max_nly, light;
} profile_rule;

static const profile_rule profiles[] = {
    {XS_PPIH_LIGHT_422_10, "Light 422.10", 10, 0, 1, 1},
    {XS_PPIH_MAIN_422_10, "Main 422.10", 10, 0, 1, 0},
    {XS_PPIH_MAIN_444_12, "Main 444.12", 12, 1, 1, 0},
    {XS_PPIH_HIGH_444_12, "High 444.12", 12, 1, 2, 0},
};

#define PFAIL(...) xsf_error_set(err, XSF_ERR_ARG, __VA_ARGS__)

xsf_status enc_check_profile(const xs_encoder_config *cfg, xs_header *h, size_t codestream_bytes,
                             xsf_error *err)
{
    if (h->ppih == XS_PPIH_UNRESTRICTED) {
        h->plev = cfg->plev > 0 ? (uint16_t)cfg->plev : 0;
        return XSF_OK;
    }
    const profile_rule *pr = NULL;
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
        if (profiles[i].ppih == h->ppih)
            pr = &profiles[i];
    if (!pr)
        return PFAIL("profile Ppih=0x%04x is not one the encoder can check", h->ppih);
    const char *n = pr->name;
    if (h->bw != 20 || h->fq != 8)
        return PFAIL("%s needs Bw=20 and Fq=8, configured Bw=%u Fq=%u", n, h->bw, h->fq);
    if (h->tnlt || h->sd || cfg->lossless)
        return PFAIL("%s allows no non-linearity (NLT), no CWD and no lossless coding", n);
    if (cfg->rate_control == XS_RC_FIXED)
        return PFAIL("%s needs a target rate (the sublevel bounds the codestream size)", n);
    if (h->nlx < 1 || h->nlx > 5 || h->nly > pr->max_nly)
        return PFAIL("%s allows NLx 1..5 and NLy 0..%d, configured NLx=%u NLy=%u", n, pr->max_nly,
                     h->nlx, h->nly);
    if (((unsigned)h->hsl << h->nly) != 16)
        return PFAIL("%s needs slices of 16 lines, configured %u", n, (unsigned)h->hsl << h->nly);
    if (h->cw && (pr->light || h->nly))
        return PFAIL("%s allows precinct columns (Cw=%u) only %s", n, h->cw,
                     pr->light ? "of the full width" : "without vertical decomposition");
    if (pr->light && h->qpih)
        return PFAIL("%s allows deadzone quantization only", n);
    /* Formats: 4:0:0, 4:2:2 and (444 profiles) 4:4:4, one depth. */
    int is400 = h->nc == 1, is422 = 0, is444 = 0;
    if (h->nc == 3) {
        is422 = h->sx[0] == 1 && h->sx[1] == 2 && h->sx[2] == 2;
        is444 = h->sx[0] == 1 && h->sx[1] == 1 && h->sx[2] == 1;
        for (int c = 0; c < 3; c++)
            if (h->sy[c] != 1)
                is422 = is444 = 0;
    }
    if (!(is400 || is422 || (is444 && pr->allow_444)))
        return PFAIL("%s allows 4:0:0, 4:2:2%s only", n, pr->allow_444 ? " and 4:4:4" : "");
    for (int c = 0; c < h->nc; c++)
        if (h->depth[c] != h->depth[0] || h->depth[c] > pr->max_depth ||
            (h->depth[c] != 8 && h->depth[c] != 10 && h->depth[c] != 12))
            return PFAIL("%s allows depths 8, 10%s (one for all components), component %d has %u",
                         n, pr->max_depth == 12 ? " and 12" : "", c, h->depth[c]);
    if (h->cpih && !is444)
        return PFAIL("%s allows the RCT on 4:4:4 only", n);

    /* Level and sublevel (xs/levels.c): the sublevel's rate is taken over
     * this picture's own samples, as the reference model checks it. */
    if (cfg->plev >= 0) {
        xsf_error perr;
        xsf_error_clear(&perr);
        if (xs_plev_check(h->ppih, (uint16_t)cfg->plev, h->wf, h->hf, h->cpih, codestream_bytes,
                          &perr) != XSF_OK)
            return PFAIL("%s", perr.msg);
        h->plev = (uint16_t)cfg->plev;
        return XSF_OK;
    }
    return xs_plev_derive(h->ppih, h->wf, h->hf, h->cpih, codestream_bytes, &h->plev, err);
    return XSF_OK;
}
