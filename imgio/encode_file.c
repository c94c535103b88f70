/* A picture file through a codec's encoder into a file of codestreams
 * (encode_file.h). */
#include "encode_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xsf_clock.h"
#include "xsf_output.h"

typedef struct encode_run {
    const imgio_encode_job *job;
    imgio_encode_report *rep;
    imgio_reader *rd;
    void *enc;
    uint8_t *cs;
    size_t cap;
    FILE *out;
} encode_run;

static xsf_status failed(encode_run *r, const char *path, int refused, xsf_status st)
{
    r->rep->failed = path;
    r->rep->refused = refused;
    return st;
}

static int is_refusal(xsf_status st)
{
    return st == XSF_ERR_ARG || st == XSF_ERR_UNSUPPORTED;
}

/* The encoder for the first picture's format, and room for its codestreams. */
static xsf_status start(encode_run *r, const xsf_picture *pic, xsf_error *err)
{
    const imgio_encode_job *job = r->job;
    xsf_encode_settings s = job->settings;
    s.format = pic->fmt;
    if (job->format == IMGIO_FORMAT_PPM)
        s.rgb = 1;
    const xsf_status st = job->codec->encoder->create(&r->enc, &s, job->device, NULL, err);
    if (st != XSF_OK)
        return failed(r, job->in, is_refusal(st), st);
    r->rep->format = pic->fmt;
    r->cap = job->codec->encoder->max_bytes(r->enc);
    if (!(r->cs = malloc(r->cap ? r->cap : 1)))
        return failed(r, job->out, 0, xsf_error_set(err, XSF_ERR_NOMEM, "out of memory"));
    return XSF_OK;
}

/* Appends a codestream to the output, created by the first. */
static xsf_status put(encode_run *r, size_t len, xsf_error *err)
{
    const char *path = r->job->out;
    if (!r->out && !(r->out = strcmp(path, "-") ? fopen(path, "wb") : stdout))
        return failed(r, path, 0, xsf_error_set(err, XSF_ERR_IO, "%s", strerror(errno)));
    if (fwrite(r->cs, 1, len, r->out) != len)
        return failed(r, path, 0, xsf_error_set(err, XSF_ERR_IO, "%s", strerror(errno)));
    r->rep->bytes += len;
    return XSF_OK;
}

/* Codes one picture and writes its codestream. */
static xsf_status code(encode_run *r, const xsf_picture *pic, xsf_error *err)
{
    xsf_status st;
    if (!r->enc && (st = start(r, pic, err)) != XSF_OK)
        return st;
    size_t len = 0;
    xsf_error e;
    xsf_error_clear(&e);
    const double t0 = xsf_clock_mono_s();
    st = r->job->codec->encoder->encode(r->enc, pic, r->cs, r->cap, &len, &e);
    r->rep->seconds += xsf_clock_mono_s() - t0;
    if (st != XSF_OK)
        return failed(r, r->job->in, st == XSF_ERR_ARG,
                      xsf_error_set(err, st, "frame %lu: %s", r->rep->frames, e.msg));
    if ((st = put(r, len, err)) != XSF_OK)
        return st;
    r->rep->frames++;
    return XSF_OK;
}

xsf_status imgio_encode_file(const imgio_encode_job *job, imgio_encode_report *rep, xsf_error *err)
{
    memset(rep, 0, sizeof *rep);
    encode_run r = {.job = job, .rep = rep};
    if (!job->codec || !job->codec->encoder)
        return failed(&r, job->in, 1, xsf_error_set(err, XSF_ERR_ARG, "no encoder for this codec"));
    xsf_status st = imgio_reader_open(&r.rd, job->in, job->format,
                                      job->format == IMGIO_FORMAT_YUV ? &job->raw : NULL, err);
    if (st != XSF_OK)
        return failed(&r, job->in, 0, st);
    while (job->max_frames < 0 || rep->frames < (unsigned long)job->max_frames) {
        const xsf_picture *pic = NULL;
        if ((st = imgio_read(r.rd, &pic, err)) != XSF_OK) {
            failed(&r, job->in, 0, st);
            break;
        }
        if (!pic || (st = code(&r, pic, err)) != XSF_OK)
            break;
    }
    if (r.out && r.out != stdout && fclose(r.out) && st == XSF_OK)
        st = failed(&r, job->out, 0, xsf_error_set(err, XSF_ERR_IO, "%s", strerror(errno)));
    if (st == XSF_OK && rep->frames == 0)
        st = failed(&r, job->in, 0, xsf_error_set(err, XSF_ERR_INVALID, "no frame to encode"));
    if (st != XSF_OK && r.out && r.out != stdout)
        xsf_output_remove(job->out); /* a failed encode leaves nothing half-written */
    if (r.enc)
        job->codec->encoder->destroy(r.enc);
    free(r.cs);
    imgio_reader_close(r.rd);
    return st;
}

xsf_status imgio_codec_params_read(const xsf_codec *codec, void **params, const char *key,
                                   const char *path, xsf_error *err)
{
    if (!codec->params_set)
        return xsf_error_set(err, XSF_ERR_ARG, "%s takes no parameters", codec->long_name);
    uint8_t *data = NULL;
    size_t len = 0;
    xsf_status st = imgio_read_file(path, &data, &len, err);
    if (st == XSF_OK)
        st = codec->params_set(params, key, data, len, err);
    free(data);
    return st;
}
