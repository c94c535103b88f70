/* Sinks of the pipeline: the file writer on threads of its own and the null
 * sink. */
#define _GNU_SOURCE /* fallocate */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "md5.h"
#include "pipeline.h"
#include "xsf_output.h"

/* The writer's queue holds frames of one stream; a stream has at most 1024
 * frames (pl_stream_add), so the ring never overflows. */
#define WRITER_RING 1024
/* Threads of a .yuv writer into a regular file: each frame's place in the
 * file is known when it is delivered (frames leave in order), so several
 * threads write different frames at once. Not with write(): tmpfs and the
 * usual disk file systems hold the file's inode lock (i_rwsem) through a
 * whole buffered write, so writes to one file go one at a time however many threads
 * make them. The threads copy each frame into a shared mapping of its place
 * instead: a page fault takes no inode lock, so the pages of one file are
 * filled on several cores at once. */
#define WRITER_THREADS 4
/* Threads of an MD5 writer: three eighths of the cores, at least WRITER_THREADS and at
 * most this many (md5_threads). */
#define WRITER_THREADS_MAX 8

struct pl_writer {
    pl_writer_options opt;
    char *path;
    FILE *jxs; /* .jxs output, or PL_WRITE_MD5's lines */
    imgio_writer *w;
    app_md5 md5;
    pthread_t thread[WRITER_THREADS_MAX];
    unsigned nthreads;
    int fd;               /* parallel .yuv output (a regular file), else -1 */
    size_t page;          /* fd: the page size, of which mmap offsets are multiples */
    uint64_t next_offset; /* where the next delivered frame goes */
    uint64_t written_end; /* the end of the furthest frame written: the size at close */
    /* Claiming the file's space, under a lock of its own so that delivery
     * never waits on the file system: */
    pthread_mutex_t space_mu;
    int mapped;       /* fd: frames go through shared mappings, else pwrite */
    uint64_t claimed; /* fd, mapped: bytes of the file whose space is claimed */
    pthread_mutex_t mu;
    pthread_cond_t cv, idle;
    pl_frame *ring[WRITER_RING];
    uint64_t offset[WRITER_RING];
    unsigned head, count;
    int busy, stopping, started;
    uint64_t frames, bytes;
    xsf_picture shape; /* the first frame's format (fields woven), no planes */
    xsf_error err;     /* the first failure; later frames are released unwritten */
};

/* Whether a frame's picture has host planes the writers read (any container). */
static int host_picture(const xsf_picture *p)
{
    return p->memory != XSF_MEMORY_DEVICE && p->fmt.nc && p->data[0];
}

/* A frame as one picture: progressive as it is, two fields woven (the first
 * on the even lines, RFC 9134 / ST 2110 order) into `scratch`, the calling
 * writer thread's own buffer, grown when a frame needs more. */
typedef struct scratch {
    uint16_t *buf;
    size_t samples;
    xsf_picture converted; /* pl_writer_options.pix_fmt: the planes of a converted frame */
} scratch;

/* Whether a planar 16-bit picture is converted to opt.pix_fmt before it is written. */
static int converts(const pl_writer *wr, const xsf_format *f)
{
    return wr->opt.kind == PL_WRITE_PICTURE && wr->opt.pix_fmt != XSF_PLANAR_U16 &&
           f->container == XSF_PLANAR_U16;
}

/* The colour a frame is converted with: the user's, else the picture's or the
 * codestream's (as the PPM writer picks). */
static xsf_colour frame_colour(const pl_writer *wr, const pl_frame *f)
{
    xsf_colour c = wr->opt.image.colour;
    if (f->picture[0].colour.source > c.source)
        c = f->picture[0].colour;
    if (c.source == XSF_COLOUR_DEFAULT && (f->described & 1u) &&
        f->desc[0].colour.source == XSF_COLOUR_CODESTREAM)
        c = f->desc[0].colour;
    return c;
}

