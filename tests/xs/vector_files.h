/* The conformance vector files of a directory, for the GPU decoder's tests:
 * each .jxs file its MANIFEST.tsv lists read whole (a missing or empty one
 * fails), and each codestream in it handed to a check (a file may hold
 * several, one after the other). */
#ifndef XSF_TEST_VECTOR_FILES_H
#define XSF_TEST_VECTOR_FILES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "../vector_manifest.h"
#include "xs.h"

/* On the host emulation of CUDA (tests/cuda_emu, XSF_TEST_EMULATED) a decode
 * takes about a thousand times longer than on a GPU: there a picture above a
 * million samples (the HD vectors) goes through a subset of a test's
 * checks, chosen to keep every code path of the small vectors' full set.
 * Every vector is still decoded and compared with the C decoder. */
static inline int vf_subset(size_t samples)
{
#ifdef XSF_TEST_EMULATED
    return samples > ((size_t)1 << 20);
#else
    (void)samples;
    return 0;
#endif
}

/* The whole file in malloc'd memory, NULL when empty or unreadable. */
static inline uint8_t *vf_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    *len = 0;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = n > 0 ? malloc((size_t)n) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = buf ? (size_t)n : 0;
    return buf;
}

/* Calls check(ctx, codestream, bytes, "FILE#N") for every codestream of
 * every vector dir/MANIFEST.tsv lists; checks that each file is there, not
 * empty, and codestreams and nothing else. Returns the files read (-1
 * without a manifest), *frames the codestreams. */
static inline int vf_each_codestream(const char *dir,
                                     void (*check)(void *, const uint8_t *, size_t, const char *),
                                     void *ctx, int *frames)
{
    static vm_list names;
    *frames = 0;
    if (vm_read(dir, &names) < 0)
        return -1;
    int files = 0;
    for (int i = 0; i < names.n; i++) {
        char path[4096];
        if (!vm_check_file(dir, names.name[i], path, sizeof path))
            continue;
        size_t len;
        uint8_t *buf = vf_read(path, &len);
        CHECK(buf != NULL, "cannot read %s", path);
        if (!buf)
            continue;
        size_t off = 0;
        while (off < len) {
            xs_layout lay;
            xsf_error err;
            xsf_error_clear(&err);
            if (xs_scan_layout(buf + off, len - off, &lay, &err) != XSF_OK)
                break;
            const size_t n = lay.codestream_bytes;
            xs_layout_free(&lay);
            char name[600];
            snprintf(name, sizeof name, "%s.jxs#%d", names.name[i], *frames);
            check(ctx, buf + off, n, name);
            off += n;
            (*frames)++;
        }
        CHECK(off == len, "%s.jxs: %zu bytes left after the codestreams", names.name[i], len - off);
        files++;
        free(buf);
    }
    return files;
}

/* The C and the GPU decoder, for checks that compare them. */
typedef void (*vf_pair_check)(xs_decoder *c, xs_gpu_decoder *g, const uint8_t *cs, size_t len,
                              const char *name);
typedef struct vf_pair {
    xs_decoder *c;
    xs_gpu_decoder *g;
    vf_pair_check check;
} vf_pair;

static inline void vf_pair_one(void *ctx, const uint8_t *cs, size_t len, const char *name)
{
    const vf_pair *d = ctx;
    d->check(d->c, d->g, cs, len, name);
}

/* check() on each codestream of the directory's vectors, on its own; says how
 * many were `what` ("decoded into caller planes"). Returns the files read,
 * -1 (and a line saying it is skipped) without the directory. */
static inline int vf_check_dir(xs_decoder *c, xs_gpu_decoder *g, const char *dir,
                               vf_pair_check check, const char *what)
{
    vf_pair d = {c, g, check};
    int frames;
    const int files = vf_each_codestream(dir, vf_pair_one, &d, &frames);
    if (files < 0)
        printf("no vectors in %s (no MANIFEST.tsv): skipped\n", dir);
    else
        printf("%s: %d files, %d codestreams %s\n", dir, files, frames, what);
    return files;
}

#endif
