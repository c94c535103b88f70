/* Probability tables of the stationary model (thesis 3.2.2; Bruns 8.5): the
 * probability of the symbol 0 per variant, band, table plane and context,
 * as p / 2^15. The built-in sets are stored as one byte per entry (a code of
 * the log-odds, code_to_p below) in tables_builtin.c, the planes above a
 * band's last distinct one left out; table files hold the 16-bit values. */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpc_internal.h"
#include "coder_rules.h"

#define TABLE_FILE_MAGIC "BPCTBL01"
#define TABLE_ENTRIES (3 * BPC_TABLE_BANDS * BPC_TABLE_PLANES * BPC_NCTX_MAX)

/* code k -> p: 32768 / (1 + exp(-(k - 127.5) s)), s = ln(32760 / 8) / 127.5,
 * clamped to 8..32760; written out so that every platform reads the same. */
static const uint16_t code_to_p[256] = {
    8,     9,     9,     10,    10,    11,    12,    13,    13,    14,    15,    16,    17,
    19,    20,    21,    23,    24,    26,    28,    29,    31,    34,    36,    38,    41,
    44,    47,    50,    53,    57,    60,    64,    69,    73,    78,    84,    89,    95,
    102,   108,   116,   123,   132,   141,   150,   160,   171,   182,   194,   207,   221,
    236,   252,   269,   287,   306,   326,   348,   371,   396,   422,   451,   480,   512,
    546,   582,   621,   662,   706,   752,   802,   854,   910,   970,   1033,  1100,  1172,
    1248,  1329,  1414,  1505,  1602,  1704,  1813,  1928,  2049,  2178,  2315,  2459,  2612,
    2773,  2943,  3123,  3312,  3511,  3721,  3942,  4174,  4417,  4672,  4940,  5220,  5512,
    5818,  6137,  6469,  6814,  7173,  7545,  7931,  8329,  8741,  9165,  9602,  10051, 10511,
    10982, 11464, 11954, 12454, 12961, 13476, 13996, 14522, 15051, 15583, 16117, 16651, 17185,
    17717, 18246, 18772, 19292, 19807, 20314, 20814, 21304, 21786, 22257, 22717, 23166, 23603,
    24027, 24439, 24837, 25223, 25595, 25954, 26299, 26631, 26950, 27256, 27548, 27828, 28096,
    28351, 28594, 28826, 29047, 29257, 29456, 29645, 29825, 29995, 30156, 30309, 30453, 30590,
    30719, 30840, 30955, 31064, 31166, 31263, 31354, 31439, 31520, 31596, 31668, 31735, 31798,
    31858, 31914, 31966, 32016, 32062, 32106, 32147, 32186, 32222, 32256, 32288, 32317, 32346,
    32372, 32397, 32420, 32442, 32462, 32481, 32499, 32516, 32532, 32547, 32561, 32574, 32586,
    32597, 32608, 32618, 32627, 32636, 32645, 32652, 32660, 32666, 32673, 32679, 32684, 32690,
    32695, 32699, 32704, 32708, 32711, 32715, 32718, 32721, 32724, 32727, 32730, 32732, 32734,
    32737, 32739, 32740, 32742, 32744, 32745, 32747, 32748, 32749, 32751, 32752, 32753, 32754,
    32755, 32755, 32756, 32757, 32758, 32758, 32759, 32759, 32760,
};

uint32_t bpc_crc32(const uint8_t *data, size_t len)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < len; i++) {
        crc ^= data[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
    }
    return ~crc;
}

/* The model without training: significance by the count of significant
 * neighbours, signs and refinement even. */
uint16_t bpc_default_p(int variant, int ctx)
{
    static const double sig[9] = {0.97, 0.85, 0.75, 0.68, 0.62, 0.57, 0.53, 0.5, 0.5};
    double p = 0.5;
    if (ctx < BPC_CTX_SIGN)
        p = sig[ctx];
    else if (variant == 3 && ctx >= BPC_CTX_CP_SIG && ctx < BPC_CTX_CP_SIGN)
        p = sig[ctx - BPC_CTX_CP_SIG];
    else if (ctx == BPC_CTX_REF)
        p = 0.55;
    return (uint16_t)lrint(p * 32768);
}

