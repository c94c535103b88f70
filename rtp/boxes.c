/* The boxes of an RFC 9134 picture segment. RFC 9134 3.3-3.4 and 4.1: a
 * picture segment is the video support box, the colour specification box,
 * then the codestream, in every packetization mode, so a sender includes
 * them; their layout and content are ISO/IEC 21122-3's. As written here
 * (21122-3's text was not at hand; the layout agrees with intoPIX's ST
 * 2110-22 Wireshark dissector):
 *   jpvs (video support) { jpvi (video information): brat, frat, schar, tcod;
 *                          jxpl (profile and level): Ppih, Plev }
 *   colr (colour specification): METH, PREC, APPROX, then for METH 5 the
 *        H.273 colour primaries, transfer characteristics, matrix
 *        coefficients (16 bits each) and the full-range flag (top bit). */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */

#include <string.h>
#include <strings.h>

#include "rtp_internal.h"

enum { JPVS_BYTES = 42, JPVI_BYTES = 22, JXPL_BYTES = 12, COLR_BYTES = 18 };

/* Bounds on what may precede a codestream: the boxes are small metadata. */
#define MAX_BOXES 16
#define MAX_BOX_PREFIX 4096

static uint8_t *put_box_header(uint8_t *p, uint32_t bytes, const char type[4])
{
    rtp_wr32(p, bytes);
    memcpy(p + 4, type, 4);
    return p + 8;
}

size_t rtp_jxs_boxes_write(const rtp_jxs_boxes *b, uint8_t *out, size_t cap)
{
    if (cap < RTP_JXS_BOXES_BYTES)
        return 0;
    uint8_t *p = put_box_header(out, JPVS_BYTES, "jpvs");
    p = put_box_header(p, JPVI_BYTES, "jpvi");
    rtp_wr32(p, b->brat_mbps);
    rtp_wr32(p + 4, (uint32_t)(b->frat_interlace & 3) << 30 |
                        (uint32_t)(b->frat_den_code & 0x3f) << 24 | b->frat_num);
    rtp_wr16(p + 8, b->schar);
    rtp_wr32(p + 10, b->tcod);
    p += 14;
    p = put_box_header(p, JXPL_BYTES, "jxpl");
    rtp_wr16(p, b->ppih);
    rtp_wr16(p + 2, b->plev);
    p += 4;
    p = put_box_header(p, COLR_BYTES, "colr");
    p[0] = b->colr_meth ? b->colr_meth : 5;
    p[1] = 0; /* PREC */
    p[2] = 0; /* APPROX */
    rtp_wr16(p + 3, b->primaries);
    rtp_wr16(p + 5, b->transfer);
    rtp_wr16(p + 7, b->matrix);
    p[9] = b->full_range ? 0x80 : 0;
    return RTP_JXS_BOXES_BYTES;
}

/* H.273 code points (colour primaries, transfer, matrix) of an SDP
 * colorimetry (RFC 9134 7.1), with the transfer its SDR streams use. */
typedef struct colorimetry_code {
    const char *name;
    uint8_t primaries, sdr_transfer, matrix;
} colorimetry_code;

static const colorimetry_code colorimetries[] = {
    /* BT.601 names two sets of primaries (525 and 625 lines): left unspecified. */
    {"BT601-5", 2, 6, 6},   {"BT601", 2, 6, 6},   {"BT709-2", 1, 1, 1}, {"BT709", 1, 1, 1},
    {"SMPTE240M", 7, 7, 7}, {"BT2020", 9, 14, 9}, /* transfer 15 at 12 bits and more; matrix 10 for
                                                     CLYCbCr */
    {"BT2100", 9, 14, 9},                         /* matrix 14 for ICtCp */
    {"ST2065-1", 2, 8, 0}, /* ACES: linear RGB, primaries H.273 does not name */
    {"ST2065-3", 2, 2, 0},  {"XYZ", 10, 17, 0},
};

void rtp_jxs_colr_from_sdp(rtp_jxs_boxes *b, const char *colorimetry, const char *tcs,
                           const char *range, const char *sampling, unsigned depth)
{
    colorimetry = colorimetry ? colorimetry : "";
    tcs = tcs ? tcs : "";
    sampling = sampling ? sampling : "";
    colorimetry_code c = {"", 2, 2, 2};
    for (size_t i = 0; i < sizeof colorimetries / sizeof colorimetries[0]; i++)
        if (!strcasecmp(colorimetry, colorimetries[i].name))
            c = colorimetries[i];
    const int bt2020 = c.primaries == 9;
    if (bt2020 && depth >= 12)
        c.sdr_transfer = 15;
    if (bt2020 && !strncasecmp(sampling, "CLYCbCr", 7))
        c.matrix = 10;
    if (bt2020 && !strncasecmp(sampling, "ICtCp", 5))
        c.matrix = 14;
    if (!strcasecmp(sampling, "RGB") || !strcasecmp(sampling, "XYZ"))
        c.matrix = 0;
    b->colr_meth = 5;
    b->primaries = c.primaries;
    b->matrix = c.matrix;
    b->transfer = !strcasecmp(tcs, "SDR")   ? c.sdr_transfer
                  : !strcasecmp(tcs, "PQ")  ? 16
                  : !strcasecmp(tcs, "HLG") ? 18
                                            : 2;
    /* RANGE absent: NARROW, but FULL with UNSPECIFIED colorimetry (RFC 9134 7.1).
     * H.273 has one full-range flag: FULLPROTECT sets it too. */
    if (!range || !*range)
        range = strcasecmp(colorimetry, "UNSPECIFIED") ? "NARROW" : "FULL";
    b->full_range = (uint8_t)(strcasecmp(range, "NARROW") != 0);
}

