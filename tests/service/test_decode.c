/* `xsflow decode`'s work (service/include/svc_decode.h): a conformance vector
 * decoded on the CPU engine into a .yuv file, its MD5 and sizes; and the report
 * of a decode in words (svc_decode_result_format): the MD5 line, the summary
 * (one file, frame files, standard output, one frame), nothing with quiet. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svc_decode.h"
#include "test.h"

/* The report of r as svc_decode_result_format writes it (free it). */
static char *report(const svc_decode_config *c, const svc_decode_result *r, int quiet)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    svc_decode_result_format(f, c, r, quiet);
    fclose(f);
    return text;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_decode VECTOR_DIR WORK_DIR\n");
        return 2;
    }
    char in[512], out[512], want[2048];
    snprintf(in, sizeof in, "%s/seq_5f_422_10b.jxs", argv[1]);
    snprintf(out, sizeof out, "%s/d.yuv", argv[2]);
    svc_decode_config c;
    memset(&c, 0, sizeof c);
    c.in = in;
    c.out = out;
    c.format = IMGIO_FORMAT_YUV;
    c.md5 = 1;
    c.pl.engine = PL_ENGINE_CPU;
    static svc_decode_result r;
    svc_failure f;
    CHECK(svc_decode_file(&c, &r, &f) == XSF_OK, "decode: %s", f.err.msg);
    CHECK(r.frames == 5 && r.bytes == 1152000 && r.files == 1 && r.file_bytes == 1152000 &&
              !strcmp(r.first_path, out) && r.source == XSF_OK && r.close == XSF_OK &&
              !r.not_decoded,
          "5 frames into one file: %llu", (unsigned long long)r.frames);
    /* vectors/xs/MANIFEST.tsv's MD5 of the vector's pictures in .yuv layout */
    CHECK(!strcmp(r.md5, "1c83d94139cb865c8e8da8b1f672b4b4"), "MD5 %s", r.md5);

    char *text = report(&c, &r, 0);
    snprintf(want, sizeof want,
             "%s  %s (5 frames, 1152000 bytes in .yuv layout)\n"
             "decoded 5 frames (320x180, 3 components, 4:2:2, 10 bits) from %s into %s (1 file, "
             "1152000 bytes) in ",
             r.md5, in, in, out);
    CHECK(text && !strncmp(text, want, strlen(want)), "the MD5 line and the summary: %s",
          text ? text : "");
    CHECK(text && strstr(text, "frames/s (CPU") && strstr(text, ", steady ") &&
              strstr(text, ")\nstart-up: ") && text[strlen(text) - 1] == '\n',
          "the engine, the steady rate, the start-up: %s", text ? text : "");
    free(text);

    text = report(&c, &r, 1);
    CHECK(text && strchr(text, '\n') && !strchr(text, '\n')[1] && strstr(text, r.md5) == text,
          "quiet: the MD5 only: %s", text);
    free(text);

    /* Frame files; standard output; one frame (no steady rate); no MD5. */
    c.md5 = 0;
    r.files = 2;
    snprintf(r.first_path, sizeof r.first_path, "o-0000.ppm");
    snprintf(r.last_path, sizeof r.last_path, "o-0001.ppm");
    text = report(&c, &r, 0);
    CHECK(text &&
              strstr(text, "into o-0000.ppm to o-0001.ppm (2 files, ") == strstr(text, "into") &&
              !strncmp(text, "decoded 5 frames", 16),
          "frame files: %s", text ? text : "");
    free(text);
    c.out = "-";
    r.frames = 1;
    r.files = 1;
    text = report(&c, &r, 0);
    CHECK(text && strstr(text, "decoded 1 frame (") &&
              strstr(text, "into standard output (1 file,") && !strstr(text, "steady"),
          "standard output, one frame: %s", text ? text : "");
    free(text);
    c.out = NULL;
    text = report(&c, &r, 0);
    CHECK(text && !*text, "no output, no MD5: nothing: %s", text ? text : "");
    free(text);
    return xsf_test_finish();
}
