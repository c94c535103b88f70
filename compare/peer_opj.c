/* The OpenJPEG peer: JPEG 2000 (the standard BPC-PaCo's bitplane coder
 * descends from) through libopenjp2's C API, the library loaded at run time
 * (dlopen), so that xsflow never needs it; its header is needed at build
 * time (XSF_HAVE_OPENJPEG, libopenjp2-7-dev).
 *
 * Why the API and not opj_compress: the programs read subsampled raw input
 * wrongly (OpenJPEG 2.5's raw reader makes every component full-size and
 * fills a part of it) and opj_decompress turns subsampled components into
 * RGB; the API takes the components at their own size (dx, dy of 2 for 4:2:2
 * and 4:2:0 chroma) and gives them back as they are.
 *
 * Settings: lossy, the irreversible 9/7 with ICT for RGB (none for YCbCr);
 * lossless, the reversible 5/3 with RCT for RGB; 5 levels (6 resolutions,
 * fewer where a component is too small), 64x64 code blocks, one tile, one
 * quality layer, LRCP. Rate: OpenJPEG's post-compression rate allocation to
 * a compression ratio (its size estimate counts every component at full
 * size: ratio = nc * depth * W * H / (8 * budget)), corrected until the
 * codestream is at most the budget floor(bpp*W*H/8) and within 0.5 % of it
 * where a few tries get there. Speed: the median of calls, each a whole
 * picture in memory to a codestream in memory (and back), on the peers'
 * threads (opj_codec_set_threads). */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"

#ifndef XSF_HAVE_OPENJPEG

xsf_status cmp_opj_check(cmp_peers *p, xsf_error *err)
{
    (void)p;
    return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                         "OpenJPEG: this xsflow was built without openjpeg.h (libopenjp2-7-dev): "
                         "its rows are left out");
}

xsf_status cmp_opj_run(cmp_job *job)
{
    return xsf_error_set(&job->err, XSF_ERR_UNSUPPORTED, "OpenJPEG is not built in");
}

#else

#include <dlfcn.h>
#include <openjpeg.h>

#define OPJ_TRIES 12
#define OPJ_REACHED 0.995

/* The library's functions, as loaded. */
typedef struct opj_api {
    void *lib;
    const char *(*version)(void);
    void (*set_default_encoder_parameters)(opj_cparameters_t *);
    void (*set_default_decoder_parameters)(opj_dparameters_t *);
    opj_image_t *(*image_create)(OPJ_UINT32, opj_image_cmptparm_t *, OPJ_COLOR_SPACE);
    void (*image_destroy)(opj_image_t *);
    opj_codec_t *(*create_compress)(OPJ_CODEC_FORMAT);
    opj_codec_t *(*create_decompress)(OPJ_CODEC_FORMAT);
    void (*destroy_codec)(opj_codec_t *);
    OPJ_BOOL (*setup_encoder)(opj_codec_t *, opj_cparameters_t *, opj_image_t *);
    OPJ_BOOL (*setup_decoder)(opj_codec_t *, opj_dparameters_t *);
    OPJ_BOOL (*codec_set_threads)(opj_codec_t *, int);
    OPJ_BOOL (*set_error_handler)(opj_codec_t *, opj_msg_callback, void *);
    OPJ_BOOL (*start_compress)(opj_codec_t *, opj_image_t *, opj_stream_t *);
    OPJ_BOOL (*encode)(opj_codec_t *, opj_stream_t *);
    OPJ_BOOL (*end_compress)(opj_codec_t *, opj_stream_t *);
    OPJ_BOOL (*read_header)(opj_stream_t *, opj_codec_t *, opj_image_t **);
    OPJ_BOOL (*decode)(opj_codec_t *, opj_stream_t *, opj_image_t *);
    OPJ_BOOL (*end_decompress)(opj_codec_t *, opj_stream_t *);
    opj_stream_t *(*stream_create)(OPJ_SIZE_T, OPJ_BOOL);
    void (*stream_destroy)(opj_stream_t *);
    void (*stream_set_read_function)(opj_stream_t *, opj_stream_read_fn);
    void (*stream_set_write_function)(opj_stream_t *, opj_stream_write_fn);
    void (*stream_set_skip_function)(opj_stream_t *, opj_stream_skip_fn);
    void (*stream_set_seek_function)(opj_stream_t *, opj_stream_seek_fn);
    void (*stream_set_user_data)(opj_stream_t *, void *, opj_stream_free_user_data_fn);
    void (*stream_set_user_data_length)(opj_stream_t *, OPJ_UINT64);
} opj_api;