/* Reads one box header at buf[off]: its total size and the start of its content. */
static xsf_status box_at(const uint8_t *buf, size_t len, size_t off, size_t *size, size_t *content,
                         xsf_error *err)
{
    if (len - off < 8)
        return xsf_error_set(err, XSF_ERR_TRUNCATED, "byte %zu: box: data ends inside a box header",
                             off);
    uint64_t lbox = rtp_rd32(buf + off);
    size_t head = 8;
    if (lbox == 1) { /* XLBox: a 64-bit length follows the type */
        if (len - off < 16)
            return xsf_error_set(err, XSF_ERR_TRUNCATED, "byte %zu: box: data ends inside an XLBox",
                                 off);
        lbox = (uint64_t)rtp_rd32(buf + off + 8) << 32 | rtp_rd32(buf + off + 12);
        head = 16;
    }
    if (lbox < head || lbox > len - off)
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "byte %zu: box '%.4s': length %llu, %zu bytes remain", off,
                             (const char *)buf + off + 4, (unsigned long long)lbox, len - off);
    *size = (size_t)lbox;
    *content = off + head;
    return XSF_OK;
}

static void parse_jpvs(const uint8_t *buf, size_t start, size_t end, rtp_jxs_boxes *b)
{
    size_t off = start;
    for (int n = 0; n < MAX_BOXES && end - off >= 8; n++) {
        size_t size = 0, content = 0;
        xsf_error ignored;
        xsf_error_clear(&ignored);
        if (box_at(buf, end, off, &size, &content, &ignored) != XSF_OK)
            return;
        const uint8_t *c = buf + content;
        const size_t cbytes = off + size - content;
        if (!memcmp(buf + off + 4, "jpvi", 4) && cbytes >= 14) {
            b->brat_mbps = rtp_rd32(c);
            const uint32_t frat = rtp_rd32(c + 4);
            b->frat_interlace = (uint8_t)(frat >> 30);
            b->frat_den_code = (uint8_t)(frat >> 24 & 0x3f);
            b->frat_num = (uint16_t)frat;
            b->schar = rtp_rd16(c + 8);
            b->tcod = rtp_rd32(c + 10);
        } else if (!memcmp(buf + off + 4, "jxpl", 4) && cbytes >= 4) {
            b->ppih = rtp_rd16(c);
            b->plev = rtp_rd16(c + 2);
        }
        off += size;
    }
}

xsf_status rtp_jxs_boxes_parse(const uint8_t *buf, size_t len, size_t *codestream_offset,
                               rtp_jxs_boxes *b, xsf_error *err)
{
    memset(b, 0, sizeof *b);
    size_t off = 0;
    for (int n = 0; n <= MAX_BOXES; n++) {
        if (len - off >= 2 && buf[off] == 0xff && buf[off + 1] == 0x10) {
            *codestream_offset = off;
            return XSF_OK;
        }
        if (n == MAX_BOXES || off >= MAX_BOX_PREFIX)
            break;
        size_t size = 0, content = 0;
        xsf_status st = box_at(buf, len, off, &size, &content, err);
        if (st != XSF_OK)
            return st;
        b->present = 1;
        if (!memcmp(buf + off + 4, "jpvs", 4)) {
            parse_jpvs(buf, content, off + size, b);
        } else if (!memcmp(buf + off + 4, "colr", 4) && size - (content - off) >= 10) {
            const uint8_t *c = buf + content;
            b->colr_meth = c[0];
            if (c[0] == 5) {
                b->primaries = rtp_rd16(c + 3);
                b->transfer = rtp_rd16(c + 5);
                b->matrix = rtp_rd16(c + 7);
                b->full_range = (uint8_t)(c[9] >> 7);
            }
        }
        off += size;
    }
    return xsf_error_set(
        err, XSF_ERR_INVALID,
        "byte %zu: no SOC marker ff10 after %d boxes (at most %d boxes, %d bytes, may precede it)",
        off, MAX_BOXES, MAX_BOXES, MAX_BOX_PREFIX);
}

/* The bound of rtp_jxs_codestream_bound. ISO/IEC 21122-1 codes every wavelet
 * coefficient (the bands of a component hold as many as it has samples) with
 * at most 15 bit planes and a sign: 16 bits; its code group of 4 carries one
 * bit-plane count, at most 32 bits in the bounded unary code (4 in raw mode):
 * 8 bits a coefficient; significance flags add a bit for 8 groups. That is
 * under 4 bytes a sample. The 2 bytes a sample more cover the precinct, packet
 * and slice headers of the narrowest precincts (8 x 2^NLx columns), and
 * 256 KiB the boxes and the picture header. A codestream can be longer only
 * with padding inside its precincts, which no encoder needs (a sender that
 * pads past this is refused). */
size_t rtp_jxs_codestream_bound(uint64_t samples)
{
    const uint64_t fixed = (uint64_t)256 << 10;
    if (samples > (UINT64_MAX - fixed) / 6 || samples * 6 + fixed > SIZE_MAX)
        return SIZE_MAX;
    return (size_t)(samples * 6 + fixed);
}
