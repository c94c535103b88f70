/* Values written as text: rates, sizes, whole numbers, byte counts, lists. */
#include "xsf_parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Unsigned decimal digits only (no sign, no space), at most 18 of them;
 * the position after them in *end. 0 when there are none. */
static int digits(const char *s, uint64_t *v, const char **end)
{
    uint64_t x = 0;
    int n = 0;
    for (; isdigit((unsigned char)s[n]); n++) {
        if (n == 18)
            return 0;
        x = x * 10 + (uint64_t)(s[n] - '0');
    }
    *v = x;
    *end = s + n;
    return n;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        const uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

void xsf_rate_reduce(unsigned *num, unsigned *den)
{
    const uint64_t g = gcd(*num, *den);
    if (g) {
        *num = (unsigned)(*num / g);
        *den = (unsigned)(*den / g);
    }
}

/* p/q reduced, or its best approximation with both terms at most
 * XSF_RATE_MAX (continued fractions: the last convergent or semiconvergent
 * within the bound). 0 when the value is out of range. */
static int fit_rate(uint64_t p, uint64_t q, xsf_rate *r)
{
    const uint64_t g = gcd(p, q);
    p /= g;
    q /= g;
    if (p <= XSF_RATE_MAX && q <= XSF_RATE_MAX) {
        r->num = (unsigned)p;
        r->den = (unsigned)q;
        return 1;
    }
    uint64_t h0 = 0, h1 = 1, k0 = 1, k1 = 0; /* convergents h/k */
    uint64_t a = p, b = q;
    while (b) {
        const uint64_t t = a / b;
        uint64_t h2 = t * h1 + h0, k2 = t * k1 + k0;
        if (h2 > XSF_RATE_MAX || k2 > XSF_RATE_MAX) {
            /* the largest semiconvergent within the bound */
            uint64_t m = t;
            while (m > 0 && (m * h1 + h0 > XSF_RATE_MAX || m * k1 + k0 > XSF_RATE_MAX))
                m--;
            if (m > 0 && 2 * m >= t) {
                h1 = m * h1 + h0;
                k1 = m * k1 + k0;
            }
            break;
        }
        h0 = h1, h1 = h2, k0 = k1, k1 = k2;
        const uint64_t rem = a % b;
        a = b;
        b = rem;
    }
    if (!h1 || !k1)
        return 0;
    r->num = (unsigned)h1;
    r->den = (unsigned)k1;
    return 1;
}

#define RATE_SYNTAX "N, N/D, N:D or a decimal such as 29.97"

xsf_status xsf_parse_rate(const char *text, xsf_rate *rate, xsf_error *err)
{
    if (!text || !rate)
        return xsf_error_set(err, XSF_ERR_ARG, "no rate");
    uint64_t n, d = 1;
    const char *p;
    if (!digits(text, &n, &p))
        return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a rate: " RATE_SYNTAX, text);
    xsf_rate r;
    if (*p == '/' || *p == ':') {
        if (!digits(p + 1, &d, &p) || *p)
            return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a rate: " RATE_SYNTAX, text);
        if (!n || !d || n > XSF_RATE_MAX || d > XSF_RATE_MAX)
            return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a rate above 0 with terms up to %u",
                                 text, XSF_RATE_MAX);
        r.num = (unsigned)n;
        r.den = (unsigned)d;
        xsf_rate_reduce(&r.num, &r.den);
    } else if (*p == '.') {
        uint64_t frac;
        const char *f = p + 1;
        const int k = digits(f, &frac, &p);
        if (!k || *p || k > 9)
            return xsf_error_set(err, XSF_ERR_ARG,
                                 "'%s' is not a rate: " RATE_SYNTAX " (up to 9 decimals)", text);
        uint64_t scale = 1;
        for (int i = 0; i < k; i++)
            scale *= 10;
        if (n > XSF_RATE_MAX || (n == XSF_RATE_MAX && frac) || (!n && !frac))
            return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a rate above 0 and at most %u",
                                 text, XSF_RATE_MAX);
        const uint64_t exact = n * scale + frac; /* the value times scale */
        /* The NTSC family: the text is N*1000/1001 rounded to its k decimals. */
        static const unsigned ntsc[] = {24, 30, 48, 60, 120, 240};
        int found = 0;
        for (size_t i = 0; i < sizeof ntsc / sizeof ntsc[0] && frac; i++) {
            /* |exact/scale - N*1000/1001| <= 1/(2 scale), in integers:
             * |1001 exact - N 1000 scale| * 2 <= 1001 */
            const int64_t diff = (int64_t)(1001 * exact) - (int64_t)(ntsc[i] * 1000 * scale);
            if ((diff < 0 ? -diff : diff) * 2 <= 1001) {
                r.num = ntsc[i] * 1000;
                r.den = 1001;
                found = 1;
                break;
            }
        }
        if (!found && !fit_rate(exact, scale, &r))
            return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a rate above 0 and at most %u",
                                 text, XSF_RATE_MAX);
    } else if (!*p) {
        if (!n || n > XSF_RATE_MAX)
            return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a rate above 0 and at most %u",
                                 text, XSF_RATE_MAX);
        r.num = (unsigned)n;
        r.den = 1;
    } else {
        return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a rate: " RATE_SYNTAX, text);
    }
    *rate = r;
    return XSF_OK;
}

