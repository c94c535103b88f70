/* `xsflow decode`'s work (svc_decode.h): a file of codestreams, its codec,
 * the pipeline and a picture writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "encode_file.h"
#include "svc_decode.h"
#include "xsf_clock.h"
#include "xsf_codecs.h"
#include "xsf_output.h"
#include "xsf_pool.h"

/* The codestreams from the start of data, by their structure alone, up to `max`; the
 * largest of them into *largest (where not NULL). */
static unsigned long count_frames(const xsf_codec *codec, const uint8_t *data, size_t len,
                                  unsigned long max, size_t *largest)
{
    unsigned long n = 0;
    size_t off = 0, bytes, most = 0;
    xsf_error err;
    while (off < len && n < max) {
        xsf_error_clear(&err);
        if (codec->codestream_size(data + off, len - off, &bytes, &err) != XSF_OK || !bytes)
            break;
        off += bytes;
        most = bytes > most ? bytes : most;
        n++;
    }
    if (largest)
        *largest = most;
    return n;
}

/* A file of few frames is known before the pipeline starts: its frames are counted up to
 * SHORT_FILE_FRAMES (a walk of their structure), so that the stream's pool and the
 * pictures pinned ahead are no more than it uses (pl_stream_config.expected_frames), and
 * its codestream buffers get the largest frame's size at once (no buffer pinned twice). */
#define SHORT_FILE_FRAMES 64

static xsf_status fail(svc_failure *f, const char *subject, xsf_status st)
{
    f->subject = subject;
    return st;
}

/* The codec's settings from the table file (NULL: none). */
static xsf_status codec_params(const svc_decode_config *c, const xsf_codec *codec, void **params,
                               svc_failure *f)
{
    *params = NULL;
    if (!c->tables)
        return XSF_OK;
    if (!codec->params_set)
        return fail(
            f, "--tables",
            xsf_error_set(&f->err, XSF_ERR_ARG, "%s codestreams take no tables", codec->long_name));
    const xsf_status st = imgio_codec_params_read(codec, params, "tables", c->tables, &f->err);
    return st == XSF_OK ? XSF_OK : fail(f, c->tables, st);
}

/* The writer and the stream into it. */
static xsf_status open_stream(const svc_decode_config *c, const imgio_mapped *in,
                              const xsf_codec *codec, void *params, pl_pipeline *p, pl_writer **w,
                              int *sid, int *frame_files, xsf_error *err)
{
    pl_writer_options wo;
    memset(&wo, 0, sizeof wo);
    wo.kind = PL_WRITE_PICTURE;
    wo.image.format = c->format;
    wo.image.colour = c->colour;
    wo.image.fps_num = c->fps.num;
    wo.image.fps_den = c->fps.den;
    wo.md5 = c->md5;
    wo.pix_fmt = c->pix_fmt;
    /* Frame files only when there is more than one frame to write. */
    if (c->format == IMGIO_FORMAT_PPM || c->format == IMGIO_FORMAT_PGM)
        wo.image.frame_files =
            count_frames(codec, in->data, in->len, c->max_frames == 1 ? 1 : 2, NULL) > 1;
    *frame_files = wo.image.frame_files && c->out && strcmp(c->out, "-");
    xsf_status st = pl_writer_open(w, c->out, &wo, err);
    if (st == XSF_OK) {
        const uint64_t asked = c->interlaced ? 2 * c->max_frames : c->max_frames; /* fields */
        const unsigned long most =
            asked && asked < SHORT_FILE_FRAMES ? (unsigned long)asked : SHORT_FILE_FRAMES;
        size_t largest = 0;
        const unsigned long n = count_frames(codec, in->data, in->len, most, &largest);
        const unsigned long frames = c->interlaced ? (n + 1) / 2 : n; /* fields: two a frame */
        /* All of them counted: fewer than the walk's bound, or the bound is the frames asked. */
        const int known = n < most || (asked && asked <= SHORT_FILE_FRAMES);
        pl_stream_config sc = {.name = c->in,
                               .backpressure = PL_BLOCK,
                               .sink = pl_writer_sink(*w),
                               .codec = codec->name,
                               .codec_params = params,
                               .expected_frames = known ? (unsigned)frames : 0,
                               .codestream_bytes = c->interlaced ? 2 * largest : largest};
        sc.pix_fmt = c->pix_fmt; /* the decoder writes it (wo.pix_fmt: never planar16) */
        sc.pix_colour = c->colour;
        st = pl_stream_add(p, &sc, sid, err);
    }
    return st;
}

