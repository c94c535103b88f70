/* The depacketizer's slice mode (RFC 9134 4.3, K=1): the header segment and
 * the slices as packetization units, each whole or broken; and T=0 segments
 * (out-of-order sending), kept as they come and put in order when they end. */
#include "depack_internal.h"

/* 21122-1: slices of Hsl precincts of 2^NLy lines over Hf lines. */
static size_t header_slices(const xs_header *h)
{
    if (!h->hsl)
        return 0;
    const size_t rows = ((size_t)h->hf + ((size_t)1 << h->nly) - 1) >> h->nly;
    return (rows + h->hsl - 1) / h->hsl;
}

static int ooo_cmp(const void *x, const void *y)
{
    const ooo_entry *a = x, *b = y;
    if (a->unit != b->unit)
        return a->unit < b->unit ? -1 : 1; /* the header segment (-1) first */
    return a->p < b->p ? -1 : a->p > b->p;
}

/* T=0: puts the packets of the segment in order (header segment, then the
 * slices by index, each by P) from the staging buffer into d->asmb (from the
 * buffer source, when there is one: the one copy of this path), keeping the
 * units that are whole (P from 0 without a gap, L on the last packet only).
 * Lists the whole slices in d->slices; returns 1 when the whole segment is
 * there. SEP numbers slices modulo 2047 (RFC 9134 4.3): a T=0 segment of
 * more slices cannot be told apart and is not whole. */
int rtp_dp_ooo_gather(rtp_depacketizer *d, size_t *bytes, int *header_whole, size_t *nslices)
{
    assembly *a = &d->a;
    *bytes = 0;
    *header_whole = 0;
    *nslices = 0;
    const int r = rtp_dp_fbuf_reserve(d, &d->asmb, 0, a->bytes, d->cfg.acquire != NULL);
    if (r) {
        if (r == APPEND_NO_BUFFER)
            a->no_buffer = 1;
        return 0;
    }
    qsort(d->ooo_pk, a->npk, sizeof *d->ooo_pk, ooo_cmp);
    int all = !a->any_broken && a->last_slice >= 0;
    int32_t expect = -1; /* the unit that should come next for the segment to be whole */
    for (size_t i = 0; i < a->npk;) {
        const int32_t unit = d->ooo_pk[i].unit;
        size_t j = i;
        while (j < a->npk && d->ooo_pk[j].unit == unit)
            j++;
        int ok = 1;
        for (size_t k = i; k < j; k++)
            ok &= d->ooo_pk[k].p == k - i && d->ooo_pk[k].l == (k + 1 == j);
        all &= ok && unit == expect;
        expect = unit + 1;
        if (ok && (unit < 0 || (*header_whole && *nslices < d->cfg.max_slices))) {
            const size_t start = *bytes;
            for (size_t k = i; k < j; k++) {
                if (!d->ooo_pk[k].bytes)
                    continue;
                memcpy(d->asmb.data + *bytes, d->stage.data + d->ooo_pk[k].offset,
                       d->ooo_pk[k].bytes);
                *bytes += d->ooo_pk[k].bytes;
            }
            if (unit < 0) {
                *header_whole = 1;
            } else if (rtp_dp_add_slice(d, nslices, (uint32_t)unit, start, *bytes - start)) {
                *bytes = start;
                all = 0;
            }
        } else {
            all = 0;
        }
        i = j;
    }
    return all && expect == a->last_slice + 1 && a->ended;
}

/* Slice mode: the slice index of SEP counter `sep` (RFC 9134 4.3: the slice
 * index modulo 2047), taken as the one nearest the slice expected next: up to
 * 1023 ahead (slices lost whole) or behind. */
static uint32_t slice_index(const assembly *a, uint16_t sep)
{
    const uint32_t base = a->next_slice, ahead = (sep + 2047 - base % 2047) % 2047;
    if (ahead > 1023 && base >= 2047 - ahead)
        return base + ahead - 2047;
    return base + ahead;
}

/* Slice mode: the header segment is whole: its picture header says how many
 * slices follow, which sizes the slice table (up to max_slices). */
