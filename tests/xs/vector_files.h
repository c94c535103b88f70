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

/* The whole file in malloc'd memory, NULL when empty or unreadable. */
static uint8_t *vf_read(const char *path, size_t *len)
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
static int vf_each_codestream(const char *dir, void (*check)(void *, const uint8_t *, size_t, const char *),
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

#endif