/* dlsym's object pointer into a function pointer field, as POSIX allows. */
#define OPJ_LOAD(api, field, name)                                                                 \
    do {                                                                                           \
        void *sym_ = dlsym((api)->lib, name);                                                      \
        if (!sym_)                                                                                 \
            missing = name;                                                                        \
        memcpy(&(api)->field, &sym_, sizeof sym_);                                                 \
    } while (0)

static void opj_unload(opj_api *a)
{
    if (a->lib)
        dlclose(a->lib);
    memset(a, 0, sizeof *a);
}

static xsf_status opj_load(opj_api *a, const char *name, xsf_error *err)
{
    memset(a, 0, sizeof *a);
    if (!(a->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                             "OpenJPEG: %s cannot be loaded (%s; apt-get install libopenjp2-7, or "
                             "--opj PATH): its rows are left out",
                             name, dlerror());
    const char *missing = NULL;
    OPJ_LOAD(a, version, "opj_version");
    OPJ_LOAD(a, set_default_encoder_parameters, "opj_set_default_encoder_parameters");
    OPJ_LOAD(a, set_default_decoder_parameters, "opj_set_default_decoder_parameters");
    OPJ_LOAD(a, image_create, "opj_image_create");
    OPJ_LOAD(a, image_destroy, "opj_image_destroy");
    OPJ_LOAD(a, create_compress, "opj_create_compress");
    OPJ_LOAD(a, create_decompress, "opj_create_decompress");
    OPJ_LOAD(a, destroy_codec, "opj_destroy_codec");
    OPJ_LOAD(a, setup_encoder, "opj_setup_encoder");
    OPJ_LOAD(a, setup_decoder, "opj_setup_decoder");
    OPJ_LOAD(a, codec_set_threads, "opj_codec_set_threads");
    OPJ_LOAD(a, set_error_handler, "opj_set_error_handler");
    OPJ_LOAD(a, start_compress, "opj_start_compress");
    OPJ_LOAD(a, encode, "opj_encode");
    OPJ_LOAD(a, end_compress, "opj_end_compress");
    OPJ_LOAD(a, read_header, "opj_read_header");
    OPJ_LOAD(a, decode, "opj_decode");
    OPJ_LOAD(a, end_decompress, "opj_end_decompress");
    OPJ_LOAD(a, stream_create, "opj_stream_create");
    OPJ_LOAD(a, stream_destroy, "opj_stream_destroy");
    OPJ_LOAD(a, stream_set_read_function, "opj_stream_set_read_function");
    OPJ_LOAD(a, stream_set_write_function, "opj_stream_set_write_function");
    OPJ_LOAD(a, stream_set_skip_function, "opj_stream_set_skip_function");
    OPJ_LOAD(a, stream_set_seek_function, "opj_stream_set_seek_function");
    OPJ_LOAD(a, stream_set_user_data, "opj_stream_set_user_data");
    OPJ_LOAD(a, stream_set_user_data_length, "opj_stream_set_user_data_length");
    if (missing) {
        opj_unload(a);
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                             "OpenJPEG: %s has no %s (OpenJPEG 2.3 or later is needed): its rows "
                             "are left out",
                             name, missing);
    }
    return XSF_OK;
}

/* ---- a codestream in memory ---- */

typedef struct opj_mem {
    uint8_t *buf;
    size_t len, cap, pos;
} opj_mem;

static OPJ_SIZE_T mem_write(void *data, OPJ_SIZE_T n, void *user)
{
    opj_mem *m = user;
    if (m->pos + n > m->cap) {
        size_t cap = m->cap ? m->cap : 65536;
        while (cap < m->pos + n)
            cap *= 2;
        uint8_t *g = realloc(m->buf, cap);
        if (!g)
            return (OPJ_SIZE_T)-1;
        m->buf = g;
        m->cap = cap;
    }
    memcpy(m->buf + m->pos, data, n);
    m->pos += n;
    if (m->pos > m->len)
        m->len = m->pos;
    return n;
}

static OPJ_SIZE_T mem_read(void *data, OPJ_SIZE_T n, void *user)
{
    opj_mem *m = user;
    if (m->pos >= m->len)
        return (OPJ_SIZE_T)-1;
    if (n > m->len - m->pos)
        n = m->len - m->pos;
    memcpy(data, m->buf + m->pos, n);
    m->pos += n;
    return n;
}

static OPJ_OFF_T mem_skip(OPJ_OFF_T n, void *user)
{
    opj_mem *m = user;
    if (n < 0 && (size_t)-n > m->pos)
        return -1;
    m->pos = (size_t)((OPJ_OFF_T)m->pos + n);
    return n;
}

