/* The BPC-PaCo codestream (FORMAT.md): main header, code-block index, data.
 * The reader is a bounded parser: every length is checked against what
 * remains before it is used, and every error names the byte it found. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bpc_internal.h"

#define FIXED_HEADER 36
#define COMPONENT_BYTES 12

size_t bpc_header_size(int nc, int levels)
{
    return FIXED_HEADER + (size_t)COMPONENT_BYTES * nc + 4 * (size_t)nc * (3 * levels + 1);
}

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
static uint32_t get16(const uint8_t *p)
{
    return (uint32_t)p[0] << 8 | p[1];
}
static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

void bpc_write_header(const bpc_layout *lay, size_t index_bytes, size_t data_bytes, uint8_t *out)
{
    const size_t h = bpc_header_size(lay->nc, lay->levels);
    memset(out, 0, h);
    memcpy(out, bpc_magic, BPC_MAGIC_BYTES);
    out[8] = BPC_VERSION_MAJOR;
    out[9] = BPC_VERSION_MINOR;
    put16(out + 10, (uint32_t)h);
    put32(out + 12, (uint32_t)(h + index_bytes + data_bytes));
    put32(out + 16, (uint32_t)index_bytes);
    out[20] = (uint8_t)lay->nc;
    out[21] = (uint8_t)lay->variant;
    out[22] = (uint8_t)lay->filter;
    out[23] = (uint8_t)lay->levels;
    out[24] = (uint8_t)lay->colour;
    out[25] = (uint8_t)(int8_t)lay->table_plane_offset;
    put32(out + 28, lay->tables_id);
    put32(out + 32, float_bits(lay->qstep));
    uint8_t *p = out + FIXED_HEADER;
    for (int c = 0; c < lay->nc; c++, p += COMPONENT_BYTES) {
        put32(p, (uint32_t)lay->width[c]);
        put32(p + 4, (uint32_t)lay->height[c]);
        p[8] = (uint8_t)lay->depth[c];
    }
    for (int c = 0; c < lay->nc; c++)
        for (int b = 0; b < lay->comp[c].nbands; b++, p += 4)
            put32(p, float_bits(lay->comp[c].band[b].step));
}

xsf_status bpc_codestream_size(const bpc_layout *lay, size_t index_bytes, size_t data_bytes,
                               size_t cap, size_t *total, xsf_error *err)
{
    *total = lay->header_bytes + index_bytes + data_bytes;
    if (*total > UINT32_MAX) /* the header's codestream length is 32 bits */
        return xsf_error_set(err, XSF_ERR_ARG, "codestream of %zu bytes exceeds 4 GiB", *total);
    if (*total > cap)
        return xsf_error_set(err, XSF_ERR_ARG, "codestream needs %zu bytes, the buffer has %zu",
                             *total, cap);
    return XSF_OK;
}

int bpc_detect(const uint8_t *buf, size_t len)
{
    return len >= BPC_MAGIC_BYTES && !memcmp(buf, bpc_magic, BPC_MAGIC_BYTES);
}

/* The main header at buf into *info (steps included; not the code-block
 * count), every field validated and the stated lengths checked against len. */