/* A frame's picture as written: its fields woven, converted to opt.pix_fmt. */
static void frame_format(const pl_writer *wr, const pl_frame *f, xsf_format *out)
{
    *out = f->picture[0].fmt;
    if (f->fields == 2)
        for (int c = 0; c < out->nc; c++)
            out->height[c] += f->picture[1].fmt.height[c];
    const xsf_colour colour = frame_colour(wr, f);
    xsf_format conv;
    if (converts(wr, out) &&
        xsf_format_convert(out, &colour, wr->opt.pix_fmt, &conv, NULL) == XSF_OK)
        *out = conv;
}

/* pic converted to opt.pix_fmt into sc->converted (planes kept from frame to frame). */
static xsf_status convert_picture(const pl_writer *wr, const pl_frame *f, scratch *sc,
                                  xsf_picture *pic, xsf_error *err)
{
    pic->colour = frame_colour(wr, f);
    xsf_format want;
    xsf_status st = xsf_format_convert(&pic->fmt, &pic->colour, wr->opt.pix_fmt, &want, err);
    if (st != XSF_OK)
        return st;
    if (!sc->converted.ref || !xsf_format_equal(&sc->converted.fmt, &want)) {
        xsf_picture_unref(&sc->converted);
        sc->converted.fmt = want;
        if ((st = xsf_picture_alloc(&sc->converted, NULL, err)) != XSF_OK)
            return st;
    }
    if ((st = xsf_picture_convert(&sc->converted, pic, err)) != XSF_OK)
        return st;
    *pic = sc->converted;
    pic->ref = NULL; /* a view: the scratch holds the planes */
    return XSF_OK;
}

/* The scratch buffer grown to hold at least `bytes`. */
static xsf_status scratch_reserve(scratch *sc, size_t bytes, xsf_error *err)
{
    const size_t need = (bytes + 1) / 2;
    if (need > sc->samples) {
        uint16_t *b = realloc(sc->buf, need * sizeof *b);
        if (!b)
            return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory to weave a frame");
        sc->buf = b;
        sc->samples = need;
    }
    return XSF_OK;
}

/* Two fields in a pixel format other than planar16 (the pipeline's picture request
 * converts each field alone) woven plane by plane: row r of each plane of the first
 * field on row 2r of the frame's, the second's on row 2r + 1. The frame's components
 * are the fields' with the heights added, which must give the planes' rows (a 4:2:0
 * format of fields of odd height does not weave). */
static xsf_status weave_planes(const xsf_picture *first, const xsf_picture *second, scratch *sc,
                               xsf_picture *frame, xsf_error *err)
{
    xsf_picture out = *first;
    out.ref = NULL;
    for (int c = 0; c < out.fmt.nc; c++)
        out.fmt.height[c] += second->fmt.height[c];
    const int planes = xsf_format_planes(&out.fmt);
    xsf_status st = xsf_format_check(&out.fmt, err);
    for (int p = 0; st == XSF_OK && p < planes; p++)
        if (xsf_format_plane_rows(&out.fmt, p) !=
            xsf_format_plane_rows(&first->fmt, p) + xsf_format_plane_rows(&second->fmt, p))
            st = xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                               "%s fields of %d rows do not weave into a frame of %d rows",
                               xsf_container_name(out.fmt.container), first->fmt.height[0],
                               out.fmt.height[0]);
    if (st != XSF_OK || (st = scratch_reserve(sc, xsf_format_bytes(&out.fmt), err)) != XSF_OK)
        return st;
    uint8_t *at = (uint8_t *)sc->buf;
    for (int p = 0; p < planes; p++) {
        const size_t row = xsf_format_row_bytes(&out.fmt, p);
        const int rows = xsf_format_plane_rows(&out.fmt, p);
        out.data[p] = at;
        out.stride[p] = row;
        for (int y = 0; y < rows; y++) {
            const xsf_picture *field = y % 2 ? second : first;
            memcpy(at + (size_t)y * row, field->data[p] + (size_t)(y / 2) * field->stride[p], row);
        }
        at += row * (size_t)rows;
    }
    *frame = out;
    return XSF_OK;
}

