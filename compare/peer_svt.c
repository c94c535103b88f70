/* The SVT-JPEG-XS peer: its encoder program, SvtJpegxsEncApp, with its
 * defaults, on the picture written as the planar .yuv it reads (8-bit
 * samples as bytes, deeper ones as 16-bit little-endian; --colour-format
 * yuv400, yuv420, yuv422, yuv444 or rgb); its codestream decoded by
 * xsflow's C decoder, which gives the row's picture (and checks that the two
 * projects' streams interoperate). SvtJpegxsDecApp, where found, decodes it
 * too: its picture must be the same, and it times decoding.
 *
 * Speed: each app's own figure ("Finish N frames, average F[fps]": from its
 * first frame sent to its last received, so without process start-up and
 * with its frames in flight as it pipelines them) over enough repeats of the
 * frame (its -n; it reads the file again at the end) to last the session's
 * time, on --lp every online CPU.
 *
 * Rate: SVT-JPEG-XS spends ceil(W*H*bpp/8) bytes and reads --bpp I.F as
 * (I*10^k + F)/10^k with F parsed by strtoul base 0 (a leading 0 makes it
 * octal); it is given the largest decimal it reads right that keeps it
 * within floor(bpp*W*H/8). */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare_internal.h"
#include "xsf_codecs.h"

#define SVT_MAX_FRAMES 100000

/* SvtJpegxsEncApp's --colour-format for the picture, NULL where it has none. */
static const char *svt_colour_format(const xsf_picture *pic, int rgb)
{
    const xsf_format *f = &pic->fmt;
    if (f->nc == 1)
        return "yuv400";
    if (f->nc != 3 || f->width[1] != f->width[2] || f->height[1] != f->height[2])
        return NULL;
    for (int c = 1; c < 3; c++)
        if (f->depth[c] != f->depth[0])
            return NULL;
    const int full = f->width[1] == f->width[0] && f->height[1] == f->height[0];
    if (full)
        return rgb ? "rgb" : "yuv444";
    if (rgb || f->width[1] != (f->width[0] + 1) / 2)
        return NULL;
    if (f->height[1] == f->height[0])
        return "yuv422";
    return f->height[1] == (f->height[0] + 1) / 2 ? "yuv420" : NULL;
}

/* --bpp for a budget of floor(bpp*W*H/8) bytes (see the top of the file). */
static void svt_bpp_text(double bpp, int w, int h, char *buf, size_t len)
{
    const unsigned long long pixels = (unsigned long long)w * (unsigned long long)h;
    const unsigned long long budget = (unsigned long long)floor(bpp * (double)pixels / 8.0);
    const unsigned long long micro = budget * 8ull * 1000000ull / pixels;
    const unsigned long long ip = micro / 1000000ull, frac = micro % 1000000ull;
    if (frac >= 100000ull) {
        char digits[8];
        snprintf(digits, sizeof digits, "%06llu", frac);
        size_t n = strlen(digits);
        while (n > 1 && digits[n - 1] == '0')
            digits[--n] = '\0';
        snprintf(buf, len, "%llu.%s", ip, digits);
    } else {
        /* A fraction below 0.1: one octal-safe digit after the zero (0.01..0.07). */
        unsigned long long hundredths = frac / 10000ull;
        hundredths = hundredths > 7 ? 7 : hundredths;
        if (hundredths)
            snprintf(buf, len, "%llu.0%llu", ip, hundredths);
        else
            snprintf(buf, len, "%llu", ip);
    }
}

/* Frames and frames/s of an SVT app's log; 0 when it gives none. */
static int svt_fps(const char *log, double *fps, long *frames)
{
    FILE *f = fopen(log, "r");
    if (!f)
        return 0;
    char line[512];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        const char *s = strstr(line, "Finish ");
        if (s && sscanf(s, "Finish %ld frames, average %lf", frames, fps) == 2 && *fps > 0)
            found = 1;
    }
    fclose(f);
    return found;
}

/* The version the library prints ("SVT-JPEGXS Encoder Lib v0.10"), or "". */
static void svt_version(const char *log, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(log, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        const char *s = strstr(line, "Encoder Lib v");
        if (s) {
            s += strlen("Encoder Lib ");
            snprintf(buf, len, "%.*s", (int)strcspn(s, " \t\r\n"), s);
            break;
        }
    }
    fclose(f);
}

typedef struct svt_run {
    const cmp_peers *peers;
    char dir[CMP_PATH_MAX];
    char in[CMP_PATH_MAX + 16], out[CMP_PATH_MAX + 16], dec[CMP_PATH_MAX + 16],
        log[CMP_PATH_MAX + 16];
} svt_run;

static void svt_paths(svt_run *r)
{
    snprintf(r->in, sizeof r->in, "%s/in.yuv", r->dir);
    snprintf(r->out, sizeof r->out, "%s/out.jxs", r->dir);
    snprintf(r->dec, sizeof r->dec, "%s/dec.yuv", r->dir);
    snprintf(r->log, sizeof r->log, "%s/svt.log", r->dir);
}