static xsf_status read_main_header(const uint8_t *buf, size_t len, bpc_info *info, xsf_error *err)
{
    memset(info, 0, sizeof *info);
    if (len < BPC_MAGIC_BYTES)
        return xsf_error_set(err, XSF_ERR_TRUNCATED,
                             "%zu bytes: a BPC-PaCo codestream starts with 8 signature bytes", len);
    if (!bpc_detect(buf, len))
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "byte 0: no BPC-PaCo signature (89 42 50 43 0d 0a 1a 0a)");
    if (len < FIXED_HEADER)
        return xsf_error_set(err, XSF_ERR_TRUNCATED, "header cut at byte %zu of %d", len,
                             FIXED_HEADER);
    if (buf[8] != BPC_VERSION_MAJOR)
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                             "byte 8: codestream version %u.%u, this decoder reads %d.x", buf[8],
                             buf[9], BPC_VERSION_MAJOR);
    const size_t h = get16(buf + 10), total = get32(buf + 12), ib = get32(buf + 16);
    const int nc = buf[20], variant = buf[21], filter = buf[22], levels = buf[23], colour = buf[24];
    if (nc < 1 || nc > BPC_MAX_COMPONENTS)
        return xsf_error_set(err, XSF_ERR_INVALID, "byte 20: %d components, expected 1..%d", nc,
                             BPC_MAX_COMPONENTS);
    if (variant < 1 || variant > 3)
        return xsf_error_set(err, XSF_ERR_INVALID, "byte 21: variant %d, expected 1, 2 or 3 passes",
                             variant);
    if (filter > 1)
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "byte 22: filter %d, expected 0 (5/3) or 1 (9/7)", filter);
    if (levels > BPC_MAX_LEVELS)
        return xsf_error_set(err, XSF_ERR_INVALID, "byte 23: %d levels, expected 0..%d", levels,
                             BPC_MAX_LEVELS);
    if (colour > 2)
        return xsf_error_set(err, XSF_ERR_INVALID, "byte 24: colour transform %d, expected 0..2",
                             colour);
    const size_t need = bpc_header_size(nc, levels);
    if (h < need || (buf[9] == BPC_VERSION_MINOR && h != need))
        return xsf_error_set(err, XSF_ERR_INVALID, "byte 10: header of %zu bytes, expected %zu", h,
                             need);
    if (total < h || total - h < ib)
        return xsf_error_set(
            err, XSF_ERR_INVALID,
            "byte 12: codestream of %zu bytes cannot hold its %zu header and %zu index bytes",
            total, h, ib);
    if (len < total)
        return xsf_error_set(err, XSF_ERR_TRUNCATED, "codestream of %zu bytes cut at byte %zu",
                             total, len);
    info->version_major = buf[8];
    info->version_minor = buf[9];
    info->header_bytes = h;
    info->index_bytes = ib;
    info->data_bytes = total - h - ib;
    info->codestream_bytes = total;
    info->nc = nc;
    info->variant = (bpc_variant)variant;
    info->filter = (bpc_filter)filter;
    info->levels = levels;
    info->colour = (bpc_colour)colour;
    info->table_plane_offset = (int8_t)buf[25];
    info->tables_id = get32(buf + 28);
    info->qstep = bits_float(get32(buf + 32));
    size_t samples = 0;
    const uint8_t *p = buf + FIXED_HEADER;
    for (int c = 0; c < nc; c++, p += COMPONENT_BYTES) {
        const size_t off = (size_t)(p - buf);
        const uint32_t w = get32(p), hh = get32(p + 4);
        if (w < 1 || hh < 1 || w > BPC_MAX_DIMENSION || hh > BPC_MAX_DIMENSION)
            return xsf_error_set(err, XSF_ERR_INVALID,
                                 "byte %zu: component %d is %ux%u, expected 1..%u each way", off, c,
                                 w, hh, BPC_MAX_DIMENSION);
        if (p[8] < 1 || p[8] > BPC_MAX_DEPTH)
            return xsf_error_set(err, XSF_ERR_INVALID,
                                 "byte %zu: component %d has depth %u, expected 1..%d", off + 8, c,
                                 p[8], BPC_MAX_DEPTH);
        samples += (size_t)w * hh;
        info->width[c] = (int)w;
        info->height[c] = (int)hh;
        info->depth[c] = p[8];
    }
    if (samples > BPC_MAX_SAMPLES)
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                             "byte %d: %zu samples, at most %zu supported", FIXED_HEADER, samples,
                             BPC_MAX_SAMPLES);
    if (colour && (nc < 3 || info->width[1] != info->width[0] || info->width[2] != info->width[0] ||
                   info->height[1] != info->height[0] || info->height[2] != info->height[0] ||
                   info->depth[1] != info->depth[0] || info->depth[2] != info->depth[0]))
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "byte 24: colour transform on components of unequal shape");
    if (colour && (colour == BPC_COLOUR_RCT) != (filter == BPC_FILTER_53))
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "byte 24: the RCT goes with the 5/3, the ICT with the 9/7");
    for (int c = 0; c < nc; c++)
        for (int b = 0; b < 3 * levels + 1; b++, p += 4) { /* the bands of geometry.c, in order */
            const float s = bits_float(get32(p));
            if (filter == BPC_FILTER_53 ? s != 1.0f : !(s >= 1e-9f && s <= 1e9f))
                return xsf_error_set(err, XSF_ERR_INVALID,
                                     "byte %zu: step %g of component %d band %d", (size_t)(p - buf),
                                     (double)s, c, b);
            info->step[c][b] = s;
        }
    return XSF_OK;
}

