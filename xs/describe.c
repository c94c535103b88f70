/* What a codestream's headers say, in words (xs.h, xs_header_describe):
 * the text `xsflow info` prints for a frame. Nothing is decoded. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "xs.h"

/* Text appended at buf + *used; *used counts what did not fit too (snprintf's rule). */
typedef struct text {
    char *buf;
    size_t cap, used;
} text;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const size_t at = t->used < t->cap ? t->used : t->cap;
    const int n = vsnprintf(t->buf ? t->buf + at : NULL, t->buf ? t->cap - at : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->used += (size_t)n;
}

static const char *cpih_name(unsigned cpih)
{
    switch (cpih) {
    case 0: return "no colour transform";
    case 1: return "reversible colour transform, RCT";
    case 3: return "Star-Tetrix";
    }
    return "reserved";
}

/* The components' sampling from their factors against component 0. */
static const char *sampling_name(const xs_header *h)
{
    const int n = h->nc;
    if (n < 1 || h->sx[0] != 1 || h->sy[0] != 1)
        return "other";
    if (n == 1)
        return "4:0:0";
    for (int c = 2; c < n; c++)
        if (h->sx[c] != h->sx[1] || h->sy[c] != h->sy[1])
            return "other";
    const int full = h->sx[1] == 1 && h->sy[1] == 1;
    if (n == 4)
        return full ? "4:4:4:4" : "other";
    if (n != 3)
        return "other";
    return full            ? "4:4:4"
           : h->sx[1] != 2 ? "other"
           : h->sy[1] == 1 ? "4:2:2"
           : h->sy[1] == 2 ? "4:2:0"
                           : "other";
}

static void describe_picture(text *t, const xs_header *h, const char *warning)
{
    int depth_same = 1;
    for (int c = 0; c < h->nc; c++)
        depth_same &= h->depth[c] == h->depth[0];
    put(t, "  picture       %ux%u, %u component%s, %s, ", h->wf, h->hf, h->nc,
        h->nc == 1 ? "" : "s", sampling_name(h));
    if (depth_same)
        put(t, "%u bits\n", h->depth[0]);
    else
        put(t, "bits per component differ\n");
    put(t, "  components   ");
    for (int c = 0; c < h->nc; c++)
        put(t, " %d: %ux%u %u bits (sx %u, sy %u)%s", c, h->wf / h->sx[c], h->hf / h->sy[c],
            h->depth[c], h->sx[c], h->sy[c], c + 1 < h->nc ? ";" : "\n");
    put(t, "  profile       %s (Ppih 0x%04x), level %s, sublevel %s (Plev 0x%04x)\n",
        xs_profile_name(h->ppih), h->ppih, xs_level_name(h->plev), xs_sublevel_name(h->plev),
        h->plev);
    if (warning)
        put(t, "  warning       %s\n", warning);
}

static void describe_structure(text *t, const xs_header *h)
{
    /* 21122-1: slices of Hsl rows of precincts 2^NLy lines high. */
    const size_t rows = ((size_t)h->hf + (1u << h->nly) - 1) >> h->nly;
    const size_t nslices = h->hsl ? (rows + h->hsl - 1) / h->hsl : 0;
    if (h->lcod)
        put(t, "  size          Lcod %u bytes, ", h->lcod);
    else
        put(t, "  size          Lcod 0 (not signalled), ");
    put(t, "headers %zu bytes\n", h->header_bytes);
    put(t, "  slices        %zu, %u precinct row%s each (Hsl)\n", nslices, h->hsl,
        h->hsl == 1 ? "" : "s");
    put(t, "  precincts     %u lines high (2^NLy), ", 1u << h->nly);
    if (h->cw)
        put(t, "%lu samples wide (Cw %u)\n", (unsigned long)h->cw * 8ul << h->nlx, h->cw);
    else
        put(t, "the full width (Cw 0)\n");
    put(t,
        "  wavelet       NLx %u horizontal, NLy %u vertical levels; %u component%s without "
        "decomposition (CWD Sd)\n",
        h->nlx, h->nly, h->sd, h->sd == 1 ? "" : "s");
    put(t, "  coefficients  Bw %u bits, Fq %u fractional, Br %u, Ng %u, Ss %u\n", h->bw, h->fq,
        h->br, h->ng, h->ss);
    put(t, "  coding tools  Fs %u (%s), Rm %u (runs of %s), Qpih %u (%s quantizer),\n", h->fs,
        h->fs ? "sign packing" : "signs inline", h->rm,
        h->rm ? "zero coefficients" : "zero prediction residuals", h->qpih,
        h->qpih ? "uniform" : "deadzone");
    put(t, "                Lh %u (%s), Rl %u (raw mode %s), Fslc %u, Ppoc %u\n", h->lh,
        h->lh ? "long headers" : "long headers only for wide pictures", h->rl,
        h->rl ? "selected per packet" : "not selectable", h->fslc, h->ppoc);
}

static void describe_colour(text *t, const xs_header *h, int verbose)
{
    put(t, "  colour        Cpih %u (%s)\n", h->cpih, cpih_name(h->cpih));
    if (h->tnlt == 1)
        put(t, "  NLT           quadratic, sigma %u, alpha %u\n", h->nlt_sigma, h->nlt_alpha);
    else if (h->tnlt == 2)
        put(t, "  NLT           extended, T1 %u, T2 %u, E %u\n", h->nlt_t1, h->nlt_t2, h->nlt_e);
    else
        put(t, "  NLT           none (linear output)\n");
    if (h->has_cts)
        put(t, "  CTS           Cf %u, e1 %u, e2 %u\n", h->cts_cf, h->cts_e1, h->cts_e2);
    if (h->has_crg) {
        put(t, "  CRG          ");
        for (int c = 0; c < h->nc; c++)
            put(t, " %d: (%u, %u)%s", c, h->crg_x[c], h->crg_y[c], c + 1 < h->nc ? ";" : "\n");
    }
    put(t, "  CAP           0x%08x", h->cap_bits);
    if (!h->cap_bits) {
        put(t, " (no optional capability)\n");
    } else {
        put(t, " (bits set:");
        for (int i = 0; i < 32; i++)
            if (h->cap_bits & (1u << i))
                put(t, " cap[%d]", i);
        put(t, ")\n");
    }
    if (verbose) {
        put(t, "  weights       %d bands, gain/priority:", h->nbands);
        for (int b = 0; b < h->nbands; b++)
            put(t, "%s%u/%u", b % 12 ? " " : "\n                ", h->gain[b], h->priority[b]);
        put(t, "\n");
    }
}

size_t xs_header_describe(const xs_header *h, int verbose, const char *warning, char *buf,
                          size_t cap)
{
    text t = {buf, buf ? cap : 0, 0};
    if (t.buf && t.cap)
        t.buf[0] = '\0';
    describe_picture(&t, h, warning);
    describe_structure(&t, h);
    describe_colour(&t, h, verbose);
    return t.used;
}

int xs_header_same(const xs_header *a, const xs_header *b)
{
    xs_header x = *a, y = *b;
    x.lcod = y.lcod = 0;
    x.header_bytes = y.header_bytes = 0;
    return !memcmp(&x, &y, sizeof x);
}
