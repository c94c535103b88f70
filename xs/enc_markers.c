/* Writes the codestream headers (21122-1 Annex A): SOC, CAP, PIH, CDT, WGT,
 * then NLT and CWD where the header has them. The byte layouts mirror what
 * markers.c reads. */
#include "enc_internal.h"

typedef struct hdr_writer {
    uint8_t *p;
    size_t len, cap;
} hdr_writer;

static void put8(hdr_writer *w, unsigned v)
{
    if (w->len < w->cap)
        w->p[w->len] = (uint8_t)v;
    w->len++;
}
static void put16(hdr_writer *w, unsigned v)
{
    put8(w, v >> 8);
    put8(w, v & 0xff);
}
static void put32(hdr_writer *w, uint32_t v)
{
    put16(w, v >> 16);
    put16(w, v & 0xffff);
}

size_t enc_write_header(const xs_header *h, uint8_t *out, size_t cap)
{
    hdr_writer w = {out, 0, cap};
    put16(&w, XS_MARKER_SOC);
    /* CAP (A.4.3): as many bytes as the highest capability bit needs. */
    int top = -1;
    for (int i = 0; i < 32; i++)
        if (h->cap_bits & (1u << i))
            top = i;
    const int cap_bytes = (top + 8) / 8;
    put16(&w, XS_MARKER_CAP);
    put16(&w, 2 + (unsigned)cap_bytes);
    for (int i = 0; i < cap_bytes; i++) {
        unsigned byte = 0;
        for (int k = 0; k < 8; k++)
            if (h->cap_bits & (1u << (8 * i + k)))
                byte |= 0x80u >> k;
        put8(&w, byte);
    }
    /* PIH (A.4.4, Table A.7). */
    put16(&w, XS_MARKER_PIH);
    put16(&w, 26);
    put32(&w, h->lcod);
    put16(&w, h->ppih);
    put16(&w, h->plev);
    put16(&w, h->wf);
    put16(&w, h->hf);
    put16(&w, h->cw);
    put16(&w, h->hsl);
    put8(&w, h->nc);
    put8(&w, h->ng);
    put8(&w, h->ss);
    put8(&w, h->bw);
    put8(&w, (unsigned)h->fq << 4 | h->br);
    put8(&w, (unsigned)h->fslc << 7 | (unsigned)h->ppoc << 4 | h->cpih);
    put8(&w, (unsigned)h->nlx << 4 | h->nly);
    put8(&w, (unsigned)h->lh << 7 | (unsigned)h->rl << 6 | (unsigned)h->qpih << 4 |
                 (unsigned)h->fs << 2 | h->rm);
    /* CDT (A.4.5). */
    put16(&w, XS_MARKER_CDT);
    put16(&w, 2 + 2u * h->nc);
    for (int c = 0; c < h->nc; c++) {
        put8(&w, h->depth[c]);
        put8(&w, (unsigned)h->sx[c] << 4 | h->sy[c]);
    }
    /* WGT (A.4.6), band order. */
    put16(&w, XS_MARKER_WGT);
    put16(&w, 2 + 2u * (unsigned)h->nbands);
    for (int b = 0; b < h->nbands; b++) {
        put8(&w, h->gain[b]);
        put8(&w, h->priority[b]);
    }
    /* NLT (A.4.8). */
    if (h->tnlt == 1) {
        put16(&w, XS_MARKER_NLT);
        put16(&w, 5);
        put8(&w, 1);
        put16(&w, (unsigned)h->nlt_sigma << 15 | h->nlt_alpha);
    } else if (h->tnlt == 2) {
        put16(&w, XS_MARKER_NLT);
        put16(&w, 12);
        put8(&w, 2);
        put32(&w, h->nlt_t1);
        put32(&w, h->nlt_t2);
        put8(&w, h->nlt_e);
    }
    /* CWD (A.4.9). */
    if (h->sd) {
        put16(&w, XS_MARKER_CWD);
        put16(&w, 3);
        put8(&w, h->sd);
    }
    return w.len <= cap ? w.len : 0;
}
