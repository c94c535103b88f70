/* Values written as text, one syntax per kind, for every command line and
 * every library that reads them (an SDP's rate, a plug-in's property):
 * rates, picture sizes, byte counts, lists of numbers and colour
 * descriptions (xsf_colour_parse, xsf_colour.h).
 *
 * Each parser takes the whole text (nothing may follow the value), writes
 * its result only on success and otherwise says in err what it expected,
 * naming the text: "'30x' is not a rate: N, N/D, N:D or a decimal". The
 * caller prefixes the option or field. Nothing here prints. */
#ifndef XSF_PARSE_H
#define XSF_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "xsf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest numerator and denominator of a rate. */
#define XSF_RATE_MAX 1000000u

typedef struct xsf_rate {
    unsigned num, den; /* both 1..XSF_RATE_MAX, the fraction reduced */
} xsf_rate;

/* A rate (frames per second): "N", "N/D", "N:D" or a decimal "29.97". A
 * decimal is the exact N*1000/1001 of the NTSC family (23.976, 29.97,
 * 47.952, 59.94, 119.88, 239.76) when it is that rate rounded to the digits
 * given, else the nearest fraction with both terms at most XSF_RATE_MAX
 * (exact when it has one: 12.5 -> 25/2). The value must be above 0. */
xsf_status xsf_parse_rate(const char *text, xsf_rate *rate, xsf_error *err);

/* The rate as a double (0 for a zero denominator). */
double xsf_rate_value(xsf_rate rate);

/* Divides *num and *den by their greatest common divisor: the fraction in
 * lowest terms (30000/1001 stays, 50/2 becomes 25/1). With one term 0 the
 * other becomes 1 (0/5 is 0/1); 0/0 stays. */
void xsf_rate_reduce(unsigned *num, unsigned *den);

/* A picture size "WxH", each 1..max. */
xsf_status xsf_parse_size(const char *text, int max, int *width, int *height, xsf_error *err);

/* A whole number in [min, max], decimal, or hexadecimal with 0x; a refusal states the range. */
xsf_status xsf_parse_integer(const char *text, int64_t min, int64_t max, int64_t *value,
                             xsf_error *err);

/* A byte count in [min, max]: a whole number, optionally followed by k, M or
 * G (binary multiples: 1024, 2^20, 2^30; "KiB", "MiB", "GiB" and a final
 * "B" are accepted too): "32M" is 33554432. */
xsf_status xsf_parse_bytes(const char *text, uint64_t min, uint64_t max, uint64_t *bytes,
                           xsf_error *err);

/* A comma-separated list of whole numbers, each in [min, max], at least one
 * and at most max_items of them: "0,1". */
xsf_status xsf_parse_int_list(const char *text, int min, int max, int *items, int max_items,
                              int *count, xsf_error *err);

#ifdef __cplusplus
}
#endif

#endif