/* The layout a header describes: bands, their steps and bounds, the code
 * blocks. */
static xsf_status layout_from_info(const bpc_info *info, bpc_layout *lay, xsf_error *err)
{
    memset(lay, 0, sizeof *lay);
    lay->nc = info->nc;
    for (int c = 0; c < info->nc; c++) {
        lay->width[c] = info->width[c];
        lay->height[c] = info->height[c];
        lay->depth[c] = info->depth[c];
    }
    lay->variant = info->variant;
    lay->filter = info->filter;
    lay->levels = info->levels;
    lay->colour = info->colour;
    lay->table_plane_offset = info->table_plane_offset;
    lay->tables_id = info->tables_id;
    lay->qstep = info->qstep;
    bpc_layout_bands_from_header(lay);
    for (int c = 0; c < lay->nc; c++)
        for (int b = 0; b < lay->comp[c].nbands; b++)
            lay->comp[c].band[b].step = info->step[c][b];
    bpc_layout_bounds_from_header(lay);
    lay->header_bytes = info->header_bytes;
    return bpc_layout_build_codeblocks(lay, err);
}

xsf_status bpc_parse_header(const uint8_t *buf, size_t len, bpc_info *info, xsf_error *err)
{
    bpc_layout lay;
    memset(&lay, 0, sizeof lay);
    xsf_status s = read_main_header(buf, len, info, err);
    if (!s)
        s = layout_from_info(info, &lay, err); /* the code blocks: their count, and that they fit */
    info->codeblocks = lay.ncb;
    bpc_layout_free(&lay);
    if (s)
        memset(info, 0, sizeof *info); /* nothing of a header that failed */
    return s;
}

xsf_status bpc_codestream_open(bpc_codestream *cs, const uint8_t *buf, size_t len,
                               const bpc_info *parsed, const bpc_tables *external, xsf_error *err)
{
    bpc_layout_free(&cs->lay);
    cs->tables = NULL;
    cs->data = NULL;
    xsf_status s;
    if (parsed) {
        const size_t total = parsed->codestream_bytes, h = parsed->header_bytes;
        if (parsed->nc < 1 || parsed->nc > BPC_MAX_COMPONENTS || parsed->levels < 0 ||
            parsed->levels > BPC_MAX_LEVELS || h > total || parsed->index_bytes > total - h ||
            parsed->data_bytes != total - h - parsed->index_bytes)
            return xsf_error_set(err, XSF_ERR_ARG, "not a header bpc_parse_header gave");
        if (len < total)
            return xsf_error_set(err, XSF_ERR_TRUNCATED, "codestream of %zu bytes cut at byte %zu",
                                 total, len);
        cs->info = *parsed;
    } else if ((s = read_main_header(buf, len, &cs->info, err))) {
        return s;
    }
    if ((s = layout_from_info(&cs->info, &cs->lay, err)))
        return s;
    cs->info.codeblocks = cs->lay.ncb;
    cs->tables = bpc_tables_for(&cs->lay, external);
    if (!cs->tables)
        return xsf_error_set(
            err, XSF_ERR_UNSUPPORTED,
            "byte 28: coded with external tables %08x; give the decoder that table file",
            cs->lay.tables_id);
    const size_t ncb = cs->lay.ncb;
    if (cs->entries_cap < ncb) {
        free(cs->entries);
        cs->entries = malloc(ncb * sizeof *cs->entries);
        cs->entries_cap = cs->entries ? ncb : 0;
        if (!cs->entries)
            return xsf_error_set(err, XSF_ERR_NOMEM, "no memory for %zu code blocks", ncb);
    }
    const uint8_t *index = buf + cs->info.header_bytes;
    cs->data = index + cs->info.index_bytes;
    return bpc_read_index(&cs->lay, index, cs->info.index_bytes, cs->info.data_bytes, cs->entries,
                          err);
}

void bpc_info_format(const bpc_info *info, xsf_format *f)
{
    memset(f, 0, sizeof *f);
    f->container = XSF_PLANAR_U16;
    f->nc = info->nc;
    for (int c = 0; c < info->nc && c < BPC_MAX_COMPONENTS; c++) {
        f->width[c] = info->width[c];
        f->height[c] = info->height[c];
        f->depth[c] = info->depth[c];
    }
}