static xsf_status frame_picture(const pl_writer *wr, const pl_frame *f, scratch *sc,
                                xsf_picture *out, xsf_error *err)
{
    if (!host_picture(&f->picture[0]))
        return xsf_error_set(err, XSF_ERR_ARG, "frame %llu has no host picture",
                             (unsigned long long)f->index);
    *out = f->picture[0];
    out->ref = NULL; /* a view: the frame holds the picture */
    if (f->fields == 2) {
        const xsf_picture *first = &f->picture[0], *second = &f->picture[1];
        if (first->fmt.container != XSF_PLANAR_U16) {
            const xsf_status st = weave_planes(first, second, sc, out, err);
            if (st != XSF_OK)
                return st;
        } else {
            size_t need;
            xsf_status st = imgio_weave_size(first, second, &need, err);
            if (st != XSF_OK || (st = scratch_reserve(sc, need * 2, err)) != XSF_OK)
                return st;
            if ((st = imgio_weave(first, second, sc->buf, sc->samples, out, err)) != XSF_OK)
                return st;
        }
    }
    return converts(wr, &out->fmt) ? convert_picture(wr, f, sc, out, err) : XSF_OK;
}

typedef struct pwrite_ctx {
    int fd;
    uint64_t offset;
} pwrite_ctx;

static int pwrite_sink(void *ctx, const uint8_t *data, size_t len)
{
    pwrite_ctx *c = ctx;
    while (len) {
        const ssize_t n = pwrite(c->fd, data, len, (off_t)c->offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 1;
        data += n;
        len -= (size_t)n;
        c->offset += (uint64_t)n;
    }
    return 0;
}

static size_t frame_yuv_bytes(const pl_writer *wr, const pl_frame *f)
{
    if (!host_picture(&f->picture[0]))
        return 0;
    if (converts(wr, &f->picture[0].fmt)) {
        xsf_format out;
        frame_format(wr, f, &out);
        return out.container == XSF_PLANAR_U16 ? 0 : xsf_format_bytes(&out); /* 0: refused */
    }
    size_t n = 0;
    for (int k = 0; k < (f->fields == 2 ? 2 : 1); k++)
        if (host_picture(&f->picture[k]))
            n += imgio_yuv_frame_bytes(&f->picture[k]);
    return n;
}

/* Claims the file's space up to `end` before a frame is copied into a
 * mapping of it: a store through a mapping into a page the file system cannot
 * back raises SIGBUS, where fallocate says ENOSPC (or EFBIG), an error like
 * any failed write. A file system without fallocate (EOPNOTSUPP) takes pwrite
 * from then on (posix_fallocate's fallback writes into every block, which
 * costs what the mappings save). *mapped: whether this frame goes through a
 * mapping. */
static xsf_status claim_space(pl_writer *wr, uint64_t end, int *mapped, xsf_error *err)
{
    xsf_status st = XSF_OK;
    pthread_mutex_lock(&wr->space_mu);
    if (wr->mapped && end > wr->claimed) {
        int r;
        while ((r = fallocate(wr->fd, 0, (off_t)wr->claimed, (off_t)(end - wr->claimed))) &&
               errno == EINTR)
            ;
        if (!r)
            wr->claimed = end;
        else if (errno == EOPNOTSUPP)
            wr->mapped = 0;
        else
            st = xsf_error_set(err, XSF_ERR_IO, "write failed: %s", strerror(errno));
    }
    *mapped = wr->mapped;
    pthread_mutex_unlock(&wr->space_mu);
    return st;
}

/* A shared mapping of the bytes [offset, offset + len) of a file, from the
 * start of the page that holds `offset` (mmap maps whole pages); the sink
 * copies serialized pieces into it. */
typedef struct file_window {
    uint8_t *base; /* the mapping, span bytes */
    size_t span, page;
    uint8_t *at; /* where the next byte goes */
    size_t left; /* bytes of the frame still to come */
} file_window;

static int window_map(file_window *w, int fd, uint64_t offset, size_t len, size_t page)
{
    const uint64_t start = offset - offset % page;
    w->span = (size_t)(offset - start) + len;
    void *m = mmap(NULL, w->span, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)start);
    if (m == MAP_FAILED)
        return -1;
    w->base = m;
    w->page = page;
    w->at = w->base + (offset - start);
    w->left = len;
    return 0;
}

