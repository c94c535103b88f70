/* The demo (service.h, svc_demo_run): a conformance vector sent over UDP
 * loopback, received and decoded on the CPU engine: every picture arrives,
 * each equal to the C decoder's, the first pass's MD5 the manifest's, the
 * file written as long as the pictures; a clip the C decoder refuses is named
 * in the failure and nothing is sent; a clip other than the one expected is
 * not all ok and leaves no file; an output that cannot be written fails
 * before anything runs. */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "service.h"
#include "test.h"

/* seq_5f_422_10b: 5 frames of 320x180 4:2:2 10 bits (vectors/xs/MANIFEST.tsv). */
#define SEQ_MD5 "1c83d94139cb865c8e8da8b1f672b4b4"
#define SEQ_BYTES 1152000u

static void config(svc_demo_config *c, const uint8_t *clip, size_t len, const char *out)
{
    memset(c, 0, sizeof *c);
    c->name = "clip";
    c->clip = clip;
    c->len = len;
    c->loops = 2;
    c->pl.engine = PL_ENGINE_CPU;
    c->out = out;
    c->writer.image.format = out ? imgio_format_from_path(out) : IMGIO_FORMAT_YUV;
}

static void test_demo(const uint8_t *clip, size_t len, const char *work)
{
    char out[4096];
    snprintf(out, sizeof out, "%s/demo.yuv", work);
    remove(out);
    svc_demo_config c;
    config(&c, clip, len, out);
    c.expect_md5 = SEQ_MD5;
    c.expect_bytes = SEQ_BYTES;
    static svc_demo_result r;
    const xsf_status st = svc_demo_run(&c, &r);
    CHECK(st == XSF_OK, "status %d: %s", (int)st, r.nfailures ? r.failure[0].err.msg : "");
    CHECK(r.nfailures == 0 && !r.write_failed, "failures %d", r.nfailures);
    CHECK(r.clip_frames == 5, "clip frames %u", r.clip_frames);
    CHECK(r.frames == 10 && r.matched == 10, "frames %u, matched %u", r.frames, r.matched);
    CHECK(!strcmp(r.clip_md5, SEQ_MD5), "clip MD5 %s", r.clip_md5);
    CHECK(r.clip_bytes == SEQ_BYTES, "clip bytes %llu", (unsigned long long)r.clip_bytes);
    CHECK(r.all_ok, "all arrived and matched, the clip the one expected");
    CHECK(r.sent.segments == 10 && r.sent.packets > 10, "sent %llu frames, %llu packets",
          (unsigned long long)r.sent.segments, (unsigned long long)r.sent.packets);
    CHECK(r.received.packets == r.sent.packets && r.received.lost == 0, "received %llu packets",
          (unsigned long long)r.received.packets);
    CHECK(r.stream.delivered == 10, "delivered %llu", (unsigned long long)r.stream.delivered);
    CHECK(r.port != 0, "port");
    CHECK(!strncmp(r.engine, "CPU", 3), "engine '%s'", r.engine);
    /* The report in words (svc_demo_format), as `xsflow demo` prints it. */
    char text[4096] = "";
    FILE *m = fmemopen(text, sizeof text - 1, "w");
    svc_demo_format(m, &c, &r, "CLIP");
    fclose(m);
    char want[160];
    snprintf(want, sizeof want, "  manifest  MD5 %s over %llu bytes", SEQ_MD5,
             (unsigned long long)SEQ_BYTES);
    CHECK(!strncmp(text, "xsflow demo: sent CLIP 2 times\n", 31) &&
              strstr(text, "  frames    10 of 10 decoded, 10 equal") && strstr(text, want) &&
              strstr(text, "  match     yes\n") && strstr(text, "  wrote     ") &&
              strstr(text, out),
          "demo report:\n%s", text);
    /* --raw's feed: a file without a header, no rate: refused (usage); a .y4m at a rate
     * on the CPU: the encoder's configuration. */
    static pl_encode_config ec;
    svc_failure f;
    CHECK(svc_demo_live_config(&ec, "x.yuv", 2, 0, PL_ENGINE_CPU, &f) != XSF_OK && f.usage &&
              !strcmp(f.subject, "x.yuv"),
          "a .yuv refused: %s", f.err.msg);
    CHECK(svc_demo_live_config(&ec, "x.y4m", 0, 0, PL_ENGINE_CPU, &f) != XSF_OK && f.usage,
          "no rate refused");
    CHECK(svc_demo_live_config(&ec, "x.y4m", 2.5, 3, PL_ENGINE_CPU, &f) == XSF_OK &&
              ec.format == IMGIO_FORMAT_Y4M && ec.settings.bpp == 2.5 && ec.max_frames == 3 &&
              ec.device < 0 && ec.codec,
          "live config: %s", f.err.msg);
    struct stat sb;
    CHECK(stat(out, &sb) == 0 && (uint64_t)sb.st_size == 2u * SEQ_BYTES &&
              r.written == 2u * SEQ_BYTES,
          "written %llu", (unsigned long long)r.written);

    /* A clip other than the one expected: not all ok, and its pictures are not left. */
    config(&c, clip, len, out);
    c.expect_md5 = SEQ_MD5;
    c.expect_bytes = SEQ_BYTES + 1; /* not the clip's: the verdict says so */
    svc_demo_run(&c, &r);
    CHECK(!r.all_ok && r.nfailures == 0 && r.removed && stat(out, &sb) != 0,
          "a clip other than the one expected: all ok %d, removed %d", r.all_ok, r.removed);

    /* An output whose directory does not exist: refused before anything runs. */
    snprintf(out, sizeof out, "%s/no/such/dir/demo.yuv", work);
    config(&c, clip, len, out);
    svc_demo_run(&c, &r);
    CHECK(r.nfailures == 1 && !strcmp(r.failure[0].subject, out) && r.clip_frames == 0 &&
              r.frames == 0 && !r.all_ok,
          "an output that cannot be created fails first (%d failures, '%s', %u frames)",
          r.nfailures, r.nfailures ? r.failure[0].err.msg : "", r.clip_frames);
}

static void test_bad_clip(const uint8_t *clip, size_t len)
{
    uint8_t *bad = malloc(len);
    if (!bad)
        return;
    memcpy(bad, clip, len);
    memset(bad + 2, 0xee, 40); /* the headers of the first codestream */
    svc_demo_config c;
    config(&c, bad, len, NULL);
    static svc_demo_result r;
    CHECK(svc_demo_run(&c, &r) != XSF_OK, "a clip the C decoder refuses");
    CHECK(r.nfailures == 1 && !strcmp(r.failure[0].subject, "clip") && r.failure[0].err.msg[0],
          "named as the clip: %s", r.nfailures ? r.failure[0].subject : "-");
    CHECK(r.sent.segments == 0 && r.frames == 0, "nothing sent");
    free(bad);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_demo VECTOR_DIR WORK_DIR\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/seq_5f_422_10b.jxs", argv[1]);
    FILE *f = fopen(path, "rb");
    static uint8_t clip[1 << 20];
    const size_t len = f ? fread(clip, 1, sizeof clip, f) : 0;
    if (f)
        fclose(f);
    CHECK(len > 0, "%s", path);
    if (len) {
        test_demo(clip, len, argv[2]);
        test_bad_clip(clip, len);
    }
    return xsf_test_finish();
}