/* SvtJpegxsEncApp on r->in: frames repeats, the codestream to r->out when
 * `keep`; returns its exit status. */
static int svt_encode(const svt_run *r, int w, int h, int depth, const char *format,
                      const char *bpp, long frames, int keep, const char *verbose)
{
    char ws[16], hs[16], ds[16], ns[24], lp[16];
    snprintf(ws, sizeof ws, "%d", w);
    snprintf(hs, sizeof hs, "%d", h);
    snprintf(ds, sizeof ds, "%d", depth);
    snprintf(ns, sizeof ns, "%ld", frames);
    snprintf(lp, sizeof lp, "%d", r->peers->threads);
    char *argv[] = {(char *)r->peers->svt_enc,
                    "-i",
                    (char *)r->in,
                    "-w",
                    ws,
                    "-h",
                    hs,
                    "--input-depth",
                    ds,
                    "--colour-format",
                    (char *)format,
                    "--bpp",
                    (char *)bpp,
                    "-n",
                    ns,
                    "--lp",
                    lp,
                    "-v",
                    (char *)verbose,
                    keep ? "-b" : NULL,
                    (char *)r->out,
                    NULL};
    return cmp_spawn(NULL, r->log, argv);
}

/* SvtJpegxsDecApp on r->out: frames repeats, the picture to r->dec when `keep`. */
static int svt_decode(const svt_run *r, long frames, int keep)
{
    char ns[24], lp[16];
    snprintf(ns, sizeof ns, "%ld", frames);
    snprintf(lp, sizeof lp, "%d", r->peers->threads);
    char *argv[] = {(char *)r->peers->svt_dec,
                    "-i",
                    (char *)r->out,
                    "-n",
                    ns,
                    "--lp",
                    lp,
                    "-v",
                    "1",
                    keep ? "-o" : NULL,
                    (char *)r->dec,
                    NULL};
    return cmp_spawn(NULL, r->log, argv);
}

xsf_status cmp_svt_check(cmp_peers *p, xsf_error *err)
{
    if (access(p->svt_enc, X_OK))
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                             "SVT-JPEG-XS: no %s (on PATH or --svt-enc PATH; "
                             "scripts/svt-build.sh builds it): its rows are left out",
                             p->svt_enc);
    svt_run r;
    memset(&r, 0, sizeof r);
    r.peers = p;
    xsf_status st = cmp_temp_dir(r.dir, sizeof r.dir, err);
    if (st)
        return st;
    svt_paths(&r);
    /* A 256x64 4:2:2 8-bit ramp at 4 bpp: 8192 bytes. */
    enum { W = 256, H = 64 };
    FILE *f = fopen(r.in, "wb");
    int ok = f != NULL;
    for (int i = 0; ok && i < W * H * 2; i++)
        ok = fputc((i % W + i / W) & 0xff, f) != EOF;
    if (f && fclose(f))
        ok = 0;
    const int rc = ok ? svt_encode(&r, W, H, 8, "yuv422", "4", 1, 1, "2") : -1;
    FILE *o = rc == 0 ? fopen(r.out, "rb") : NULL;
    long bytes = -1;
    if (o && !fseek(o, 0, SEEK_END))
        bytes = ftell(o);
    if (o)
        fclose(o);
    char version[32], tail[160];
    svt_version(r.log, version, sizeof version);
    cmp_log_tail(r.log, tail, sizeof tail);
    cmp_temp_remove(r.dir);
    if (!ok)
        return xsf_error_set(err, XSF_ERR_IO, "SVT-JPEG-XS: cannot write its test picture");
    if (rc != 0 || bytes != W * H * 4 / 8)
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                             "SVT-JPEG-XS: %s does not encode a test picture (exit status %d, "
                             "%ld bytes: %s): its rows are left out",
                             p->svt_enc, rc, bytes, tail);
    snprintf(
        p->about[CMP_SVT], sizeof p->about[CMP_SVT],
        "SVT-JPEG-XS encoder lib %s (%.150s, --lp %d), decoded by xsflow's C decoder%s%.150s%s",
        version[0] ? version : "(version not printed)", p->svt_enc, p->threads,
        p->svt_dec[0] ? "; SvtJpegxsDecApp (" : " (no SvtJpegxsDecApp: decoding not timed)",
        p->svt_dec[0] ? p->svt_dec : "", p->svt_dec[0] ? ") must agree and is timed" : "");
    return XSF_OK;
}

/* Repeats for a timing of at least time_ms at `fps`. */
static long repeats(double time_ms, double fps)
{
    const double n = ceil(time_ms / 1000.0 * fps);
    return n < 2 ? 1 : (n > SVT_MAX_FRAMES ? SVT_MAX_FRAMES : (long)n);
}

