/* xsflow encode: .yuv, .y4m, .ppm or .pgm to codestreams of any codec of
 * the table (codec/include/xsf_codecs.h), one per frame, one after the other, with
 * its C or GPU encoder (imgio/include/encode_file.h runs it). The options are the
 * common ones below and the codec's own knobs (its encoder->options), each
 * given to the codec by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "encode_file.h"
#include "xsf_cli.h"
#include "xsf_codecs.h"

#define MAX_OPTIONS 96
#define MAX_FILES 4

static const char about[] =
    "Encodes the frames of IN as codestreams of a codec, one after the other in OUT.\n"
    "IN's extension picks the reader:\n"
    "  .yuv  planar, needs --size WxH, --sampling and --depth (the layout of decode's .yuv)\n"
    "  .y4m  YUV4MPEG2 (size, sampling and depth from its header)\n"
    "  .ppm  RGB, coded with the codec's colour transform unless told otherwise\n"
    "  .pgm  one component\n";

typedef struct encode_args {
    const char *in, *out, *codec_name, *sampling;
    const xsf_codec *codec;
    int size[2], depth, frames, gpu, quiet, lossless;
    double bpp;
    uint64_t bytes;
    char knobs[2048]; /* the codec's own, "key=value ..." */
    const char *file_knob[MAX_FILES], *file_path[MAX_FILES];
    int nfiles;
    cli_option table[MAX_OPTIONS];
    char sampling_help[96], depth_help[64], synopsis[80], out_help[16], name[48];
} encode_args;

/* A knob of the codec's table given on the command line: checked by the
 * codec now (the message names the option), kept for the encoder. */
static int codec_knob(void *ctx, const cli_option *o, const char *value)
{
    encode_args *a = ctx;
    const xsf_option *k = xsf_option_find(a->codec->encoder->options, o->name);
    xsf_error err;
    xsf_error_clear(&err);
    char subject[80];
    snprintf(subject, sizeof subject, "--%s", o->name);
    if (k && k->kind == XSF_OPTION_FILE) {
        if (a->nfiles == MAX_FILES) {
            cli_error(subject, "too many files");
            return 2;
        }
        a->file_knob[a->nfiles] = o->name;
        a->file_path[a->nfiles++] = value;
        return 0;
    }
    if (a->codec->encoder->check_option(o->name, value, &err) != XSF_OK ||
        xsf_options_append(a->knobs, sizeof a->knobs, o->name, value, &err) != XSF_OK) {
        cli_error(subject, "%s", err.msg);
        return 2;
    }
    return 0;
}

/* The codec's knobs as rows of the option table, from row n on. */
static size_t add_codec_rows(encode_args *a, size_t n)
{
    for (const xsf_option *k = a->codec->encoder->options;
         k->kind != XSF_OPTION_END && n + 1 < MAX_OPTIONS; k++) {
        cli_option *o = &a->table[n++];
        if (k->kind == XSF_OPTION_HEADING) {
            *o = (cli_option)CLI_HEAD(k->help);
            continue;
        }
        *o = (cli_option)CLI_OPT(k->name, 0, CLI_CALL, NULL, k->arg, k->help, .call = codec_knob);
        if (xsf_option_is_flag(k))
            o->flags |= CLI_NO_VALUE;
        if (k->flags & XSF_OPTION_HIDDEN)
            o->flags |= CLI_HIDDEN;
    }
    a->table[n] = (cli_option)CLI_TABLE_END;
    return n;
}

/* The codec a command line names (--codec NAME, --codec=NAME), else JPEG XS. */
static const xsf_codec *codec_of(int argc, char **argv)
{
    const xsf_codec *codec = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--codec") && i + 1 < argc)
            codec = xsf_codec_find(argv[i + 1]);
        else if (!strncmp(argv[i], "--codec=", 8))
            codec = xsf_codec_find(argv[i] + 8);
    }
    return codec && codec->encoder ? codec : xsf_codec_find("jpeg-xs");
}

