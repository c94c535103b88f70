/* The conformance vector files of a directory, for the GPU decoder's tests:
 * each .jxs file read whole, and each codestream in it handed to a check
 * (a file may hold several, one after the other). */
#ifndef XSF_TEST_VECTOR_FILES_H
#define XSF_TEST_VECTOR_FILES_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
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
 * every .jxs file in dir; checks that each file is codestreams and nothing
 * else. Returns the files read (-1 without the directory), *frames the
 * codestreams. */
static inline int vf_each_codestream(const char *dir, void (*check)(void *, const uint8_t *, size_t, const char *),
                              void *ctx, int *frames)
{
    DIR *dp = opendir(dir);
    *frames = 0;
    if (!dp)
        return -1;
    struct dirent *e;
    int files = 0;
    while ((e = readdir(dp))) {
        const size_t nl = strlen(e->d_name);
        if (nl < 5 || strcmp(e->d_name + nl - 4, ".jxs"))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        uint8_t *buf = vf_read(path, &len);
        if (!buf)
            continue; /* empty placeholder files carry no codestream */
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
            snprintf(name, sizeof name, "%s#%d", e->d_name, *frames);
            check(ctx, buf + off, n, name);
            off += n;
            (*frames)++;
        }
        CHECK(off == len, "%s: %zu bytes left after the codestreams", e->d_name, len - off);
        files++;
        free(buf);
    }
    closedir(dp);
    return files;
}

/* Every vector that dir's MANIFEST.tsv lists (the first column of each row
 * after the header) is a non-empty NAME.jxs there, so that a test walking
 * the folder's files compares them all. Returns the vectors listed; 0 and
 * no check where the folder has no manifest (UHD_DIR). */
static inline int vf_check_manifest(const char *dir)
{
    char path[4096], line[8192];
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int listed = 0, first = 1;
    while (fgets(line, sizeof line, f)) {
        const size_t n = strcspn(line, "\t\r\n");
        if (first || n == 0) {
            first = 0;
            continue;
        }
        line[n] = 0;
        snprintf(path, sizeof path, "%s/%.255s.jxs", dir, line);
        size_t len;
        uint8_t *buf = vf_read(path, &len);
        CHECK(buf != NULL, "%s: listed in the manifest, missing or empty", path);
        free(buf);
        listed++;
    }
    fclose(f);
    CHECK(listed > 0, "%s/MANIFEST.tsv lists no vector", dir);
    return listed;
}

/* The C and the GPU decoder, for checks that compare them. */
typedef void (*vf_pair_check)(xs_decoder *c, xs_gpu_decoder *g, const uint8_t *cs, size_t len, const char *name);
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

/* check() on each codestream of the directory's files, on its own; says how
 * many were `what` ("decoded into caller planes"). Returns the files read,
 * -1 (and a line saying it is skipped) without the directory. */
static inline int vf_check_dir(xs_decoder *c, xs_gpu_decoder *g, const char *dir, vf_pair_check check, const char *what)
{
    vf_pair d = {c, g, check};
    int frames;
    const int files = vf_each_codestream(dir, vf_pair_one, &d, &frames);
    if (files < 0)
        printf("no directory %s: skipped\n", dir);
    else
        printf("%s: %d files, %d codestreams %s\n", dir, files, frames, what);
    return files;
}

#endif
