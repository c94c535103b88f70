/* Tests of the .yuv writer (pl_writer, pipeline/sinks.c): clips decoded by
 * the pipeline's CPU stage and written by it equal the C decoder's bytes
 * exactly, file size included:
 *   - into a regular file (several threads copying frames into shared
 *     mappings of it), in the work directory and in /dev/shm (tmpfs) where
 *     there is one: frames of 230400 bytes (15 of them: a size that is not
 *     a multiple of the page size), frames of 3072 bytes (several frames to
 *     a page, written by different threads), woven interlaced frames, and
 *     over a longer file that was there before;
 *   - into a pipe and /dev/null (no places to write at: frames in order);
 *     a directory refused at open;
 *   - a file that cannot grow (RLIMIT_FSIZE) and /dev/full: an error from
 *     the writer, no crash (no SIGBUS), the frames before it intact.
 *
 * usage: test_writer VECTOR_DIR WORK_DIR */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "jxs_file.h"
#include "pipeline.h"
#include "test.h"
#include "xs.h"

static const char *vector_dir;

typedef struct bytes {
    uint8_t *data;
    size_t len, cap;
} bytes;

static int bytes_sink(void *ctx, const uint8_t *data, size_t len)
{
    bytes *b = ctx;
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 16;
        while (cap < b->len + len)
            cap *= 2;
        uint8_t *n = realloc(b->data, cap);
        if (!n)
            return 1;
        b->data = n;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}

static uint8_t *read_vector(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.jxs", vector_dir, name);
    uint8_t *data;
    xsf_error err;
    xsf_error_clear(&err);
    if (imgio_read_file(path, &data, len, &err) != XSF_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        return NULL;
    }
    return data;
}

/* The C reference decoder's .yuv bytes of `frames` frames of a clip (two
 * codestreams woven into each where interlaced), the clip read again from
 * its start as often as it takes. */
static int reference(const uint8_t *data, size_t len, int interlaced, unsigned frames, bytes *out)
{
    xs_decoder *dec[2];
    if (xs_decoder_create(&dec[0], NULL) != XSF_OK)
        return -1;
    if (xs_decoder_create(&dec[1], NULL) != XSF_OK) {
        xs_decoder_destroy(dec[0]);
        return -1;
    }
    int bad = 0;
    size_t off = 0;
    uint16_t *woven = NULL;
    for (unsigned f = 0; f < frames && !bad; f++) {
        xsf_picture field[2];
        for (int k = 0; k <= interlaced && !bad; k++) {
            if (off == len)
                off = 0;
            size_t consumed;
            const xsf_picture *img;
            bad = xs_decode(dec[k], data + off, len - off, &consumed, &img) != XSF_OK;
            if (!bad)
                field[k] = *img;
            off += consumed;
        }
        xsf_picture pic = field[0];
        if (!bad && interlaced) {
            xsf_error err;
            xsf_error_clear(&err);
            size_t samples;
            bad = imgio_weave_size(&field[0], &field[1], &samples, &err) != XSF_OK ||
                  !(woven = realloc(woven, samples * sizeof *woven)) ||
                  imgio_weave(&field[0], &field[1], woven, samples, &pic, &err) != XSF_OK;
        }
        if (!bad)
            bad = imgio_yuv_serialize(&pic, bytes_sink, out) != 0;
    }
    free(woven);
    xs_decoder_destroy(dec[0]);
    xs_decoder_destroy(dec[1]);
    return bad ? -1 : 0;
}

static pl_pipeline *make_pipeline(void)
{
    pl_config c;
    memset(&c, 0, sizeof c);
    c.engine = PL_ENGINE_CPU;
    c.cpu_threads = 3;
    pl_pipeline *p;
    xsf_error err;
    xsf_error_clear(&err);
    if (pl_create(&p, &c, &err) != XSF_OK) {
        fprintf(stderr, "pl_create: %s\n", err.msg);
        return NULL;
    }
    return p;
}

/* Decodes `passes` times over the clip (interlaced: at most max_frames
 * frames a pass) into a .yuv writer of `path`; returns pl_writer_close's
 * status (its error in *err) and the frames it wrote. */
static xsf_status write_clip(pl_pipeline *p, const char *path, const uint8_t *data, size_t len,
                             int passes, int interlaced, uint64_t max_frames, uint64_t *written,
                             xsf_error *err)
{
    pl_writer_options wo;
    memset(&wo, 0, sizeof wo);
    wo.image.format = IMGIO_FORMAT_YUV;
    pl_writer *w;
    *written = 0;
    xsf_status st = pl_writer_open(&w, path, &wo, err);
    if (st != XSF_OK)
        return st;
    pl_stream_config sc = {
        .name = path, .backpressure = PL_BLOCK, .frames = 6, .sink = pl_writer_sink(w)};
    int sid;
    if ((st = pl_stream_add(p, &sc, &sid, err)) != XSF_OK) {
        pl_writer_close(w, err);
        return st;
    }
    for (int i = 0; i < passes && st == XSF_OK; i++) {
        uint64_t n;
        st = pl_jxs_source_run(p, sid, data, len, interlaced, max_frames, &n, err);
    }
    pl_stream_remove(p, sid, NULL);
    *written = pl_writer_frames(w);
    xsf_error cerr;
    xsf_error_clear(&cerr);
    const xsf_status cst = pl_writer_close(w, &cerr);
    if (st == XSF_OK && cst != XSF_OK)
        *err = cerr;
    return st != XSF_OK ? st : cst;
}