static OPJ_BOOL mem_seek(OPJ_OFF_T to, void *user)
{
    opj_mem *m = user;
    if (to < 0)
        return OPJ_FALSE;
    m->pos = (size_t)to;
    return OPJ_TRUE;
}

static opj_stream_t *mem_stream(const opj_api *a, opj_mem *m, int input)
{
    opj_stream_t *s = a->stream_create(1u << 20, input ? OPJ_TRUE : OPJ_FALSE);
    if (!s)
        return NULL;
    if (input) {
        a->stream_set_read_function(s, mem_read);
        a->stream_set_user_data_length(s, m->len);
    } else {
        a->stream_set_write_function(s, mem_write);
    }
    a->stream_set_skip_function(s, mem_skip);
    a->stream_set_seek_function(s, mem_seek);
    a->stream_set_user_data(s, m, NULL);
    m->pos = 0;
    return s;
}

static void on_error(const char *msg, void *user)
{
    char *buf = user;
    if (!buf[0])
        snprintf(buf, XSF_ERRMSG_LEN, "%.*s", (int)strcspn(msg, "\n"), msg);
}

/* ---- one job ---- */

typedef struct opj_job {
    opj_api api;
    const xsf_picture *pic;
    opj_image_cmptparm_t cp[XSF_MAX_COMPONENTS];
    OPJ_COLOR_SPACE space;
    int numres, mct, threads;
    double ratio; /* 0: lossless */
    opj_mem cs;
    xsf_picture *out; /* decode: into this picture when set */
    char msg[XSF_ERRMSG_LEN];
} opj_job;

/* How the picture becomes OpenJPEG's image: each component at its own size. */
static xsf_status plan_image(opj_job *j, int rgb, xsf_error *err)
{
    const xsf_format *f = &j->pic->fmt;
    const int w = f->width[0], h = f->height[0];
    opj_image_cmptparm_t *cp = j->cp;
    memset(j->cp, 0, sizeof j->cp);
    int full = 1, smallest = w < h ? w : h;
    for (int c = 0; c < f->nc; c++) {
        const int dx = f->width[c] == w ? 1 : 2, dy = f->height[c] == h ? 1 : 2;
        if (f->width[c] != (w + dx - 1) / dx || f->height[c] != (h + dy - 1) / dy)
            return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                                 "component %d is %dx%d: not a subsampling OpenJPEG takes", c,
                                 f->width[c], f->height[c]);
        full &= dx == 1 && dy == 1;
        cp[c].dx = (OPJ_UINT32)dx;
        cp[c].dy = (OPJ_UINT32)dy;
        cp[c].w = (OPJ_UINT32)f->width[c];
        cp[c].h = (OPJ_UINT32)f->height[c];
        cp[c].prec = (OPJ_UINT32)f->depth[c];
        cp[c].sgnd = 0;
        if (f->width[c] < smallest)
            smallest = f->width[c];
        if (f->height[c] < smallest)
            smallest = f->height[c];
    }
    j->numres = 6;
    while (j->numres > 1 && smallest < (1 << (j->numres - 1)))
        j->numres--;
    j->mct = rgb && f->nc >= 3 && full;
    j->space = f->nc == 1 ? OPJ_CLRSPC_GRAY : (j->mct ? OPJ_CLRSPC_SRGB : OPJ_CLRSPC_SYCC);
    return XSF_OK;
}

/* OpenJPEG's image of the picture. A new one for each encoding: the encoder
 * transforms the samples of a one-tile image in place (and OpenJPEG 2.5.0
 * crashes encoding the same image twice). */
static opj_image_t *make_image(opj_job *j)
{
    const xsf_format *f = &j->pic->fmt;
    opj_image_t *im = j->api.image_create((OPJ_UINT32)f->nc, j->cp, j->space);
    if (!im)
        return NULL;
    im->x0 = im->y0 = 0;
    im->x1 = (OPJ_UINT32)f->width[0];
    im->y1 = (OPJ_UINT32)f->height[0];
    for (int c = 0; c < f->nc; c++)
        for (int y = 0; y < f->height[c]; y++) {
            const uint16_t *s = xsf_picture_row16(j->pic, c, y);
            OPJ_INT32 *d = im->comps[c].data + (size_t)y * (size_t)f->width[c];
            for (int x = 0; x < f->width[c]; x++)
                d[x] = s[x];
        }
    return im;
}

/* The picture into j->cs at j->ratio (from the samples: the image made
 * from them is part of the encoding). */