/* Copies a page at a time, each copy within the page its fault has just
 * cleared (so still in the cache). Measured on tmpfs (development VM, one
 * thread, UHD frames/s): 70 so, 61 in 16 KB pieces, 58 with one memcpy of a
 * whole plane (16-bit planes come in one piece). */
static int window_sink(void *ctx, const uint8_t *data, size_t len)
{
    file_window *w = ctx;
    if (len > w->left)
        return 1;
    w->left -= len;
    while (len) {
        const size_t room = w->page - (size_t)(w->at - w->base) % w->page;
        const size_t n = len < room ? len : room;
        memcpy(w->at, data, n);
        w->at += n;
        data += n;
        len -= n;
    }
    return 0;
}

static xsf_status write_frame_at(pl_writer *wr, const pl_frame *f, uint64_t offset, size_t bytes,
                                 scratch *sc, xsf_error *err)
{
    xsf_picture pic;
    int mapped;
    xsf_status st = frame_picture(wr, f, sc, &pic, err);
    if (st != XSF_OK || (st = claim_space(wr, offset + bytes, &mapped, err)) != XSF_OK)
        return st;
    file_window w;
    if (mapped && !window_map(&w, wr->fd, offset, bytes, wr->page)) {
        const int bad = imgio_yuv_serialize(&pic, window_sink, &w) || w.left;
        munmap(w.base, w.span);
        if (bad)
            return xsf_error_set(err, XSF_ERR_IO, "frame %llu: not %zu bytes in .yuv layout",
                                 (unsigned long long)f->index, bytes);
        return XSF_OK;
    }
    /* No mapping (a file system without fallocate, or mmap refused): the
     * space is there, write it. */
    pwrite_ctx c = {wr->fd, offset};
    if (imgio_yuv_serialize(&pic, pwrite_sink, &c))
        return xsf_error_set(err, XSF_ERR_IO, "write failed: %s", strerror(errno));
    return XSF_OK;
}

static xsf_status write_frame(pl_writer *wr, const pl_frame *f, size_t *bytes, scratch *sc,
                              xsf_error *err)
{
    if (wr->opt.kind == PL_WRITE_JXS) {
        /* Both fields' codestreams, one after the other, as received. */
        if (wr->jxs &&
            fwrite(f->codestream, 1, f->codestream_bytes, wr->jxs) != f->codestream_bytes)
            return xsf_error_set(err, XSF_ERR_IO, "write failed");
        if (wr->opt.md5)
            app_md5_update(&wr->md5, f->codestream, f->codestream_bytes);
        *bytes += f->codestream_bytes;
        return XSF_OK;
    }
    xsf_picture pic;
    xsf_status st = frame_picture(wr, f, sc, &pic, err);
    if (st != XSF_OK)
        return st;
    if (wr->opt.kind == PL_WRITE_MD5) {
        app_md5 m;
        char hex[33];
        app_md5_init(&m);
        imgio_yuv_serialize(&pic, app_md5_sink, &m);
        app_md5_final_hex(&m, hex);
        if (wr->jxs && fprintf(wr->jxs, "%llu,%u,%s\n", (unsigned long long)f->index,
                               f->has_rtp_timestamp ? f->rtp_timestamp : 0u, hex) < 0)
            return xsf_error_set(err, XSF_ERR_IO, "write failed");
        *bytes += imgio_yuv_frame_bytes(&pic);
        return XSF_OK;
    }
    if (!wr->w && wr->path) {
        imgio_write_options o = wr->opt.image;
        /* The codestream's own RGB (a reversible colour transform), unless the user said. */
        if (o.colour.source == XSF_COLOUR_DEFAULT && (f->described & 1u) &&
            f->desc[0].colour.source == XSF_COLOUR_CODESTREAM)
            o.colour = f->desc[0].colour;
        o.scan = f->fields == 2 ? IMGIO_SCAN_TOP_FIRST : IMGIO_SCAN_PROGRESSIVE;
        st = imgio_writer_open(&wr->w, wr->path, &o, err);
        if (st != XSF_OK)
            return st;
    }
    if (wr->w && (st = imgio_write(wr->w, &pic, err)) != XSF_OK)
        return st;
    if (wr->opt.md5)
        imgio_yuv_serialize(&pic, app_md5_sink, &wr->md5);
    *bytes += imgio_yuv_frame_bytes(&pic);
    return XSF_OK;
}

