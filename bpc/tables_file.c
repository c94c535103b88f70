/* Table files on disk (bpc.h): bpc_tables_load and bpc_tables_save of a
 * whole file, and the built-in sets' C source from two table files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpc.h"

xsf_status bpc_tables_read_file(bpc_tables **t, const char *path, xsf_error *err)
{
    *t = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return xsf_error_set(err, XSF_ERR_IO, "cannot open: %s", strerror(errno));
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    uint8_t *data = size >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)size + 1) : NULL;
    xsf_status st = XSF_OK;
    if (!data)
        st = xsf_error_set(err, size < 0 ? XSF_ERR_IO : XSF_ERR_NOMEM, "cannot read: %s",
                           size < 0 ? strerror(errno) : "out of memory");
    else if (fread(data, 1, (size_t)size, f) != (size_t)size)
        st = xsf_error_set(err, XSF_ERR_IO, "read failed: %s", strerror(errno));
    fclose(f);
    if (st == XSF_OK)
        st = bpc_tables_load(t, data, (size_t)size, err);
    free(data);
    return st;
}

/* Writes len bytes into a new file `path`. */
static xsf_status write_whole(const char *path, const void *data, size_t len, xsf_error *err)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, len, f) == len;
    if (f && fclose(f))
        ok = 0;
    return ok ? XSF_OK : xsf_error_set(err, XSF_ERR_IO, "cannot write");
}

xsf_status bpc_tables_write_file(const bpc_tables *t, const char *path, xsf_error *err)
{
    uint8_t *data = NULL;
    size_t len = 0;
    xsf_status st = bpc_tables_save(t, &data, &len, err);
    if (st == XSF_OK)
        st = write_whole(path, data, len, err);
    free(data);
    return st;
}

xsf_status bpc_tables_builtin_c_file(const char *path53, const char *path97,
                                     const char *const *sources, int nsources, const char *out,
                                     const char **subject, xsf_error *err)
{
    const char *paths[2] = {path53, path97};
    bpc_tables *t[2] = {NULL, NULL};
    xsf_status st = XSF_OK;
    for (int f = 0; f < 2 && st == XSF_OK; f++)
        if ((st = bpc_tables_read_file(&t[f], paths[f], err)) != XSF_OK)
            *subject = paths[f];
    char *text = NULL;
    size_t len = 0;
    if (st == XSF_OK) {
        *subject = out;
        st = bpc_tables_builtin_c(t[0], t[1], path53, path97, sources, nsources, &text, &len, err);
    }
    if (st == XSF_OK)
        st = write_whole(out, text, len, err);
    free(text);
    bpc_tables_destroy(t[0]);
    bpc_tables_destroy(t[1]);
    return st;
}