static void header_segment_done(rtp_depacketizer *d)
{
    assembly *a = &d->a;
    xs_header h;
    size_t cs_off;
    rtp_dp_make_copies(d);
    if (!rtp_dp_read_header(d, d->asmb.data, a->bytes, &h, &cs_off))
        return;    /* not a codestream header: the segment fails validation or stays partial */
    a->header = h; /* read from the whole header segment */
    a->has_header = 1;
    a->expected_slices = header_slices(&h);
    if (a->expected_slices > d->cfg.max_slices || rtp_dp_reserve_slices(d, a->expected_slices))
        a->too_many_slices = 1;
}

void rtp_dp_slice_packet(rtp_depacketizer *d, const rtp_jxs_header *h, const uint8_t *data,
                         size_t n)
{
    assembly *a = &d->a;
    const int id = h->sep == RTP_JXS_SEP_HEADER_SEGMENT ? UNIT_HEADER : (int)slice_index(a, h->sep);
    /* P counts modulo 2048 (RFC 9134 4.3): P = 0 after 2047 in the unit under
     * way, before its L, continues it. */
    const int p_wraps = id == a->unit && a->unit_next_p == 2048;
    if (h->p == 0 && !p_wraps) {
        if (a->unit != UNIT_NONE) { /* the unit under way lost its last packets */
            a->any_broken = 1;
            rtp_dp_cut_back(d, a->unit_start);
        }
        if (id >= 0 && (uint32_t)id != a->next_slice)
            a->any_broken = 1; /* whole slices in between were lost */
        a->unit = id;
        a->unit_broken = 0;
        a->unit_start = a->bytes;
        a->unit_next_p = 0;
    } else if (id != a->unit || h->p != (a->unit_next_p & 0x7ff)) {
        if (a->unit != UNIT_NONE && !a->unit_broken)
            rtp_dp_cut_back(d, a->unit_start);
        a->any_broken = 1;
        a->unit = id;
        a->unit_broken = 1;
        a->unit_start = a->bytes;
    }
    if (!a->unit_broken && rtp_dp_append(d, data, n)) {
        a->unit_broken = 1;
        a->any_broken = 1;
        rtp_dp_cut_back(d, a->unit_start);
    }
    a->unit_next_p = h->p + 1u;
    a->last_l = h->l;
    if (!h->l)
        return;
    if (!a->unit_broken) {
        if (id == UNIT_HEADER) {
            a->header_whole = a->nslices == 0;
            if (a->header_whole)
                header_segment_done(d);
        } else if (rtp_dp_add_slice(d, &a->nslices, (uint32_t)id, a->unit_start,
                                    a->bytes - a->unit_start)) {
            a->any_broken = 1;
        }
    }
    if (id >= 0)
        a->next_slice = (uint32_t)id + 1;
    a->unit = UNIT_NONE;
}

/* Slice mode, T=0: keeps the packet for ooo_gather. The segment may end
 * before its last packet comes only when every unit is whole by the counts:
 * L seen for the header segment and each slice up to the marker's, and as
 * many packets as those L packets' P counters say. */
void rtp_dp_ooo_packet(rtp_depacketizer *d, const rtp_jxs_header *h, int marker,
                       const uint8_t *data, size_t n)
{
    assembly *a = &d->a;
    if (!d->ooo_pk) {
        if (!(d->ooo_pk = malloc(sizeof *d->ooo_pk * OOO_MAX_PACKETS))) {
            a->any_broken = 1;
            return;
        }
        rtp_dp_account(d);
    }
    const size_t offset = a->bytes;
    if (a->npk == OOO_MAX_PACKETS || rtp_dp_append(d, data, n)) {
        a->any_broken = 1;
        return;
    }
    ooo_entry *e = &d->ooo_pk[a->npk++];
    e->unit = h->sep == RTP_JXS_SEP_HEADER_SEGMENT ? -1 : (int32_t)h->sep;
    e->p = h->p;
    e->l = h->l;
    e->bytes = (uint32_t)n;
    e->offset = offset;
    if (h->l) {
        a->units_ended++;
        a->p_sum += h->p + 1u;
    }
    if (marker && e->unit >= 0) {
        a->ended = 1;
        a->last_slice = e->unit;
    }
    if (a->ended && a->units_ended == (size_t)a->last_slice + 2 && a->p_sum == a->npk)
        rtp_dp_finish_segment(d);
}