void bpc_codestream_free(bpc_codestream *cs)
{
    bpc_layout_free(&cs->lay);
    free(cs->entries);
    memset(cs, 0, sizeof *cs);
}

/* ---- index ---- */

size_t bpc_varint_size(uint32_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

size_t bpc_index_entry_size(int passes, uint32_t codewords)
{
    return passes ? bpc_varint_size((uint32_t)passes) + 1 + bpc_varint_size(codewords) : 1;
}

static size_t put_varint(uint8_t *out, uint32_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(0x80 | (v & 0x7f));
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

size_t bpc_write_index_entry(uint8_t *out, int planes, int passes, uint32_t codewords)
{
    size_t n = put_varint(out, (uint32_t)passes);
    if (passes) {
        out[n++] = (uint8_t)planes;
        n += put_varint(out + n, codewords);
    }
    return n;
}

/* Reads a varint of at most 5 bytes from [*p, end); 0 on a cut or overlong one. */
static int get_varint(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
    uint64_t x = 0;
    for (int i = 0; i < 5; i++) {
        if (*p >= end)
            return 0;
        const uint8_t b = *(*p)++;
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            if (x > UINT32_MAX)
                return 0;
            *v = (uint32_t)x;
            return 1;
        }
    }
    return 0;
}

xsf_status bpc_read_index(const bpc_layout *lay, const uint8_t *index, size_t index_bytes,
                          size_t data_bytes, bpc_cb_entry *entries, xsf_error *err)
{
    const uint8_t *p = index, *end = index + index_bytes;
    const size_t base = lay->header_bytes;
    size_t offset = 0;
    for (size_t i = 0; i < lay->ncb; i++) {
        const bpc_cb_desc *d = &lay->cb[i];
        const size_t at = base + (size_t)(p - index);
        uint32_t passes, cw = 0;
        int planes = 0;
        if (!get_varint(&p, end, &passes))
            return xsf_error_set(err, p >= end ? XSF_ERR_TRUNCATED : XSF_ERR_INVALID,
                                 "byte %zu: index entry of code block %zu cut or overlong", at, i);
        if (passes) {
            if (p >= end)
                return xsf_error_set(err, XSF_ERR_TRUNCATED,
                                     "byte %zu: index entry of code block %zu cut", at, i);
            planes = *p++;
            const int bound = lay->comp[d->comp].band[d->band].planes_bound;
            if (planes < 1 || planes > bound)
                return xsf_error_set(
                    err, XSF_ERR_INVALID,
                    "byte %zu: code block %zu has %d bitplanes, its band allows 1..%d", at, i,
                    planes, bound);
            if (passes > (uint32_t)bpc_passes_of((int)lay->variant, planes))
                return xsf_error_set(
                    err, XSF_ERR_INVALID,
                    "byte %zu: code block %zu has %u passes, %d bitplanes allow %d", at, i, passes,
                    planes, bpc_passes_of((int)lay->variant, planes));
            if (!get_varint(&p, end, &cw))
                return xsf_error_set(err, p >= end ? XSF_ERR_TRUNCATED : XSF_ERR_INVALID,
                                     "byte %zu: index entry of code block %zu cut or overlong", at,
                                     i);
            if (2 * (size_t)cw > bpc_codeblock_bound((int)d->w, (int)d->h, planes))
                return xsf_error_set(
                    err, XSF_ERR_INVALID,
                    "byte %zu: code block %zu claims %u codewords, more than %ux%u coefficients "
                    "of %d bitplanes can use",
                    at, i, cw, d->w, d->h, planes);
        }
        if (2 * (size_t)cw > data_bytes - offset)
            return xsf_error_set(err, XSF_ERR_INVALID,
                                 "byte %zu: code block %zu's %zu bytes run past the %zu data bytes",
                                 at, i, 2 * (size_t)cw, data_bytes);
        entries[i].planes = (uint8_t)planes;
        entries[i].passes = (uint8_t)passes;
        entries[i].codewords = cw;
        entries[i].offset = offset;
        offset += 2 * (size_t)cw;
    }
    if (p != end)
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "byte %zu: %zu index bytes after the last code block",
                             base + (size_t)(p - index), (size_t)(end - p));
    if (offset != data_bytes)
        return xsf_error_set(err, XSF_ERR_INVALID, "code blocks use %zu of the %zu data bytes",
                             offset, data_bytes);
    return XSF_OK;
}