static xsf_status opj_encode_picture(void *ctx)
{
    opj_job *j = ctx;
    const opj_api *a = &j->api;
    opj_image_t *image = make_image(j);
    if (!image) {
        snprintf(j->msg, sizeof j->msg, "no memory for the picture");
        return XSF_ERR_NOMEM;
    }
    opj_cparameters_t par;
    a->set_default_encoder_parameters(&par);
    par.tcp_numlayers = 1;
    par.tcp_rates[0] = (float)j->ratio;
    par.cp_disto_alloc = 1;
    par.irreversible = j->ratio > 0;
    par.numresolution = j->numres;
    par.tcp_mct = (char)j->mct;
    j->cs.len = 0;
    j->msg[0] = '\0';
    opj_codec_t *codec = a->create_compress(OPJ_CODEC_J2K);
    opj_stream_t *s = codec ? mem_stream(a, &j->cs, 0) : NULL;
    int ok = s != NULL;
    if (ok) {
        a->set_error_handler(codec, on_error, j->msg);
        ok = a->setup_encoder(codec, &par, image) && a->codec_set_threads(codec, j->threads) &&
             a->start_compress(codec, image, s) && a->encode(codec, s) && a->end_compress(codec, s);
    }
    if (s)
        a->stream_destroy(s);
    if (codec)
        a->destroy_codec(codec);
    a->image_destroy(image);
    return ok ? XSF_OK : XSF_ERR_INVALID;
}

/* j->cs decoded; into j->out when set (the same format), else dropped. */
static xsf_status opj_decode_picture(void *ctx)
{
    opj_job *j = ctx;
    const opj_api *a = &j->api;
    opj_dparameters_t par;
    a->set_default_decoder_parameters(&par);
    j->msg[0] = '\0';
    opj_codec_t *codec = a->create_decompress(OPJ_CODEC_J2K);
    opj_stream_t *s = codec ? mem_stream(a, &j->cs, 1) : NULL;
    opj_image_t *img = NULL;
    int ok = s != NULL;
    if (ok) {
        a->set_error_handler(codec, on_error, j->msg);
        ok = a->setup_decoder(codec, &par) && a->codec_set_threads(codec, j->threads) &&
             a->read_header(s, codec, &img) && a->decode(codec, s, img) &&
             a->end_decompress(codec, s);
    }
    if (ok && j->out) {
        const xsf_format *f = &j->out->fmt;
        ok = (int)img->numcomps == f->nc;
        for (int c = 0; ok && c < f->nc; c++)
            ok = (int)img->comps[c].w == f->width[c] && (int)img->comps[c].h == f->height[c];
        for (int c = 0; ok && c < f->nc; c++) {
            const OPJ_INT32 hi = (1 << f->depth[c]) - 1;
            for (int y = 0; y < f->height[c]; y++) {
                const OPJ_INT32 *s0 = img->comps[c].data + (size_t)y * (size_t)f->width[c];
                uint16_t *d = xsf_picture_row16(j->out, c, y);
                for (int x = 0; x < f->width[c]; x++)
                    d[x] = (uint16_t)(s0[x] < 0 ? 0 : (s0[x] > hi ? hi : s0[x]));
            }
        }
        if (!ok && !j->msg[0])
            snprintf(j->msg, sizeof j->msg, "the decoded picture has another shape");
    }
    if (img)
        a->image_destroy(img);
    if (s)
        a->stream_destroy(s);
    if (codec)
        a->destroy_codec(codec);
    return ok ? XSF_OK : XSF_ERR_INVALID;
}

/* Encodes at the budget: the ratio corrected until the codestream is at most
 * `budget` bytes and within OPJ_REACHED of it (or OPJ_TRIES encodings). */
static xsf_status encode_to_budget(opj_job *j, double budget, xsf_error *err)
{
    const xsf_format *f = &j->pic->fmt;
    j->ratio = (double)f->nc * f->depth[0] * f->width[0] * (double)f->height[0] / (8.0 * budget);
    double best = 0; /* the ratio of the largest codestream within the budget */
    size_t best_len = 0;
    for (int t = 0; t < OPJ_TRIES; t++) {
        if (opj_encode_picture(j))
            return xsf_error_set(err, XSF_ERR_INVALID, "OpenJPEG encoder at ratio %g: %s", j->ratio,
                                 j->msg[0] ? j->msg : "failed");
        const double len = (double)j->cs.len;
        if (len <= budget && j->cs.len > best_len) {
            best = j->ratio;
            best_len = j->cs.len;
        }
        if (len <= budget && len >= OPJ_REACHED * budget)
            return XSF_OK;
        /* Bytes go nearly as the inverse of the ratio; aim just inside. */
        j->ratio *= len / (budget * (1 - (1 - OPJ_REACHED) / 4));
    }
    if (!best_len)
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "OpenJPEG did not code within %.0f bytes in %d tries", budget,
                             OPJ_TRIES);
    j->ratio = best;
    return opj_encode_picture(j)
               ? xsf_error_set(err, XSF_ERR_INVALID, "OpenJPEG encoder: %s", j->msg)
               : XSF_OK;
}

