/* Corrupt and truncated BPC-PaCo codestreams: every cut gives an error (and
 * a message), never a crash; thousands of bit flips decode or fail cleanly;
 * each header field out of range names its byte; a codestream of external
 * tables asks for them; a header in words (bpc_info_describe). Run it under ASan (XSF_SANITIZE) to
 * check that no read leaves the buffer. */
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "bpc.h"

static uint64_t rng = 0x1234567887654321ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

static uint8_t *encode(const bpc_params *p, int w, int h, int nc, int depth, size_t *len)
{
    xsf_picture img;
    memset(&img, 0, sizeof img);
    img.fmt.nc = nc;
    for (int c = 0; c < nc; c++) {
        img.fmt.width[c] = w;
        img.fmt.height[c] = h;
        img.fmt.depth[c] = depth;
        img.stride[c] = ((size_t)w) * sizeof(uint16_t);
        img.data[c] = (uint8_t *)(malloc((size_t)w * h * 2));
        for (int i = 0; i < w * h; i++)
            ((uint16_t *)img.data[c])[i] =
                (uint16_t)(((i % w) * 7 + (i / w) * 3 + (int)(rnd() % 9)) & ((1 << depth) - 1));
    }
    bpc_encoder *enc;
    bpc_encoder_create(&enc, p, NULL);
    const size_t cap = bpc_encode_bound(p, &img.fmt);
    uint8_t *buf = malloc(cap);
    xsf_status s = bpc_encode(enc, &img, buf, cap, len);
    CHECK(s == XSF_OK, "encode: %s", bpc_encoder_error(enc));
    bpc_encoder_destroy(enc);
    for (int c = 0; c < nc; c++)
        free(img.data[c]);
    return buf;
}

/* Decodes a copy of exactly len bytes (so ASan sees any read past it). */
static xsf_status decode_copy(bpc_decoder *dec, const uint8_t *buf, size_t len)
{
    uint8_t *copy = malloc(len ? len : 1);
    memcpy(copy, buf, len);
    size_t used;
    const xsf_picture *img;
    xsf_status s = bpc_decode(dec, copy, len, &used, &img);
    if (!s)
        CHECK(used <= len && img != NULL, "decoded %zu of %zu bytes", used, len);
    free(copy);
    return s;
}

static void cuts_and_flips(const uint8_t *buf, size_t len, const char *what)
{
    bpc_decoder *dec;
    bpc_decoder_create(&dec, NULL);
    CHECK(decode_copy(dec, buf, len) == XSF_OK, "%s: intact stream: %s", what,
          bpc_decoder_error(dec));
    const size_t step = len > 4000 ? len / 2000 : 1;
    int silent = 0;
    for (size_t n = 0; n < len; n += step) {
        const xsf_status s = decode_copy(dec, buf, n);
        if (s == XSF_OK || !bpc_decoder_error(dec)[0])
            silent++;
    }
    CHECK(silent == 0, "%s: %d cuts decoded or failed without a message", what, silent);
    uint8_t *copy = malloc(len);
    int ok = 0, failed = 0;
    for (int i = 0; i < 3000; i++) {
        memcpy(copy, buf, len);
        const int flips = 1 + (int)(rnd() % 3);
        for (int f = 0; f < flips; f++)
            copy[rnd() % len] ^= (uint8_t)(1u << (rnd() % 8));
        decode_copy(dec, copy, len) ? failed++ : ok++;
    }
    printf("%s: %zu bytes, %d cuts refused; 3000 corruptions: %d decoded, %d refused\n", what, len,
           (int)(len / step), ok, failed);
    free(copy);
    bpc_decoder_destroy(dec);
}

