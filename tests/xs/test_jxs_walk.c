/* The .jxs frame walk (xs_jxs_next, xs_jxs_count): every codestream of a
 * buffer of several vectors back to back found at its place and size (those
 * xs_scan_layout gives), its header returned, and garbage, truncation and an
 * offset at the end refused with a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "xs.h"

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = n > 0 ? malloc((size_t)n) : NULL;
    if (d && fread(d, 1, (size_t)n, f) != (size_t)n) {
        free(d);
        d = NULL;
    }
    fclose(f);
    *len = d ? (size_t)n : 0;
    return d;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "vectors/xs";
    static const char *const names[] = {"geom_32x16_444.jxs", "geom_334x78_420.jxs",
                                        "geom_64x8_444.jxs", "rate_bpp1.jxs"};
    enum { N = sizeof names / sizeof names[0] };
    uint8_t *buf = NULL;
    size_t len = 0, off[N], size[N];
    for (size_t i = 0; i < N; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        size_t n;
        uint8_t *d = read_all(path, &n);
        CHECK(d != NULL, "cannot read %s", path);
        if (!d)
            return xsf_test_finish();
        xs_layout l;
        memset(&l, 0, sizeof l);
        xsf_error err;
        xsf_error_clear(&err);
        CHECK(xs_scan_layout(d, n, &l, &err) == XSF_OK && l.codestream_bytes == n,
              "%s is not one codestream: %s", names[i], err.msg);
        xs_layout_free(&l);
        buf = realloc(buf, len + n);
        memcpy(buf + len, d, n);
        off[i] = len;
        size[i] = n;
        len += n;
        free(d);
    }

    /* The walk finds each at its place, with its header. */
    size_t at = 0, k = 0;
    while (at < len && k < N + 1) {
        size_t n = 0;
        xs_header h;
        xsf_error err;
        xsf_error_clear(&err);
        const xsf_status st = xs_jxs_next(buf, len, at, &n, &h, &err);
        CHECK(st == XSF_OK, "codestream %zu: %s", k, err.msg);
        if (st != XSF_OK)
            break;
        CHECK(k < N && at == off[k] && n == size[k], "codestream %zu at %zu: %zu bytes", k, at, n);
        xs_header ref;
        CHECK(xs_parse_header(buf + at, len - at, &ref, &err) == XSF_OK && ref.wf == h.wf &&
                  ref.hf == h.hf && ref.nc == h.nc && ref.header_bytes == h.header_bytes,
              "codestream %zu: header %ux%u", k, h.wf, h.hf);
        at += n;
        k++;
    }
    CHECK(k == N && at == len, "walked %zu codestreams to byte %zu of %zu", k, at, len);
    CHECK(xs_jxs_count(buf, len, 100) == N, "count %zu", xs_jxs_count(buf, len, 100));
    CHECK(xs_jxs_count(buf, len, 2) == 2, "count up to 2: %zu", xs_jxs_count(buf, len, 2));
    /* The header is optional. */
    size_t n = 0;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(xs_jxs_next(buf, len, off[1], &n, NULL, &err) == XSF_OK && n == size[1], "no header");

    /* At the end, past it: no codestream left. */
    xsf_error_clear(&err);
    CHECK(xs_jxs_next(buf, len, len, &n, NULL, &err) == XSF_ERR_TRUNCATED && err.msg[0] && n == 0,
          "offset at the end: %s", err.msg);
    xsf_error_clear(&err);
    CHECK(xs_jxs_next(buf, len, len + 5, &n, NULL, &err) == XSF_ERR_TRUNCATED, "offset past it");

    /* Every cut of the last codestream is refused, with a message. */
    for (size_t cut = off[N - 1]; cut < len; cut += 1 + (len - off[N - 1]) / 97) {
        xsf_error_clear(&err);
        const xsf_status st = xs_jxs_next(buf, cut, off[N - 1], &n, NULL, &err);
        CHECK(st != XSF_OK && err.msg[0] && n == 0, "cut at %zu accepted", cut);
    }
    xsf_error_clear(&err);
    CHECK(xs_jxs_next(buf, len - 1, off[N - 1], &n, NULL, &err) == XSF_ERR_TRUNCATED, "EOC cut: %s",
          err.msg);
    CHECK(xs_jxs_count(buf, len - 1, 100) == N - 1, "count of a cut buffer");

    /* Garbage between codestreams: the walk stops there with INVALID. */
    uint8_t *g = malloc(len + 16);
    memcpy(g, buf, off[1]);
    memset(g + off[1], 0x5a, 16);
    memcpy(g + off[1] + 16, buf + off[1], len - off[1]);
    xsf_error_clear(&err);
    CHECK(xs_jxs_next(g, len + 16, 0, &n, NULL, &err) == XSF_OK && n == size[0], "first");
    xsf_error_clear(&err);
    CHECK(xs_jxs_next(g, len + 16, off[1], &n, NULL, &err) == XSF_ERR_INVALID && err.msg[0],
          "garbage accepted: %s", err.msg);
    CHECK(xs_jxs_count(g, len + 16, 100) == 1, "count stops at the garbage");
    /* A corrupt slice header inside a codestream. */
    memcpy(g, buf, len);
    xs_layout l;
    memset(&l, 0, sizeof l);
    CHECK(xs_scan_layout(buf + off[2], size[2], &l, &err) == XSF_OK && l.nslices > 0, "layout");
    if (l.nslices)
        g[off[2] + l.slice_offset[0] + 1] ^= 0x40; /* SLH marker ff20 -> ff60 */
    xs_layout_free(&l);
    xsf_error_clear(&err);
    CHECK(xs_jxs_next(g, len, off[2], &n, NULL, &err) == XSF_ERR_INVALID && err.msg[0],
          "broken SLH accepted");
    free(g);
    free(buf);
    return xsf_test_finish();
}
