/* The C source of the built-in sets (bpc_tables_builtin_c, `xsflow
 * bpc-train --builtin`): written from the built-in sets themselves and the
 * names their comment gives, it is bpc/tables_builtin.c byte for byte (the
 * codes of the log-odds read back to the same codes); a set saved to a
 * table file and loaded again gives the same text; the sources are joined
 * by spaces; the same through table files on disk (bpc_tables_write_file,
 * bpc_tables_read_file, bpc_tables_builtin_c_file), whose failures name
 * their file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "bpc.h"

extern const char *const bpc_builtin_source; /* tables_builtin.c */

static char *read_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 20];
    *len = fread(buf, 1, sizeof buf - 1, f);
    buf[*len] = 0;
    fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_bpc_tables bpc/tables_builtin.c\n");
        return 2;
    }
    size_t want_len = 0;
    const char *want = read_text(argv[1], &want_len);
    CHECK(want && want_len > 0, "cannot read %s", argv[1]);
    const bpc_tables *t53 = bpc_tables_builtin(BPC_FILTER_53),
                     *t97 = bpc_tables_builtin(BPC_FILTER_97);
    const char *sources[1] = {bpc_builtin_source};
    char *text = NULL;
    size_t len = 0;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(bpc_tables_builtin_c(t53, t97, "t53.bpct", "t97.bpct", sources, 1, &text, &len, &err) ==
              XSF_OK,
          "%s", err.msg);
    CHECK(text && len == strlen(text), "length %zu", len);
    CHECK(want && text && len == want_len && !memcmp(text, want, len),
          "the built-in sets do not write tables_builtin.c again (%zu bytes, expected %zu)", len,
          want_len);
    if (want && text && (len != want_len || memcmp(text, want, len))) {
        size_t i = 0;
        while (i < len && i < want_len && text[i] == want[i])
            i++;
        fprintf(stderr, "first difference at byte %zu\n", i);
    }

    /* Through a table file and back: the same text. */
    uint8_t *file = NULL;
    size_t flen = 0;
    bpc_tables *t = NULL;
    CHECK(bpc_tables_save(t97, &file, &flen, &err) == XSF_OK &&
              bpc_tables_load(&t, file, flen, &err) == XSF_OK,
          "save and load: %s", err.msg);
    char *again = NULL;
    size_t alen = 0;
    if (t)
        CHECK(bpc_tables_builtin_c(t53, t, "t53.bpct", "t97.bpct", sources, 1, &again, &alen,
                                   &err) == XSF_OK &&
                  alen == len && !memcmp(again, text, len),
              "a loaded table file writes the same text");
    free(again);
    bpc_tables_destroy(t);
    free(file);

    /* Several sources: one line, joined by spaces. */
    const char *two[2] = {"a.ppm", "b c.y4m"};
    CHECK(bpc_tables_builtin_c(t53, t97, "x", "y", two, 2, &again, &alen, &err) == XSF_OK &&
              strstr(again, "bpc_builtin_source =\n    \"a.ppm b c.y4m\";\n") &&
              strstr(again, " * from x (5/3) and y (9/7)."),
          "sources and names");
    free(again);

    /* On files (in the working folder): the same text; failures name their file. */
    const char *p53 = "test_bpc_tables_53.bpct", *p97 = "test_bpc_tables_97.bpct",
               *out = "test_bpc_tables_out.c", *subject = NULL;
    bpc_tables *back = NULL;
    CHECK(bpc_tables_write_file(t53, p53, &err) == XSF_OK &&
              bpc_tables_write_file(t97, p97, &err) == XSF_OK &&
              bpc_tables_read_file(&back, p97, &err) == XSF_OK && bpc_tables_id(back) != 0,
          "table files written and read: %s", err.msg);
    bpc_tables_destroy(back);
    CHECK(bpc_tables_builtin_c_file(p53, p97, sources, 1, out, &subject, &err) == XSF_OK,
          "builtin C from files: %s: %s", subject, err.msg);
    char *named = NULL;
    size_t nlen = 0, olen = 0;
    CHECK(bpc_tables_builtin_c(t53, t97, p53, p97, sources, 1, &named, &nlen, &err) == XSF_OK, "%s",
          err.msg);
    const char *written = read_text(out, &olen);
    CHECK(written && named && olen == nlen && !memcmp(written, named, nlen),
          "the file written holds the same text (%zu bytes)", olen);
    free(named);
    xsf_error_clear(&err);
    CHECK(bpc_tables_builtin_c_file(p53, "no-such.bpct", sources, 1, out, &subject, &err) ==
                  XSF_ERR_IO &&
              !strcmp(subject, "no-such.bpct") && !strncmp(err.msg, "cannot open: ", 13),
          "a missing table file: %s", err.msg);
    xsf_error_clear(&err);
    CHECK(bpc_tables_builtin_c_file(out, p97, sources, 1, out, &subject, &err) != XSF_OK &&
              !strcmp(subject, out),
          "not a table file: %s", err.msg);
    xsf_error_clear(&err);
    CHECK(bpc_tables_builtin_c_file(p53, p97, sources, 1, "no/such/dir/out.c", &subject, &err) ==
                  XSF_ERR_IO &&
              !strcmp(subject, "no/such/dir/out.c") && !strcmp(err.msg, "cannot write"),
          "an output that cannot be made: %s", err.msg);
    xsf_error_clear(&err);
    CHECK(bpc_tables_write_file(t53, "no/such/dir/t.bpct", &err) == XSF_ERR_IO,
          "a table file that cannot be made");
    free(text);
    return xsf_test_finish();
}