void bpc_tables_fill_default(bpc_tables *t)
{
    for (int v = 1; v <= 3; v++)
        for (int b = 0; b < BPC_TABLE_BANDS; b++)
            for (int j = 0; j < BPC_TABLE_PLANES; j++)
                for (int k = 0; k < BPC_NCTX_MAX; k++)
                    t->p[v - 1][b][j][k] = k < bpc_nctx(v) ? bpc_default_p(v, k) : 16384;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : (c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1);
}

static bpc_tables builtin[2];
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

/* The planes a band's text in tables_builtin.c holds (bpc_builtin_hex): 1 to
 * BPC_TABLE_PLANES whole planes of the variant's contexts, else 0. */
static int builtin_planes(const char *h, int variant)
{
    const size_t plane = 2 * (size_t)bpc_nctx(variant), len = h ? strlen(h) : 0;
    return len && len % plane == 0 && len / plane <= BPC_TABLE_PLANES ? (int)(len / plane) : 0;
}

/* Variant v's bands in one filter's part of tables_builtin.c: its own, or
 * variant 1's where it is written {0} (a variant of variant 1's contexts). */
static const char *const *builtin_bands(const char *const hex[3][BPC_TABLE_BANDS], int v)
{
    return !hex[v - 1][0] && v > 1 && bpc_nctx(v) == bpc_nctx(1) ? hex[0] : hex[v - 1];
}

/* One filter's built-in sets from its part of tables_builtin.c into t; t keeps
 * the default model where the text is not whole (a build without trained data). */
static void builtin_fill(bpc_tables *t, const char *const hex[3][BPC_TABLE_BANDS])
{
    for (int v = 1; v <= 3; v++)
        for (int b = 0; b < BPC_TABLE_BANDS; b++)
            if (!builtin_planes(builtin_bands(hex, v)[b], v))
                return;
    for (int v = 1; v <= 3; v++) {
        const int n = bpc_nctx(v);
        for (int b = 0; b < BPC_TABLE_BANDS; b++) {
            const char *h = builtin_bands(hex, v)[b];
            const int planes = builtin_planes(h, v);
            for (int j = 0; j < BPC_TABLE_PLANES; j++) {
                /* the planes above the last one given repeat it */
                const char *row = h + 2 * (size_t)n * (size_t)(j < planes ? j : planes - 1);
                for (int k = 0; k < n; k++) {
                    const int code = hexval(row[2 * k]) << 4 | hexval(row[2 * k + 1]);
                    t->p[v - 1][b][j][k] = code_to_p[code & 255];
                }
            }
        }
    }
}

static void builtin_init(void)
{
    for (int f = 0; f < 2; f++) {
        bpc_tables *t = &builtin[f];
        bpc_tables_fill_default(t);
        t->id = 0;
        builtin_fill(t, bpc_builtin_hex[f]);
    }
}

const bpc_tables *bpc_tables_builtin(int filter)
{
    pthread_once(&builtin_once, builtin_init);
    return &builtin[filter == BPC_FILTER_97];
}

uint32_t bpc_tables_id(const bpc_tables *t)
{
    return t->id;
}

bpc_band_probs bpc_tables_band(const bpc_tables *t, bpc_variant variant, int level, int orientation,
                               int plane_offset)
{
    bpc_band_probs b;
    const int band = level * 4 + orientation;
    b.p = &t->p[(int)variant - 1]
               [band < 0 ? 0 : (band >= BPC_TABLE_BANDS ? BPC_TABLE_BANDS - 1 : band)][0][0];
    b.plane_offset = plane_offset;
    return b;
}