/* The shape of the first frame written (no planes), for summaries. */
static void keep_shape(pl_writer *wr, const pl_frame *f)
{
    if (wr->shape.fmt.nc || !host_picture(&f->picture[0]))
        return;
    xsf_picture_init(&wr->shape);
    wr->shape.fmt = f->picture[0].fmt;
    if (f->fields == 2)
        for (int c = 0; c < wr->shape.fmt.nc; c++)
            wr->shape.fmt.height[c] += f->picture[1].fmt.height[c];
}

static void *writer_main(void *arg)
{
    pl_writer *wr = arg;
    scratch sc;
    memset(&sc, 0, sizeof sc);
    xsf_picture_init(&sc.converted);
    pthread_mutex_lock(&wr->mu);
    for (;;) {
        while (!wr->count && !wr->stopping)
            pthread_cond_wait(&wr->cv, &wr->mu);
        if (!wr->count)
            break;
        pl_frame *f = wr->ring[wr->head];
        const uint64_t offset = wr->offset[wr->head];
        wr->head = (wr->head + 1) % WRITER_RING;
        wr->count--;
        wr->busy++;
        const int failed = wr->err.status != XSF_OK;
        pthread_mutex_unlock(&wr->mu);

        xsf_error err;
        xsf_error_clear(&err);
        size_t bytes = wr->fd >= 0 ? frame_yuv_bytes(wr, f) : 0;
        xsf_status st = failed        ? XSF_OK
                        : wr->fd >= 0 ? write_frame_at(wr, f, offset, bytes, &sc, &err)
                                      : write_frame(wr, f, &bytes, &sc, &err);

        pthread_mutex_lock(&wr->mu);
        if (st == XSF_OK && !failed)
            keep_shape(wr, f);
        pthread_mutex_unlock(&wr->mu);
        pl_frame_release(f);
        pthread_mutex_lock(&wr->mu);
        if (st != XSF_OK && wr->err.status == XSF_OK)
            wr->err = err;
        if (st == XSF_OK && !failed) {
            wr->frames++;
            wr->bytes += bytes;
            if (wr->fd >= 0 && offset + bytes > wr->written_end)
                wr->written_end = offset + bytes;
        }
        wr->busy--;
        if (!wr->count && !wr->busy)
            pthread_cond_broadcast(&wr->idle);
    }
    pthread_mutex_unlock(&wr->mu);
    free(sc.buf);
    xsf_picture_unref(&sc.converted);
    return NULL;
}

static void writer_deliver(void *ctx, pl_frame *f)
{
    pl_writer *wr = ctx;
    pthread_mutex_lock(&wr->mu);
    const unsigned at = (wr->head + wr->count) % WRITER_RING;
    wr->ring[at] = f;
    if (wr->fd >= 0) {
        wr->offset[at] = wr->next_offset;
        wr->next_offset += frame_yuv_bytes(wr, f);
    }
    wr->count++;
    pthread_cond_signal(&wr->cv);
    pthread_mutex_unlock(&wr->mu);
}

static void writer_finish(void *ctx)
{
    pl_writer *wr = ctx;
    pthread_mutex_lock(&wr->mu);
    while (wr->count || wr->busy)
        pthread_cond_wait(&wr->idle, &wr->mu);
    pthread_mutex_unlock(&wr->mu);
}

/* The .yuv output of the parallel writer: a regular file, opened for
 * reading too (a shared writable mapping needs it; a file that may only be
 * written takes pwrite). A pipe, a FIFO or a device has no places to write
 * frames at (pwrite fails on a pipe): it keeps fd -1, and the frames go in
 * order through the imgio writer, which opens it with the first frame. A
 * directory is refused here, by open. */