/* The files written: one, or one per frame (frame_files: the names of the first and the
 * last), and their bytes on disk (what was written where it is not a regular file). */
static void files_written(const svc_decode_config *c, int frame_files, svc_decode_result *r)
{
    r->files = c->out && r->frames ? (frame_files ? r->frames : 1) : 0;
    r->file_bytes = 0;
    if (!r->files)
        return;
    snprintf(r->first_path, sizeof r->first_path, "%s", c->out);
    if (frame_files)
        imgio_frame_path(c->out, 0, r->first_path, sizeof r->first_path);
    for (uint64_t i = 0; i < r->files; i++) {
        char name[4096];
        snprintf(name, sizeof name, "%s", c->out);
        if (frame_files)
            imgio_frame_path(c->out, i, name, sizeof name);
        struct stat sb;
        if (strcmp(name, "-") && !stat(name, &sb) && S_ISREG(sb.st_mode)) {
            r->file_bytes += (uint64_t)sb.st_size;
        } else {
            r->file_bytes = r->bytes; /* standard output, a device: what the writer counted */
            return;
        }
    }
}

/* Runs the stream to its end and closes the writer; after a failure (the file's structure,
 * a frame the decoder refused, a write) the writer's files are removed instead. */
static void run(const svc_decode_config *c, const imgio_mapped *in, pl_pipeline *p, pl_writer *w,
                int sid, int frame_files, uint64_t t0, svc_decode_result *r)
{
    uint64_t read_frames = 0;
    r->source = pl_jxs_source_run(p, sid, in->data, in->len, c->interlaced, c->max_frames,
                                  &read_frames, &r->source_err);
    pl_stream_finish(p, sid);
    pl_stream_stats ss;
    pl_stream_stats_get(p, sid, &ss);
    r->not_decoded = ss.dropped[PL_DROP_DECODE];
    snprintf(r->last_error, sizeof r->last_error, "%s", ss.last_error);
    r->fps = ss.fps;
    if (c->md5)
        pl_writer_md5(w, r->md5);
    r->frames = pl_writer_frames(w);
    r->bytes = pl_writer_bytes(w);
    pl_writer_shape(w, &r->first);
    snprintf(r->last_path, sizeof r->last_path, "%s", c->out ? pl_writer_last_path(w) : "");
    r->close = pl_writer_status(w, &r->close_err);
    if (r->source != XSF_OK || r->not_decoded || r->close != XSF_OK) {
        pl_writer_discard(w);
        r->removed = c->out != NULL;
    } else if ((r->close = pl_writer_close(w, &r->close_err)) != XSF_OK) {
        r->removed = xsf_output_remove(c->out); /* its last bytes did not reach the file */
    } else {
        files_written(c, frame_files, r);
    }
    r->seconds = (double)(xsf_clock_mono_ns() - t0) / 1e9;
    snprintf(r->engine, sizeof r->engine, "%s", pl_describe(p));
}

/* Whether the C decoder on every core ends the file before a GPU would be ready: the
 * GPU's start (driver and context) takes 0.27-0.35 s on the H200 hosts, where the C
 * decoder makes about 2.2 Mpixel a core in that time (a UHD 4:2:2 frame in ~60 ms on 16
 * cores; BENCHMARKS.md, session 31). Estimated from the first codestream's size and
 * picture; 0 where they do not say. */
static int ends_before_gpu(const imgio_mapped *in, const xsf_codec *codec)
{
    size_t bytes = 0;
    xsf_codec_frame d;
    xsf_error e;
    xsf_error_clear(&e);
    if (!codec || codec->codestream_size(in->data, in->len, &bytes, &e) != XSF_OK || !bytes ||
        codec->parse_header(in->data, in->len, &d, &e) != XSF_OK)
        return 0;
    const double frames = (double)in->len / (double)bytes;
    return (double)d.format.width[0] * d.format.height[0] * frames <= 2.2e6 * xsf_cpu_count();
}