/* The code nearest in log-odds to p (for writing built-in sets). */
int bpc_p_to_code(uint16_t p)
{
    const double x = log((double)p / (32768.0 - p));
    int best = 0;
    double bd = 1e9;
    for (int k = 0; k < 256; k++) {
        const double d = fabs(log((double)code_to_p[k] / (32768.0 - code_to_p[k])) - x);
        if (d < bd) {
            bd = d;
            best = k;
        }
    }
    return best;
}

xsf_status bpc_tables_save(const bpc_tables *t, uint8_t **data, size_t *len, xsf_error *err)
{
    const size_t n = 12 + 2 * (size_t)TABLE_ENTRIES;
    uint8_t *b = malloc(n);
    if (!b)
        return xsf_error_set(err, XSF_ERR_NOMEM, "no memory for a table file");
    memcpy(b, TABLE_FILE_MAGIC, 8);
    b[8] = (uint8_t)(TABLE_ENTRIES >> 24);
    b[9] = (uint8_t)(TABLE_ENTRIES >> 16);
    b[10] = (uint8_t)(TABLE_ENTRIES >> 8);
    b[11] = (uint8_t)TABLE_ENTRIES;
    const uint16_t *p = &t->p[0][0][0][0];
    for (size_t i = 0; i < TABLE_ENTRIES; i++) {
        b[12 + 2 * i] = (uint8_t)(p[i] >> 8);
        b[13 + 2 * i] = (uint8_t)p[i];
    }
    *data = b;
    *len = n;
    return XSF_OK;
}

xsf_status bpc_tables_load(bpc_tables **out, const uint8_t *data, size_t len, xsf_error *err)
{
    *out = NULL;
    if (len < 12 || memcmp(data, TABLE_FILE_MAGIC, 8))
        return xsf_error_set(err, XSF_ERR_INVALID, "not a BPC-PaCo table file (expected '%s')",
                             TABLE_FILE_MAGIC);
    const uint32_t n =
        (uint32_t)data[8] << 24 | (uint32_t)data[9] << 16 | (uint32_t)data[10] << 8 | data[11];
    if (n != TABLE_ENTRIES)
        return xsf_error_set(err, XSF_ERR_INVALID, "table file has %u entries, expected %u", n,
                             (unsigned)TABLE_ENTRIES);
    if (len != 12 + 2 * (size_t)n)
        return xsf_error_set(err, len < 12 + 2 * (size_t)n ? XSF_ERR_TRUNCATED : XSF_ERR_INVALID,
                             "table file is %zu bytes, expected %zu", len, 12 + 2 * (size_t)n);
    bpc_tables *t = malloc(sizeof *t);
    if (!t)
        return xsf_error_set(err, XSF_ERR_NOMEM, "no memory for tables");
    uint16_t *p = &t->p[0][0][0][0];
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint16_t)(data[12 + 2 * i] << 8 | data[13 + 2 * i]);
        if (p[i] < 1 || p[i] > 32767) {
            free(t);
            return xsf_error_set(err, XSF_ERR_INVALID,
                                 "table entry %zu is %u: probabilities are 1..32767", i, p[i]);
        }
    }
    t->id = bpc_crc32(data, len);
    if (t->id == 0) /* 0 names the built-in sets */
        t->id = 1;
    *out = t;
    return XSF_OK;
}

void bpc_tables_destroy(bpc_tables *t)
{
    if (t && t != &builtin[0] && t != &builtin[1])
        free(t);
}

const bpc_tables *bpc_tables_for(const bpc_layout *lay, const bpc_tables *external)
{
    if (lay->tables_id == 0)
        return bpc_tables_builtin(lay->filter);
    return external && external->id == lay->tables_id ? external : NULL;
}