static int read_back(const char *path, bytes *b)
{
    xsf_error err;
    xsf_error_clear(&err);
    struct stat sb;
    if (stat(path, &sb))
        return -1;
    b->len = b->cap = 0;
    b->data = NULL;
    if (!sb.st_size)
        return 0;
    if (imgio_read_file(path, &b->data, &b->len, &err) != XSF_OK)
        return -1;
    b->cap = b->len;
    return 0;
}

typedef struct clip {
    const char *name;
    int passes, interlaced;
    uint64_t max_frames; /* a pass */
    unsigned frames;     /* written in all */
} clip;

static const clip clips[] = {
    {"seq_5f_422_10b", 3, 0, 0, 15},  /* 15 x 230400 bytes: 843.75 pages of 4096 */
    {"geom_32x16_444", 41, 0, 0, 41}, /* 3072-byte frames, several to a page */
    {"seq_5f_422_10b", 1, 1, 2, 2},   /* two woven 320x360 frames */
};

/* Each clip into a regular file in `dir`, the file there before longer than
 * what is written: byte for byte the reference, of its size exactly. */
static void test_regular_file(pl_pipeline *p, const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/test_writer_%d.yuv", dir, (int)getpid());
    for (size_t i = 0; i < sizeof clips / sizeof *clips; i++) {
        const clip *c = &clips[i];
        size_t len;
        uint8_t *data = read_vector(c->name, &len);
        CHECK(data != NULL, "%s", c->name);
        if (!data)
            continue;
        bytes want = {0};
        CHECK(reference(data, len, c->interlaced, c->frames, &want) == 0, "%s: reference", c->name);
        /* What was there before, longer than the output: gone. */
        FILE *old = fopen(path, "wb");
        CHECK(old != NULL, "%s: %s", path, strerror(errno));
        if (old) {
            for (size_t k = 0; k < want.len + 5000; k++)
                fputc(0xa5, old);
            fclose(old);
        }
        xsf_error err;
        xsf_error_clear(&err);
        uint64_t written;
        const xsf_status st =
            write_clip(p, path, data, len, c->passes, c->interlaced, c->max_frames, &written, &err);
        CHECK(st == XSF_OK, "%s into %s: %s", c->name, path, err.msg);
        CHECK(written == c->frames, "%s: %llu frames written, %u expected", c->name,
              (unsigned long long)written, c->frames);
        bytes got = {0};
        CHECK(read_back(path, &got) == 0, "%s: read back", path);
        CHECK(got.len == want.len, "%s into %s: %zu bytes, reference %zu", c->name, path, got.len,
              want.len);
        CHECK(got.len == want.len && !memcmp(got.data, want.data, want.len),
              "%s into %s: bytes differ from the reference", c->name, path);
        if (i == 0)
            CHECK(want.len % 4096, "%s: %zu bytes, a multiple of 4096", c->name, want.len);
        free(got.data);
        free(want.data);
        free(data);
    }
    unlink(path);
}

typedef struct pipe_reader {
    int fd;
    bytes got;
    int failed;
} pipe_reader;

static void *read_pipe(void *arg)
{
    pipe_reader *r = arg;
    uint8_t buf[65536];
    for (;;) {
        const ssize_t n = read(r->fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            r->failed = n < 0;
            return NULL;
        }
        if (bytes_sink(&r->got, buf, (size_t)n)) {
            r->failed = 1;
            return NULL;
        }
    }
}

/* A pipe (by its /dev/fd name, as a shell's process substitution gives it)
 * and /dev/null: the frames in order, all of them. A directory: refused when
 * the writer opens. */