double xsf_rate_value(xsf_rate rate)
{
    return rate.den ? (double)rate.num / rate.den : 0;
}

xsf_status xsf_parse_size(const char *text, int max, int *width, int *height, xsf_error *err)
{
    uint64_t w, h;
    const char *p;
    if (!text || !digits(text, &w, &p) || (*p != 'x' && *p != 'X') || !digits(p + 1, &h, &p) || *p)
        return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a size WxH", text ? text : "");
    if (w < 1 || h < 1 || w > (uint64_t)max || h > (uint64_t)max)
        return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a size WxH of 1 to %d each", text, max);
    *width = (int)w;
    *height = (int)h;
    return XSF_OK;
}

xsf_status xsf_parse_integer(const char *text, int64_t min, int64_t max, int64_t *value,
                             xsf_error *err)
{
    const char *s = text ? text : "";
    const int neg = *s == '-';
    const char *d = s + neg;
    const int hex = d[0] == '0' && (d[1] == 'x' || d[1] == 'X');
    /* Every refusal states the range: a count limit is part of its message. */
    if (!(hex ? isxdigit((unsigned char)d[2]) : isdigit((unsigned char)d[0]))) {
        xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a whole number from %lld to %lld", s,
                      (long long)min, (long long)max);
        return XSF_ERR_ARG;
    }
    char *end;
    errno = 0;
    const unsigned long long u = strtoull(hex ? d + 2 : d, &end, hex ? 16 : 10);
    if (*end)
        return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a whole number from %lld to %lld", s,
                             (long long)min, (long long)max);
    const int64_t v = u > (unsigned long long)INT64_MAX ? (neg ? INT64_MIN : INT64_MAX)
                      : neg                             ? -(int64_t)u
                                                        : (int64_t)u;
    if (errno == ERANGE || v < min || v > max)
        return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a whole number from %lld to %lld", s,
                             (long long)min, (long long)max);
    *value = v;
    return XSF_OK;
}

xsf_status xsf_parse_bytes(const char *text, uint64_t min, uint64_t max, uint64_t *bytes,
                           xsf_error *err)
{
    uint64_t n;
    const char *p;
    if (!text || !digits(text, &n, &p))
        return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a byte count (N, or N with k, M or G)",
                             text ? text : "");
    unsigned shift = 0;
    if (*p == 'k' || *p == 'K')
        shift = 10, p++;
    else if (*p == 'M')
        shift = 20, p++;
    else if (*p == 'G')
        shift = 30, p++;
    if (shift && *p == 'i' && p[1] == 'B')
        p += 2;
    else if (*p == 'B')
        p++;
    if (*p)
        return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a byte count (N, or N with k, M or G)",
                             text);
    if ((n << shift) >> shift != n || (n << shift) < min || (n << shift) > max)
        return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a byte count from %llu to %llu", text,
                             (unsigned long long)min, (unsigned long long)max);
    *bytes = n << shift;
    return XSF_OK;
}

xsf_status xsf_parse_int_list(const char *text, int min, int max, int *items, int max_items,
                              int *count, xsf_error *err)
{
    int n = 0;
    const char *s = text ? text : "";
    for (;;) {
        char item[32];
        const size_t len = strcspn(s, ",");
        int64_t v;
        if (n == max_items)
            return xsf_error_set(err, XSF_ERR_ARG, "'%s' has more than %d items", text, max_items);
        if (!len || len >= sizeof item)
            return xsf_error_set(err, XSF_ERR_ARG,
                                 "'%s' is not a comma-separated list of numbers from %d to %d",
                                 text, min, max);
        memcpy(item, s, len);
        item[len] = '\0';
        if (xsf_parse_integer(item, min, max, &v, NULL) != XSF_OK)
            return xsf_error_set(err, XSF_ERR_ARG,
                                 "'%s' is not a comma-separated list of numbers from %d to %d",
                                 text, min, max);
        items[n++] = (int)v;
        if (!s[len])
            break;
        s += len + 1;
    }
    *count = n;
    return XSF_OK;
}