static xsf_status open_yuv(pl_writer *wr, const char *path, xsf_error *err)
{
    struct stat sb;
    if (!stat(path, &sb) && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode))
        return XSF_OK;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    const int readable = fd >= 0;
    if (fd < 0 && errno == EACCES)
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return xsf_error_set(err, XSF_ERR_IO, "cannot create the file: %s", strerror(errno));
    wr->fd = fd;
    wr->mapped = readable && !fstat(fd, &sb) && S_ISREG(sb.st_mode);
    wr->page = (size_t)sysconf(_SC_PAGESIZE);
    wr->nthreads = WRITER_THREADS;
    return XSF_OK;
}

/* MD5 lines are each a frame's own, so several threads hash at once: a UHD picture's MD5 is
 * about 55 ms of a core (3.3 frame times at 60 fps: 3.3 cores a stream), and longer on a
 * loaded machine. Four threads were a margin of a fifth: on the device's 16 cores, with
 * two streams, their senders and the GPU's threads, an MD5 took about 70 ms for tens of
 * seconds at a time, the writer fell behind, its queue took every frame of the stream's
 * pool and frames were dropped for want of one (the device's soaks, issue 30). Three
 * eighths of the cores (6 on 16): nearly twice the work a UHD60 stream needs, while two
 * streams' writers leave a quarter of the cores to the threads that receive and decode.
 * The threads only run with a picture to hash: the CPU spent is the same. */
static unsigned md5_threads(void)
{
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const unsigned n = cores > 0 ? (unsigned)(cores * 3 / 8) : 0;
    return n < WRITER_THREADS ? WRITER_THREADS : n > WRITER_THREADS_MAX ? WRITER_THREADS_MAX : n;
}

xsf_status pl_writer_open(pl_writer **out, const char *path, const pl_writer_options *opt,
                          xsf_error *err)
{
    *out = NULL;
    pl_writer *wr = calloc(1, sizeof *wr);
    if (!wr)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    wr->opt = *opt;
    xsf_error_clear(&wr->err);
    app_md5_init(&wr->md5);
    if (path && !(wr->path = strdup(path))) {
        free(wr);
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    }
    if (path && (opt->kind == PL_WRITE_JXS || opt->kind == PL_WRITE_MD5)) {
        wr->jxs = strcmp(path, "-") ? fopen(path, "wb") : stdout;
        if (wr->jxs && opt->kind == PL_WRITE_MD5)
            fprintf(wr->jxs, "%s\n", PL_WRITE_MD5_HEADER);
        if (!wr->jxs) {
            free(wr->path);
            free(wr);
            return xsf_error_set(err, XSF_ERR_IO, "cannot create the file");
        }
    }
    wr->fd = -1;
    wr->nthreads = opt->kind == PL_WRITE_MD5 ? md5_threads() : 1;
    if (path && strcmp(path, "-") && opt->kind == PL_WRITE_PICTURE &&
        opt->image.format == IMGIO_FORMAT_YUV && !opt->md5 && open_yuv(wr, path, err) != XSF_OK) {
        free(wr->path);
        free(wr);
        return err->status;
    }
    pthread_mutex_init(&wr->mu, NULL);
    pthread_mutex_init(&wr->space_mu, NULL);
    pthread_cond_init(&wr->cv, NULL);
    pthread_cond_init(&wr->idle, NULL);
    for (unsigned i = 0; i < wr->nthreads; i++) {
        if (pthread_create(&wr->thread[i], NULL, writer_main, wr)) {
            pl_writer_close(wr, err);
            return xsf_error_set(err, XSF_ERR_NOMEM, "cannot start the writer threads");
        }
        wr->started++;
    }
    *out = wr;
    return XSF_OK;
}

pl_sink pl_writer_sink(pl_writer *wr)
{
    pl_sink s = {writer_deliver,
                 writer_finish,
                 wr,
                 wr->opt.kind == PL_WRITE_JXS ? PL_PICTURE_NONE : PL_PICTURE_HOST,
                 NULL,
                 NULL,
                 0};
    /* MD5 lines: a picture on each of its threads (55 ms of UHD, md5_threads), and two
     * delivered while they finish theirs. */
    if (wr->opt.kind == PL_WRITE_MD5)
        s.holds = wr->nthreads + 2;
    return s;
}