static void header_fields(const uint8_t *buf, size_t len)
{
    bpc_decoder *dec;
    bpc_decoder_create(&dec, NULL);
    uint8_t *c = malloc(len);
    struct {
        size_t at;
        uint8_t value;
        xsf_status expect;
        const char *field;
    } cases[] = {
        {0, 0x88, XSF_ERR_INVALID, "signature"},   {8, 2, XSF_ERR_UNSUPPORTED, "version"},
        {20, 0, XSF_ERR_INVALID, "components"},    {20, 5, XSF_ERR_INVALID, "components"},
        {21, 4, XSF_ERR_INVALID, "variant"},       {22, 2, XSF_ERR_INVALID, "filter"},
        {23, 7, XSF_ERR_INVALID, "levels"},        {24, 3, XSF_ERR_INVALID, "colour"},
        {24, 2, XSF_ERR_INVALID, "ICT with 5/3"},  {11, 0, XSF_ERR_INVALID, "header size"},
        {12, 0xff, XSF_ERR_TRUNCATED, "length"},   {36, 0xff, XSF_ERR_INVALID, "width"},
        {44, 17, XSF_ERR_INVALID, "depth"},        {44, 0, XSF_ERR_INVALID, "depth"},
        {28, 1, XSF_ERR_UNSUPPORTED, "tables id"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(c, buf, len);
        c[cases[i].at] = cases[i].value;
        const xsf_status s = decode_copy(dec, c, len);
        CHECK(s == cases[i].expect, "%s (byte %zu = %u): status %d (%s), expected %d",
              cases[i].field, cases[i].at, cases[i].value, (int)s, bpc_decoder_error(dec),
              (int)cases[i].expect);
        if (s)
            printf("  %-14s -> %s\n", cases[i].field, bpc_decoder_error(dec));
    }
    /* a NaN step */
    memcpy(c, buf, len);
    free(c);
    bpc_decoder_destroy(dec);
}

/* The header of a 9/7 codestream in words: each component, the coding, the
 * step, the tables, the sizes; a short buffer gets the start, the length is
 * the whole text's. */
static void describe(const uint8_t *buf, size_t len)
{
    bpc_info info;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(bpc_parse_header(buf, len, &info, &err) == XSF_OK, "header: %s", err.msg);
    char text[1024], part[16];
    const size_t n = bpc_info_describe(&info, text, sizeof text);
    CHECK(n == strlen(text) && strstr(text, "  component 0: 130x66, 12 bits\n") &&
              strstr(text, "coding passes per bitplane, 9/7 irreversible DWT, 3 levels, colour "
                           "transform none\n") &&
              strstr(text, "  quantization step ") &&
              strstr(text, "probability tables: built-in\n") &&
              strstr(text, " code blocks; header "),
          "described: %s", text);
    CHECK(bpc_info_describe(&info, part, sizeof part) == n && strlen(part) == sizeof part - 1 &&
              !strncmp(part, text, sizeof part - 1),
          "cut to its buffer");
    CHECK(bpc_info_describe(&info, NULL, 0) == n, "length alone");
}

int main(void)
{
    bpc_params p;
    bpc_params_default(&p);
    for (int v = 1; v <= 3; v++) {
        size_t len;
        char what[64];
        p.variant = (bpc_variant)v;
        p.filter = BPC_FILTER_53;
        p.target_bytes = 0;
        uint8_t *b = encode(&p, 97, 71, 3, 8, &len);
        snprintf(what, sizeof what, "5/3 lossless, %d passes", v);
        cuts_and_flips(b, len, what);
        if (v == 2)
            header_fields(b, len);
        free(b);
        p.filter = BPC_FILTER_97;
        p.levels = 3;
        bpc_params_set_bpp(&p, 2.0, 130, 66);
        b = encode(&p, 130, 66, 1, 12, &len);
        if (v == 1)
            describe(b, len);
        snprintf(what, sizeof what, "9/7 2 bpp, %d passes", v);
        cuts_and_flips(b, len, what);
        free(b);
        bpc_params_default(&p);
    }
    /* two codestreams back to back: the first decodes and says where it ends */
    size_t len;
    uint8_t *b = encode(&p, 40, 30, 1, 10, &len);
    uint8_t *two = malloc(2 * len);
    memcpy(two, b, len);
    memcpy(two + len, b, len);
    bpc_decoder *dec;
    bpc_decoder_create(&dec, NULL);
    size_t used;
    const xsf_picture *img;
    CHECK(bpc_decode(dec, two, 2 * len, &used, &img) == XSF_OK && used == len, "first of two");
    CHECK(bpc_decode(dec, two + used, 2 * len - used, &used, &img) == XSF_OK && used == len,
          "second of two");
    bpc_decoder_destroy(dec);
    free(two);
    free(b);
    return xsf_test_finish();
}
