/* What the headers say in words (xs_header_describe, `xsflow info`): the
 * lines of a 4:2:2 and a 4:2:0 vector with their values, the warning after
 * the profile's line, the weights with verbose, the length returned when
 * the buffer is short (cut and NUL-terminated); xs_header_same ignores
 * Lcod and the headers' length and nothing else. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "xs.h"

static int header_of(const char *dir, const char *name, xs_header *h)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    static uint8_t buf[1 << 16];
    const size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f)
        fclose(f);
    xsf_error err;
    xsf_error_clear(&err);
    const int ok = n > 0 && xs_parse_header(buf, n, h, &err) == XSF_OK;
    CHECK(ok, "%s: %s", path, err.msg);
    return ok;
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "vectors/xs";
    xs_header h, h420;
    if (!header_of(dir, "fmt_yuv422_10b.jxs", &h) || !header_of(dir, "fmt_yuv420_8b.jxs", &h420))
        return xsf_test_finish();
    static char text[8192], with[8192], verbose[8192], cut[40];
    const size_t n = xs_header_describe(&h, 0, NULL, text, sizeof text);
    CHECK(n == strlen(text) && n > 0, "length %zu", n);
    static const char picture[] = "  picture       320x180, 3 components, 4:2:2, 10 bits\n";
    CHECK(!strncmp(text, picture, strlen(picture)), "picture line: %.60s", text);
    CHECK(strstr(
              text,
              "\n  components    0: 320x180 10 bits (sx 1, sy 1); 1: 160x180 10 bits (sx 2, sy 1); "
              "2: 160x180 10 bits (sx 2, sy 1)\n") != NULL,
          "components");
    CHECK(strstr(text, "\n  profile       ") && strstr(text, "\n  slices        ") &&
              strstr(text, "\n  colour        Cpih 0 (no colour transform)\n") &&
              strstr(text, "\n  NLT           none (linear output)\n") &&
              strstr(text, "\n  CAP           0x"),
          "the lines");
    CHECK(lines(text) == 13 && text[n - 1] == '\n' && !strstr(text, "warning") &&
              !strstr(text, "weights"),
          "13 lines, %d", lines(text));
    CHECK(xs_header_describe(&h420, 0, NULL, with, sizeof with) > 0 &&
              strstr(with, ", 4:2:0, 8 bits\n"),
          "4:2:0: %.60s", with);

    /* The warning as its own line after the profile's. */
    const size_t nw = xs_header_describe(&h, 0, "level too small", with, sizeof with);
    const char *prof = strstr(with, "  profile       ");
    const char *warn = strstr(with, "\n  warning       level too small\n");
    CHECK(nw == n + strlen("  warning       level too small\n") && prof && warn &&
              warn == strchr(prof, '\n'),
          "warning after the profile");

    /* Verbose: the weights, twelve a line. */
    const size_t nv = xs_header_describe(&h, 1, NULL, verbose, sizeof verbose);
    CHECK(nv > n && !strncmp(verbose, text, n) && strstr(verbose + n, "  weights       ") &&
              lines(verbose) == 13 + 1 + (h.nbands + 11) / 12,
          "weights: %d lines for %d bands", lines(verbose), h.nbands);

    /* A short buffer: the whole length returned, the text cut and terminated. */
    CHECK(xs_header_describe(&h, 0, NULL, cut, sizeof cut) == n && strlen(cut) == sizeof cut - 1 &&
              !strncmp(cut, text, sizeof cut - 1),
          "cut");
    CHECK(xs_header_describe(&h, 0, NULL, NULL, 0) == n, "length alone");

    /* Equal headers but for Lcod and the headers' length. */
    xs_header a = h, b = h;
    b.lcod = h.lcod + 100;
    b.header_bytes = h.header_bytes + 3;
    CHECK(xs_header_same(&a, &b), "Lcod and header bytes ignored");
    b = h;
    b.wf = h.wf + 2;
    CHECK(!xs_header_same(&a, &b), "width");
    b = h;
    b.nlx = (uint8_t)(h.nlx + 1);
    CHECK(!xs_header_same(&a, &b), "NLx");
    CHECK(!xs_header_same(&h, &h420), "two vectors");
    return xsf_test_finish();
}