/* A growing text (bpc_tables_builtin_c); `failed` once an allocation failed. */
typedef struct text_buf {
    char *p;
    size_t len, cap;
    int failed;
} text_buf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
put(text_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->failed || n < 0)
        return;
    if (b->len + (size_t)n + 1 > b->cap) {
        const size_t cap = (b->len + (size_t)n + 1) * 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Whether the codes of planes j and i of variant v's band are the same. */
static int same_plane(const bpc_tables *t, int v, int band, int j, int i)
{
    for (int k = 0; k < bpc_nctx(v); k++)
        if (bpc_p_to_code(t->p[v - 1][band][j][k]) != bpc_p_to_code(t->p[v - 1][band][i][k]))
            return 0;
    return 1;
}

/* Whether variant v has variant 1's contexts and codes (what {0} stands for). */
static int same_as_first(const bpc_tables *t, int v)
{
    if (bpc_nctx(v) != bpc_nctx(1))
        return 0;
    for (int band = 0; band < BPC_TABLE_BANDS; band++)
        for (int j = 0; j < BPC_TABLE_PLANES; j++)
            for (int k = 0; k < bpc_nctx(v); k++)
                if (bpc_p_to_code(t->p[v - 1][band][j][k]) != bpc_p_to_code(t->p[0][band][j][k]))
                    return 0;
    return 1;
}

/* One band's text: its planes up to the last that differs from the one below,
 * 96 digits a line. */
static void put_band(text_buf *b, const bpc_tables *t, int v, int band)
{
    int planes = BPC_TABLE_PLANES;
    while (planes > 1 && same_plane(t, v, band, planes - 1, planes - 2))
        planes--;
    put(b, "            /* band %d */\n            \"", band);
    size_t col = 0;
    for (int j = 0; j < planes; j++)
        for (int k = 0; k < bpc_nctx(v); k++) {
            if (col == 48) { /* 96 digits a line */
                put(b, "\"\n            \"");
                col = 0;
            }
            put(b, "%02x", bpc_p_to_code(t->p[v - 1][band][j][k]));
            col++;
        }
    put(b, "\",\n");
}

xsf_status bpc_tables_builtin_c(const bpc_tables *t53, const bpc_tables *t97, const char *name53,
                                const char *name97, const char *const *sources, int nsources,
                                char **text, size_t *len, xsf_error *err)
{
    const bpc_tables *t[2] = {t53, t97};
    text_buf b = {0};
    put(&b,
        "/* Built-in BPC-PaCo probability tables, written by `xsflow bpc-train --builtin`\n"
        " * from %s (5/3) and %s (9/7). Per filter, variant 1..3 and band\n"
        " * (level * 4 + orientation): the table planes from plane 0 up to the last\n"
        " * that differs from the one below it (the planes above repeat it), the\n"
        " * variant's contexts each, two hex digits per entry: a code of the log-odds\n"
        " * (tables.c, code_to_p). A variant written {0} has variant 1's tables. */\n"
        "#include \"bpc_internal.h\"\n\n",
        name53, name97);
    put(&b, "const char *const bpc_builtin_source =\n    \"");
    for (int i = 0; i < nsources; i++)
        put(&b, "%s%s", i ? " " : "", sources[i]);
    put(&b, "\";\n\nconst char *const bpc_builtin_hex[2][3][BPC_TABLE_BANDS] = {\n");
    for (int f = 0; f < 2; f++) {
        put(&b, "    /* %s */\n    {\n", f ? "9/7" : "5/3");
        for (int v = 1; v <= 3; v++) {
            if (v > 1 && same_as_first(t[f], v)) {
                put(&b, "        /* variant %d: variant 1's */\n        {0},\n", v);
                continue;
            }
            put(&b, "        /* variant %d */\n        {\n", v);
            for (int band = 0; band < BPC_TABLE_BANDS; band++)
                put_band(&b, t[f], v, band);
            put(&b, "        },\n");
        }
        put(&b, "    },\n");
    }
    put(&b, "};\n");
    if (b.failed || !b.p) {
        free(b.p);
        return xsf_error_set(err, XSF_ERR_NOMEM, "no memory for the tables' source");
    }
    *text = b.p;
    *len = b.len;
    return XSF_OK;
}