/* 0: parsed; 1: help printed; 2: usage error (already reported). */
static int parse_args(int argc, char **argv, encode_args *a)
{
    memset(a, 0, sizeof *a);
    a->codec = codec_of(argc, argv);
    a->frames = -1;
    a->depth = a->codec->encoder->yuv_depth;
    a->sampling = a->codec->encoder->yuv_sampling;
    snprintf(a->sampling_help, sizeof a->sampling_help, "400, 420, 422, 444 or 4444 (default %s)",
             a->sampling);
    snprintf(a->depth_help, sizeof a->depth_help, "bits per sample, 1..16 (default %d)", a->depth);
    snprintf(a->out_help, sizeof a->out_help, "OUT.%s", a->codec->extension);
    snprintf(a->name, sizeof a->name, "encode%s%s",
             a->codec == xsf_codec_find("jpeg-xs") ? "" : " --codec ",
             a->codec == xsf_codec_find("jpeg-xs") ? "" : a->codec->extension);
    snprintf(a->synopsis, sizeof a->synopsis, "IN -o %s [--codec NAME] [--bpp B] [options]",
             a->out_help);
    const cli_option common[] = {
        CLI_OPT("output", 'o', CLI_STRING, &a->out, a->out_help, "output file"),
        CLI_OPT("codec", 0, CLI_STRING, &a->codec_name, "NAME",
                "jpeg-xs (xs, default) or bpc-paco (bpc); its options follow"),
        CLI_HEAD("rate:"),
        CLI_OPT("bpp", 0, CLI_DOUBLE, &a->bpp, "B",
                "target bits per pixel (of component 0's size): codestreams of\n"
                "floor(B*W*H/8) bytes (JPEG XS: exactly; BPC-PaCo: at most, within 1%)",
                .lo = 0, .hi = 1024, .flags = CLI_ABOVE_LO),
        CLI_OPT("bytes", 0, CLI_BYTES, &a->bytes, "N",
                "target codestream size in bytes instead (k, M: binary)", .lo = 1,
                .hi = (double)(1ULL << 32)),
        CLI_OPT("lossless", 0, CLI_FLAG, &a->lossless, NULL, "lossless coding"),
        CLI_HEAD("input (.yuv):"),
        CLI_OPT("size", 0, CLI_SIZE, a->size, "WxH", "picture size"),
        CLI_OPT("sampling", 0, CLI_STRING, &a->sampling, "S", a->sampling_help),
        CLI_OPT("depth", 0, CLI_INT, &a->depth, "N", a->depth_help, .lo = 1, .hi = 16),
        CLI_OPT("frames", 0, CLI_INT, &a->frames, "N", "encode the first N frames only", .lo = 1,
                .hi = 1 << 30),
        CLI_HEAD("engine:"),
        CLI_OPT("cpu", 0, CLI_SET, &a->gpu, NULL, "the C reference encoder (default)", .value = 0),
        CLI_OPT("gpu", 0, CLI_SET, &a->gpu, NULL, "the CUDA encoder (same bytes)", .value = 1),
        CLI_OPT("quiet", 'q', CLI_FLAG, &a->quiet, NULL, "print nothing but errors"),
    };
    const size_t n = sizeof common / sizeof common[0];
    memcpy(a->table, common, sizeof common);
    add_codec_rows(a, n);
    const cli_command cmd = {.name = a->name,
                             .synopsis = a->synopsis,
                             .about = about,
                             .options = a->table,
                             .input = &a->in,
                             .input_required = 1,
                             .ctx = a};
    const int r = cli_parse(&cmd, argc, argv);
    if (r)
        return r;
    if (a->codec_name && xsf_codec_find(a->codec_name) != a->codec) {
        cli_error("--codec", "'%s' is not a codec with an encoder (jpeg-xs, bpc-paco)",
                  a->codec_name);
        return 2;
    }
    if (!a->out) {
        cli_error(a->in, "no output: give -o %s", a->out_help);
        return 2;
    }
    return 0;
}

