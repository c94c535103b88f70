/* The conformance vectors of a directory are the names its MANIFEST.tsv
 * lists (vectors/README.md), not whatever .jxs files lie there: a test that
 * walked the directory skipped an empty or missing vector without a word
 * and would take in a stray file. vm_read gives the names; vm_check_file
 * fails the test (CHECK) where a listed file is missing or empty. */
#ifndef XSF_TEST_VECTOR_MANIFEST_H
#define XSF_TEST_VECTOR_MANIFEST_H

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "test.h"

#define VM_MAX_VECTORS 256
#define VM_MAX_NAME 96

typedef struct vm_list {
    int n;
    char name[VM_MAX_VECTORS][VM_MAX_NAME];
} vm_list;

/* The first column of DIR/MANIFEST.tsv's rows after the header, in the
 * manifest's order. Returns the count, or -1 without a manifest: a failed
 * CHECK where DIR exists, since a vector directory has one; nothing where DIR
 * does not (an optional directory; the caller says it is skipped). */
static int vm_read(const char *dir, vm_list *l)
{
    char path[4096], line[4096];
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
    l->n = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        struct stat st;
        CHECK(stat(dir, &st) != 0, "%s: a vector directory without a MANIFEST.tsv", dir);
        return -1;
    }
    for (int row = 0; fgets(line, sizeof line, f); row++) {
        const size_t len = strcspn(line, "\t\r\n");
        if (row == 0 || len == 0)
            continue; /* the header ("name	source	..."), blank lines */
        CHECK(len < VM_MAX_NAME && l->n < VM_MAX_VECTORS,
              "%s row %d: name too long or too many rows", path, row);
        if (len >= VM_MAX_NAME || l->n >= VM_MAX_VECTORS)
            continue;
        memcpy(l->name[l->n], line, len);
        l->name[l->n++][len] = 0;
    }
    fclose(f);
    return l->n;
}

/* DIR/NAME.jxs into path; CHECKs that it exists and is not empty. Returns
 * 1 where it can be read. */
static int vm_check_file(const char *dir, const char *name, char *path, size_t cap)
{
    struct stat st;
    snprintf(path, cap, "%s/%s.jxs", dir, name);
    const int ok = stat(path, &st) == 0 && st.st_size > 0;
    CHECK(ok, "%s: listed in %s/MANIFEST.tsv but missing or empty", path, dir);
    return ok;
}

#endif