uint64_t pl_writer_frames(pl_writer *wr)
{
    pthread_mutex_lock(&wr->mu);
    const uint64_t n = wr->frames;
    pthread_mutex_unlock(&wr->mu);
    return n;
}

uint64_t pl_writer_bytes(pl_writer *wr)
{
    pthread_mutex_lock(&wr->mu);
    const uint64_t n = wr->bytes;
    pthread_mutex_unlock(&wr->mu);
    return n;
}

void pl_writer_shape(pl_writer *wr, xsf_picture *shape)
{
    pthread_mutex_lock(&wr->mu);
    *shape = wr->shape;
    pthread_mutex_unlock(&wr->mu);
}

const char *pl_writer_last_path(pl_writer *wr)
{
    return wr->w ? imgio_writer_last_path(wr->w) : wr->path ? wr->path : "";
}

xsf_status pl_writer_status(pl_writer *wr, xsf_error *err)
{
    pthread_mutex_lock(&wr->mu);
    const xsf_status st = wr->err.status;
    if (st != XSF_OK)
        *err = wr->err;
    pthread_mutex_unlock(&wr->mu);
    return st;
}

/* Stops the threads and closes; with `discard`, removes what was created
 * (pl_writer_discard). */
static xsf_status shut(pl_writer *wr, xsf_error *err, int discard)
{
    if (!wr)
        return XSF_OK;
    if (wr->started) {
        pthread_mutex_lock(&wr->mu);
        wr->stopping = 1;
        pthread_cond_broadcast(&wr->cv);
        pthread_mutex_unlock(&wr->mu);
        for (int i = 0; i < wr->started; i++)
            pthread_join(wr->thread[i], NULL);
    }
    xsf_status st = wr->err.status;
    if (st != XSF_OK)
        *err = wr->err;
    if (wr->w && discard) {
        imgio_writer_discard(wr->w);
    } else if (wr->w) {
        xsf_error e2;
        xsf_error_clear(&e2);
        if (imgio_writer_close(wr->w, &e2) != XSF_OK && st == XSF_OK) {
            *err = e2;
            st = e2.status;
        }
    }
    /* A frame that failed may have left space claimed past the last frame
     * written: the file ends where that frame does. */
    if (wr->fd >= 0 && wr->claimed > wr->written_end && ftruncate(wr->fd, (off_t)wr->written_end) &&
        st == XSF_OK)
        st = xsf_error_set(err, XSF_ERR_IO, "write failed: %s", strerror(errno));
    if (wr->fd >= 0 && close(wr->fd) && st == XSF_OK)
        st = xsf_error_set(err, XSF_ERR_IO, "write failed: %s", strerror(errno));
    if (wr->jxs && wr->jxs != stdout && fclose(wr->jxs) && st == XSF_OK)
        st = xsf_error_set(err, XSF_ERR_IO, "write failed");
    if (wr->jxs == stdout && fflush(stdout) && st == XSF_OK)
        st = xsf_error_set(err, XSF_ERR_IO, "write failed");
    /* The file opened here (.jxs, MD5 lines, a regular .yuv file); the imgio writer's are
     * gone already. */
    if (discard && (wr->fd >= 0 || (wr->jxs && wr->jxs != stdout)))
        xsf_output_remove(wr->path);
    pthread_cond_destroy(&wr->cv);
    pthread_cond_destroy(&wr->idle);
    pthread_mutex_destroy(&wr->mu);
    pthread_mutex_destroy(&wr->space_mu);
    free(wr->path);
    free(wr);
    return st;
}

xsf_status pl_writer_close(pl_writer *wr, xsf_error *err)
{
    return shut(wr, err, 0);
}

void pl_writer_discard(pl_writer *wr)
{
    xsf_error err;
    xsf_error_clear(&err);
    shut(wr, &err, 1);
}

void pl_writer_md5(pl_writer *wr, char hex[33])
{
    app_md5_final_hex(&wr->md5, hex);
}

static void null_deliver(void *ctx, pl_frame *f)
{
    (void)ctx;
    pl_frame_release(f);
}

pl_sink pl_null_sink(pl_placement placement)
{
    pl_sink s = {null_deliver, NULL, NULL, placement, NULL, NULL, 0};
    return s;
}