/* One file is one stream, and the pipeline gives all of a stream's frames to one GPU
 * (stream id modulo the GPUs): a second GPU would decode nothing and only add its start
 * (context, kernels, decoder contexts) and its teardown. So decode takes the first GPU of
 * the list (device 0 by default): never slower on all GPUs than on one. With the default
 * engine, a file the C decoder ends before the GPU would be ready is decoded there, on
 * every core (never slower than --cpu); a longer one starts on the C decoder while CUDA
 * starts (pl_config.start_on_cpu), one frame at a time on every core. */
static pl_config one_gpu(const pl_config *asked, const imgio_mapped *in, const xsf_codec *codec)
{
    pl_config c = *asked;
    if (c.engine == PL_ENGINE_AUTO && ends_before_gpu(in, codec))
        c.engine = PL_ENGINE_CPU;
    if (c.engine == PL_ENGINE_CPU)
        return c;
    c.start_on_cpu = c.engine == PL_ENGINE_AUTO;
    if (c.ngpus == 0)
        c.gpus[0] = 0;
    c.ngpus = 1;
    return c;
}

xsf_status svc_decode_file(const svc_decode_config *c, svc_decode_result *r, svc_failure *f)
{
    const uint64_t t_start = xsf_clock_mono_ns();
    memset(r, 0, sizeof *r);
    memset(f, 0, sizeof *f);
    imgio_mapped in;
    xsf_status st = imgio_map_file(c->in, &in, &f->err);
    if (st != XSF_OK)
        return fail(f, c->in, st);
    const xsf_codec *codec = xsf_codec_probe(in.data, in.len);
    if (!codec)
        codec = xsf_codec_find("jpeg-xs");
    void *params = NULL;
    pl_pipeline *p = NULL;
    pl_writer *w = NULL;
    int sid = -1, frame_files = 0;
    const pl_config pl = one_gpu(&c->pl, &in, codec);
    if ((st = codec_params(c, codec, &params, f)) != XSF_OK) {
        imgio_unmap_file(&in);
        return st;
    }
    if ((st = pl_create(&p, &pl, &f->err)) != XSF_OK) {
        fail(f, c->in, st);
    } else if ((st = open_stream(c, &in, codec, params, p, &w, &sid, &frame_files, &f->err)) !=
               XSF_OK) {
        fail(f, c->out ? c->out : c->in, st);
        pl_writer_discard(w);
    } else {
        const uint64_t t0 = xsf_clock_mono_ns(); /* the pipeline is ready */
        r->start_ms = (double)(t0 - t_start) / 1e6;
        run(c, &in, p, w, sid, frame_files, t0, r);
    }
    if (p)
        pl_destroy_stats(p, &r->startup);
    if (params)
        codec->params_free(params);
    imgio_unmap_file(&in);
    return st;
}

void svc_decode_result_format(FILE *f, const svc_decode_config *cfg, const svc_decode_result *r,
                              int quiet)
{
    const uint64_t frames = r->frames;
    const xsf_picture *first = &r->first;
    if (cfg->md5)
        fprintf(f, "%s  %s (%llu frame%s, %llu bytes in .yuv layout)\n", r->md5, cfg->in,
                (unsigned long long)frames, frames == 1 ? "" : "s", (unsigned long long)r->bytes);
    if (quiet || !cfg->out)
        return;
    char into[8300];
    snprintf(into, sizeof into, "%s%s%s", strcmp(cfg->out, "-") ? r->first_path : "standard output",
             r->files > 1 ? " to " : "", r->files > 1 ? r->last_path : "");
    fprintf(f,
            "decoded %llu frame%s (%dx%d, %d component%s, %s, %d bits) from %s into %s (%llu "
            "file%s, %llu bytes) in %.3f s, %.1f frames/s (%s; start %.0f ms",
            (unsigned long long)frames, frames == 1 ? "" : "s", first->fmt.width[0],
            first->fmt.height[0], first->fmt.nc, first->fmt.nc == 1 ? "" : "s",
            first->fmt.nc ? imgio_picture_sampling(first) : "-", first->fmt.depth[0], cfg->in, into,
            (unsigned long long)r->files, r->files == 1 ? "" : "s",
            (unsigned long long)r->file_bytes, r->seconds,
            r->seconds > 0 ? (double)frames / r->seconds : 0, r->engine, r->start_ms);
    if (frames > 1) /* a rate between deliveries needs two of them */
        fprintf(f, ", steady %.1f frames/s", r->fps);
    fprintf(f, ")\n");
    char line[2048];
    fprintf(f, "start-up: %s\n", pl_startup_format(&r->startup, line, sizeof line));
}