/* The settings of the command line (the codec checks them: rate, knobs). */
static int settings_of(const encode_args *a, xsf_encode_settings *s, const void *params)
{
    xsf_encode_settings_init(s);
    s->bpp = a->bpp;
    s->target_bytes = (size_t)a->bytes;
    s->lossless = a->lossless;
    s->options = a->knobs;
    s->params = params;
    xsf_error err;
    xsf_error_clear(&err);
    if (a->codec->encoder->check(s, &err) != XSF_OK) {
        cli_error(a->in, "%s", err.msg);
        return 2;
    }
    return 0;
}

/* The codec's parameters from the files its knobs name (BPC-PaCo's tables). */
static int load_files(const encode_args *a, void **params)
{
    for (int i = 0; i < a->nfiles; i++) {
        xsf_error err;
        xsf_error_clear(&err);
        if (imgio_codec_params_read(a->codec, params, a->file_knob[i], a->file_path[i], &err) !=
            XSF_OK) {
            cli_error(a->file_path[i], "%s", err.msg);
            return 1;
        }
    }
    return 0;
}

/* The job: input format and layout, engine. 0 or the exit status. */
static int job_of(const encode_args *a, imgio_encode_job *job)
{
    memset(job, 0, sizeof *job);
    job->in = a->in;
    job->out = a->out;
    job->codec = a->codec;
    job->device = a->gpu ? 0 : -1;
    job->max_frames = a->frames;
    job->format = imgio_format_from_path(a->in);
    if (job->format == IMGIO_FORMAT_NONE) {
        cli_error(a->in, "unknown input format: name it .yuv, .y4m, .ppm or .pgm");
        return 2;
    }
    if (job->format == IMGIO_FORMAT_YUV) {
        xsf_error err;
        xsf_error_clear(&err);
        if (!a->size[0] || !a->size[1]) {
            cli_error(a->in, "a .yuv input needs --size WxH (and --sampling, --depth)");
            return 2;
        }
        if (imgio_raw_layout_make(&job->raw, a->sampling, a->size[0], a->size[1], a->depth, &err) !=
            XSF_OK) {
            cli_error("--sampling", "%s", err.msg);
            return 2;
        }
    }
    if (a->gpu && a->codec->encoder->gpu_available() != XSF_OK) {
        cli_error("--gpu", "no usable GPU (or no CUDA kernels in this build)");
        return 1;
    }
    return 0;
}

static void print_summary(const encode_args *a, const imgio_encode_report *rep)
{
    const xsf_format *f = &rep->format;
    fprintf(strcmp(a->out, "-") ? stdout : stderr,
            "encoded %lu frame%s (%dx%d, %d component%s) with the %s encoder into %s: %llu bytes, "
            "%.4f bits per pixel, %.1f frames/s\n",
            rep->frames, rep->frames == 1 ? "" : "s", f->width[0], f->height[0], f->nc,
            f->nc == 1 ? "" : "s", a->gpu ? "GPU" : "C", a->out, (unsigned long long)rep->bytes,
            8.0 * (double)rep->bytes / ((double)rep->frames * f->width[0] * f->height[0]),
            rep->seconds > 0 ? rep->frames / rep->seconds : 0.0);
}

/* After the command line: the codec's files, the settings, the job, the run. */
static int run(encode_args *a)
{
    void *params = NULL;
    imgio_encode_job job;
    xsf_encode_settings settings;
    int status = load_files(a, &params);
    if (!status)
        status = settings_of(a, &settings, params);
    if (!status)
        status = job_of(a, &job);
    if (!status) {
        job.settings = settings;
        imgio_encode_report rep;
        xsf_error err;
        xsf_error_clear(&err);
        if (imgio_encode_file(&job, &rep, &err) != XSF_OK) {
            cli_error(rep.failed, "%s", err.msg);
            status = rep.refused ? 2 : 1;
        } else if (!a->quiet) {
            print_summary(a, &rep);
        }
    }
    if (params)
        a->codec->params_free(params);
    return status;
}

int cmd_encode(int argc, char **argv)
{
    encode_args *a = malloc(sizeof *a);
    if (!a) {
        cli_error("encode", "out of memory");
        return 1;
    }
    int status = cli_exit_status(parse_args(argc, argv, a));
    if (status < 0)
        status = run(a);
    free(a);
    return status;
}
