/* The C decoder in parts (xs_decoder_set_parallel) against the same decoder
 * on one thread, the reference: every codestream of the conformance vectors
 * and of the UHD vectors (where present) gives the same picture, byte for
 * byte, for 2, 3, 5 and 16 threads of a pool and for a runner that takes the
 * parts in reverse order on one thread while naming several workers (the
 * order must not matter); corrupted codestreams give the same status and
 * message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "vector_files.h"
#include "xs.h"
#include "xs_internal.h"

/* The parts in reverse order, worker ids cycling over `threads`: a runner's
 * order is its own business. */
typedef struct reverse_runner {
    int threads;
    size_t runs;
} reverse_runner;

static void reverse_run(void *self, size_t n, xsf_pool_fn fn, void *ctx)
{
    reverse_runner *r = self;
    r->runs++;
    for (size_t i = n; i-- > 0;)
        fn(ctx, i, (int)(i % (size_t)r->threads));
}

/* The picture of buf decoded by `d` (whose runner is set), copied; NULL where it fails
 * (*st, msg say why). */
static uint8_t *decode_copy(xs_decoder *d, const uint8_t *buf, size_t len, size_t *bytes,
                            xsf_status *st, char msg[256])
{
    size_t consumed = 0;
    const xsf_picture *pic = NULL;
    *st = xs_decode(d, buf, len, &consumed, &pic);
    snprintf(msg, 256, "%s", *st == XSF_OK ? "" : xs_decoder_error(d));
    *bytes = 0;
    if (*st != XSF_OK)
        return NULL;
    for (int c = 0; c < pic->fmt.nc; c++)
        *bytes += xsf_format_row_bytes(&pic->fmt, c) * (size_t)pic->fmt.height[c];
    uint8_t *out = malloc(*bytes ? *bytes : 1), *at = out;
    for (int c = 0; c < pic->fmt.nc; c++)
        for (int y = 0; y < pic->fmt.height[c]; y++) {
            const size_t row = xsf_format_row_bytes(&pic->fmt, c);
            memcpy(at, pic->data[c] + (size_t)y * pic->stride[c], row);
            at += row;
        }
    return out;
}

typedef struct runners {
    xs_decoder *ref;    /* one thread */
    xs_decoder *dec[5]; /* pools of 2, 3, 5, 16 threads; the reverse runner */
    const char *name[5];
    reverse_runner *rev;
    int flips;      /* corrupted copies a codestream */
    size_t decoded; /* codestreams the reference decoded */
} runners;

static void compare(runners *r, const uint8_t *cs, size_t len, const char *what)
{
    size_t nref;
    xsf_status sref;
    char mref[256];
    uint8_t *ref = decode_copy(r->ref, cs, len, &nref, &sref, mref);
    r->decoded += sref == XSF_OK;
    for (int k = 0; k < 5; k++) {
        size_t n;
        xsf_status st;
        char msg[256];
        uint8_t *got = decode_copy(r->dec[k], cs, len, &n, &st, msg);
        CHECK(st == sref && !strcmp(msg, mref), "%s, %s: status %d '%s', one thread %d '%s'", what,
              r->name[k], (int)st, msg, (int)sref, mref);
        CHECK(n == nref && (!n || !memcmp(got, ref, n)),
              "%s, %s: the picture differs from one thread's", what, r->name[k]);
        free(got);
    }
    free(ref);
}

static void check_codestream(void *ctx, const uint8_t *cs, size_t len, const char *name)
{
    runners *r = ctx;
    compare(r, cs, len, name);
    /* Bit flips in the data (after the first 200 bytes: the headers' errors come before
     * any part): the failure, where there is one, is the one thread's. */
    uint8_t *bad = malloc(len);
    unsigned seed = (unsigned)len;
    for (int f = 0; f < r->flips && len > 400; f++) {
        memcpy(bad, cs, len);
        for (int k = 0; k < 1 + f % 3; k++) {
            seed = seed * 1103515245u + 12345u;
            const size_t at = 200 + (seed >> 8) % (len - 200);
            bad[at] ^= (uint8_t)(1u << (seed % 8));
        }
        char what[700];
        snprintf(what, sizeof what, "%s flipped #%d", name, f);
        compare(r, bad, len, what);
    }
    free(bad);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s VECTOR_DIR [UHD_DIR]\n", argv[0]);
        return 2;
    }
    static const int threads[4] = {2, 3, 5, 16};
    runners r = {.name = {"2 threads", "3 threads", "5 threads", "16 threads", "reverse order"}};
    xsf_pool *pool[4] = {NULL};
    xsf_error err;
    reverse_runner rev = {.threads = 4};
    r.rev = &rev;
    CHECK(xs_decoder_create(&r.ref, &err) == XSF_OK, "decoder: %s", err.msg);
    for (int k = 0; k < 5; k++)
        CHECK(xs_decoder_create(&r.dec[k], &err) == XSF_OK, "decoder: %s", err.msg);
    for (int k = 0; k < 4; k++) {
        CHECK(xsf_pool_create(&pool[k], threads[k], &err) == XSF_OK, "pool: %s", err.msg);
        const xsf_parallel par = xsf_pool_parallel(pool[k]);
        xs_decoder_set_parallel(r.dec[k], &par);
    }
    const xsf_parallel par = {.run = reverse_run, .self = &rev, .threads = rev.threads};
    xs_decoder_set_parallel(r.dec[4], &par);
    int frames = 0;
    r.flips = 6;
    const int files = vf_each_codestream(argv[1], check_codestream, &r, &frames);
    CHECK(files > 0 && frames > 0, "no vectors in %s", argv[1]);
    CHECK(r.decoded >= (size_t)frames, "%zu of %d codestreams decoded", r.decoded, frames);
    CHECK(rev.runs > 0, "the decoder never used its runner");
    printf("%d conformance files, %d codestreams\n", files, frames);
    if (argc > 2) {
        r.flips = 1;
        const int uhd = vf_each_codestream(argv[2], check_codestream, &r, &frames);
        printf("%d UHD files%s\n", uhd > 0 ? uhd : 0, uhd > 0 ? "" : " (none there: not checked)");
    }
    /* NULL goes back to one thread: the runner is not called again. */
    const size_t runs = rev.runs;
    xs_decoder_set_parallel(r.dec[4], NULL);
    r.flips = 0;
    vf_each_codestream(argv[1], check_codestream, &r, &frames);
    CHECK(rev.runs == runs, "the runner was called after it was taken away");
    xs_decoder_destroy(r.ref);
    for (int k = 0; k < 5; k++)
        xs_decoder_destroy(r.dec[k]);
    for (int k = 0; k < 4; k++)
        xsf_pool_destroy(pool[k]);
    return xsf_test_finish();
}