xsf_status cmp_opj_check(cmp_peers *p, xsf_error *err)
{
    opj_job j;
    memset(&j, 0, sizeof j);
    xsf_status st = opj_load(&j.api, p->opj, err);
    if (st)
        return st;
    xsf_picture pic;
    st = cmp_synthetic_picture(&pic, 64, 64, 1, 8, err);
    if (st == XSF_OK) {
        j.pic = &pic;
        j.threads = p->threads;
        st = plan_image(&j, 0, err);
        if (st == XSF_OK && (st = encode_to_budget(&j, 64 * 64 * 2 / 8, err)) == XSF_OK &&
            opj_decode_picture(&j))
            st = xsf_error_set(err, XSF_ERR_UNSUPPORTED, "OpenJPEG decoder: %s", j.msg);
        cmp_picture_free(&pic);
    }
    if (st == XSF_OK)
        snprintf(p->about[CMP_OPJ], sizeof p->about[CMP_OPJ],
                 "OpenJPEG %.20s (%.200s, through its C API, %d threads)", j.api.version(), p->opj,
                 p->threads);
    else {
        char why[XSF_ERRMSG_LEN];
        snprintf(why, sizeof why, "%s", err->msg);
        xsf_error_clear(err);
        st = xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                           "OpenJPEG: %s does not code a test picture (%s): its rows are left out",
                           p->opj, why);
    }
    free(j.cs.buf);
    opj_unload(&j.api);
    return st;
}

static xsf_status opj_measure(cmp_job *job, opj_job *j)
{
    const xsf_format *f = &j->pic->fmt;
    xsf_status st = plan_image(j, job->src->rgb, &job->err);
    if (st == XSF_ERR_UNSUPPORTED) {
        job->refused = 1;
        snprintf(job->note, sizeof job->note, "%s", job->err.msg);
        xsf_error_clear(&job->err);
        return XSF_OK;
    }
    if (st)
        return st;
    snprintf(job->filter, sizeof job->filter, "%s", job->bpp > 0 ? "9/7" : "5/3");
    job->levels_h = job->levels_v = j->numres - 1;
    job->colour = j->mct ? (job->bpp > 0 ? "ICT" : "RCT") : "none";
    if (job->bpp > 0) {
        st = encode_to_budget(j, floor(job->bpp * f->width[0] * (double)f->height[0] / 8.0),
                              &job->err);
    } else {
        j->ratio = 0;
        if (opj_encode_picture(j))
            st = xsf_error_set(&job->err, XSF_ERR_INVALID, "OpenJPEG encoder: %s", j->msg);
    }
    if (st)
        return st;
    job->bytes = j->cs.len;
    xsf_picture_init(&job->decoded);
    job->decoded.fmt = *f;
    if ((st = xsf_picture_alloc(&job->decoded, NULL, &job->err)))
        return st;
    j->out = &job->decoded;
    if (opj_decode_picture(j))
        return xsf_error_set(&job->err, XSF_ERR_INVALID, "OpenJPEG decoder: %s", j->msg);
    j->out = NULL;
    job->checked = 1; /* its own decoder's picture: the reference */
    if (j->ratio > 0)
        snprintf(job->note, sizeof job->note, "ratio %.4g (OpenJPEG's measure); %d threads",
                 j->ratio, j->threads);
    else
        snprintf(job->note, sizeof job->note, "lossless; %d threads", j->threads);
    st = cmp_time_median(opj_encode_picture, j, job->time_ms, &job->enc_s[0], &job->enc_runs[0]);
    if (!st)
        st =
            cmp_time_median(opj_decode_picture, j, job->time_ms, &job->dec_s[0], &job->dec_runs[0]);
    if (st)
        xsf_error_set(&job->err, st, "OpenJPEG while timing: %s", j->msg);
    return st;
}

xsf_status cmp_opj_run(cmp_job *job)
{
    opj_job *j = calloc(1, sizeof *j);
    if (!j)
        return xsf_error_set(&job->err, XSF_ERR_NOMEM, "no memory");
    xsf_status st = opj_load(&j->api, job->peers->opj, &job->err);
    if (st == XSF_OK) {
        j->pic = &job->src->host;
        j->threads = job->peers->threads;
        st = opj_measure(job, j);
    }
    free(j->cs.buf);
    opj_unload(&j->api);
    free(j);
    return st;
}

#endif