static xsf_status svt_measure(cmp_job *job, svt_run *r)
{
    const xsf_picture *pic = &job->src->host;
    const xsf_format *f = &pic->fmt;
    const char *format = svt_colour_format(pic, job->src->rgb);
    snprintf(job->filter, sizeof job->filter, "5/3");
    job->levels_h = 5;
    job->levels_v = 2;
    job->colour = "none";
    if (job->bpp <= 0) {
        job->refused = 1;
        snprintf(job->note, sizeof job->note, "SvtJpegxsEncApp has no lossless mode");
        return XSF_OK;
    }
    if (!format || f->depth[0] < 8) {
        job->refused = 1;
        snprintf(job->note, sizeof job->note,
                 "SvtJpegxsEncApp takes 4:0:0, 4:2:0, 4:2:2, 4:4:4 or RGB of one depth, 8 bits "
                 "or more");
        return XSF_OK;
    }
    xsf_status st = cmp_write_planes(r->in, pic, &job->err);
    if (st)
        return st;
    char bpp[32];
    svt_bpp_text(job->bpp, f->width[0], f->height[0], bpp, sizeof bpp);
    int rc = svt_encode(r, f->width[0], f->height[0], f->depth[0], format, bpp, 1, 1, "1");
    char tail[200];
    if (rc != 0) {
        cmp_log_tail(r->log, tail, sizeof tail);
        job->refused = 1;
        snprintf(job->note, sizeof job->note, "SvtJpegxsEncApp --bpp %s: exit status %d: %.120s",
                 bpp, rc, tail);
        return XSF_OK;
    }
    double fps = 0;
    long frames = 0;
    svt_fps(r->log, &fps, &frames);
    /* The codestream, decoded by xsflow's C decoder. */
    FILE *in = fopen(r->out, "rb");
    uint8_t *cs = NULL;
    long len = -1;
    if (in && !fseek(in, 0, SEEK_END) && (len = ftell(in)) > 0 && !fseek(in, 0, SEEK_SET) &&
        (cs = malloc((size_t)len)) && fread(cs, 1, (size_t)len, in) != (size_t)len)
        len = -1;
    if (in)
        fclose(in);
    if (len <= 0 || !cs) {
        free(cs);
        return xsf_error_set(&job->err, XSF_ERR_IO, "SvtJpegxsEncApp wrote no codestream");
    }
    job->bytes = (size_t)len;
    xsf_error derr;
    xsf_error_clear(&derr);
    st = xsf_codec_decode_picture(cs, (size_t)len, &job->decoded, &derr);
    free(cs);
    if (st)
        return xsf_error_set(&job->err, st,
                             "xsflow's C decoder refuses SVT-JPEG-XS's %ld-byte codestream: %s",
                             len, derr.msg);
    if (!xsf_format_equal(&job->decoded.fmt, f))
        return xsf_error_set(&job->err, XSF_ERR_INVALID,
                             "SVT-JPEG-XS's codestream decodes to another format than its input");
    /* Encoding speed over enough frames. */
    if (fps > 0 && job->time_ms > 0 && repeats(job->time_ms, fps) > 1 &&
        svt_encode(r, f->width[0], f->height[0], f->depth[0], format, bpp,
                   repeats(job->time_ms, fps), 0, "1") == 0)
        svt_fps(r->log, &fps, &frames);
    if (fps > 0) {
        job->enc_s[0] = 1.0 / fps;
        job->enc_runs[0] = (int)frames;
    }
    int n = snprintf(job->note, sizeof job->note, "--bpp %s; decoded by xsflow's C decoder", bpp);
    job->checked = 1;
    if (!r->peers->svt_dec[0])
        return XSF_OK;
    /* SvtJpegxsDecApp: the same picture, and its speed. */
    rc = svt_decode(r, 1, 1);
    if (rc != 0) {
        cmp_log_tail(r->log, tail, sizeof tail);
        snprintf(job->note + n, sizeof job->note - (size_t)n,
                 "; SvtJpegxsDecApp failed (exit status %d: %.100s)", rc, tail);
        return XSF_OK;
    }
    job->checked = cmp_planes_equal(r->dec, &job->decoded);
    fps = 0;
    svt_fps(r->log, &fps, &frames);
    if (fps > 0 && job->time_ms > 0 && repeats(job->time_ms, fps) > 1 &&
        svt_decode(r, repeats(job->time_ms, fps), 0) == 0)
        svt_fps(r->log, &fps, &frames);
    if (fps > 0) {
        job->dec_s[0] = 1.0 / fps;
        job->dec_runs[0] = (int)frames;
    }
    snprintf(job->note + n, sizeof job->note - (size_t)n, "%s",
             job->checked ? "; SvtJpegxsDecApp agrees"
                          : "; MISMATCH: SvtJpegxsDecApp's picture differs");
    return XSF_OK;
}

xsf_status cmp_svt_run(cmp_job *job)
{
    svt_run r;
    memset(&r, 0, sizeof r);
    r.peers = job->peers;
    xsf_status st = cmp_temp_dir(r.dir, sizeof r.dir, &job->err);
    if (st)
        return st;
    svt_paths(&r);
    st = svt_measure(job, &r);
    cmp_temp_remove(r.dir);
    return st;
}