static void test_pipe_and_null(pl_pipeline *p, const char *dir)
{
    const clip *c = &clips[0];
    size_t len;
    uint8_t *data = read_vector(c->name, &len);
    CHECK(data != NULL, "%s", c->name);
    if (!data)
        return;
    bytes want = {0};
    CHECK(reference(data, len, 0, c->frames, &want) == 0, "%s: reference", c->name);

    int fds[2];
    CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
    pipe_reader r = {fds[0], {0}, 0};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, read_pipe, &r) == 0, "reader thread");
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fds[1]);
    xsf_error err;
    xsf_error_clear(&err);
    uint64_t written;
    xsf_status st = write_clip(p, path, data, len, c->passes, 0, 0, &written, &err);
    close(fds[1]);
    pthread_join(t, NULL);
    close(fds[0]);
    CHECK(st == XSF_OK, "into a pipe: %s", err.msg);
    CHECK(written == c->frames, "into a pipe: %llu frames written", (unsigned long long)written);
    CHECK(!r.failed && r.got.len == want.len && !memcmp(r.got.data, want.data, want.len),
          "into a pipe: %zu bytes read, reference %zu, or they differ", r.got.len, want.len);
    free(r.got.data);

    xsf_error_clear(&err);
    st = write_clip(p, "/dev/null", data, len, c->passes, 0, 0, &written, &err);
    CHECK(st == XSF_OK && written == c->frames, "into /dev/null: %llu frames: %s",
          (unsigned long long)written, err.msg);

    pl_writer_options wo;
    memset(&wo, 0, sizeof wo);
    wo.image.format = IMGIO_FORMAT_YUV;
    pl_writer *w = NULL;
    xsf_error_clear(&err);
    CHECK(pl_writer_open(&w, dir, &wo, &err) == XSF_ERR_IO && !w, "a directory: '%s'", err.msg);

    /* /dev/full: every write fails; the writer says so. */
    xsf_error_clear(&err);
    st = write_clip(p, "/dev/full", data, len, 1, 0, 0, &written, &err);
    CHECK(st == XSF_ERR_IO && strstr(err.msg, "No space"), "into /dev/full: status %d, '%s'",
          (int)st, err.msg);
    free(want.data);
    free(data);
}

/* A file that may not grow past 2.5 frames (RLIMIT_FSIZE, as a full disk
 * without the need of one): the write of the third frame fails as an error
 * of the writer, not as a SIGBUS through a mapping; the first two frames are
 * in the file as the reference has them and the third is not whole. On tmpfs
 * (claimed; it has fallocate): the third frame's space is claimed before a
 * byte of it is stored, so none of it is there. */
static void test_cannot_grow(pl_pipeline *p, const char *dir, int claimed)
{
    const clip *c = &clips[0];
    size_t len;
    uint8_t *data = read_vector(c->name, &len);
    CHECK(data != NULL, "%s", c->name);
    if (!data)
        return;
    bytes want = {0};
    CHECK(reference(data, len, 0, c->frames, &want) == 0, "%s: reference", c->name);
    const size_t frame = want.len / c->frames;
    char path[1024];
    snprintf(path, sizeof path, "%s/test_writer_limit_%d.yuv", dir, (int)getpid());

    struct rlimit old, lim;
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0, "getrlimit");
    signal(SIGXFSZ, SIG_IGN); /* an EFBIG error instead of the signal */
    lim = old;
    lim.rlim_cur = (rlim_t)(frame * 5 / 2);
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit: %s", strerror(errno));
    xsf_error err;
    xsf_error_clear(&err);
    uint64_t written;
    const xsf_status st = write_clip(p, path, data, len, c->passes, 0, 0, &written, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_DFL);

    CHECK(st == XSF_ERR_IO && strstr(err.msg, "too large"), "%s past RLIMIT_FSIZE: status %d, '%s'",
          path, (int)st, err.msg);
    CHECK(written == 2, "%s: %llu frames written, 2 fit", path, (unsigned long long)written);
    bytes got = {0};
    CHECK(read_back(path, &got) == 0, "%s: read back", path);
    CHECK(got.len >= 2 * frame && got.len < 3 * frame && !memcmp(got.data, want.data, 2 * frame),
          "%s: %zu bytes (frames of %zu), or the first two differ from the reference", path,
          got.len, frame);
    if (claimed)
        CHECK(got.len == 2 * frame, "%s: %zu bytes, the first two frames %zu", path, got.len,
              2 * frame);
    free(got.data);
    free(want.data);
    free(data);
    unlink(path);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_writer VECTOR_DIR WORK_DIR\n");
        return 2;
    }
    vector_dir = argv[1];
    pl_pipeline *p = make_pipeline();
    CHECK(p != NULL, "pipeline");
    if (!p)
        return xsf_test_finish();
    struct stat sb;
    struct statfs fs;
    const int shm = !stat("/dev/shm", &sb) && S_ISDIR(sb.st_mode) && !access("/dev/shm", W_OK);
    const int tmpfs = shm && !statfs("/dev/shm", &fs) && fs.f_type == 0x01021994; /* TMPFS_MAGIC */
    if (!shm)
        printf("no writable /dev/shm: the tmpfs cases are skipped\n");
    test_regular_file(p, argv[2]);
    if (shm)
        test_regular_file(p, "/dev/shm");
    test_pipe_and_null(p, argv[2]);
    test_cannot_grow(p, argv[2], 0);
    if (shm)
        test_cannot_grow(p, "/dev/shm", tmpfs);
    pl_destroy(p);
    return xsf_test_finish();
}
