/* BPC-PaCo in the xsflow program: what `encode --codec bpc` runs, and what
 * `info` runs for files that start with a BPC-PaCo codestream (`decode`
 * takes them through the pipeline, like .jxs files). A .bpc file holds
 * codestreams one after the other, one per frame, as a .jxs file does. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpc.h"
#include "cli.h"
#include "commands.h"
#include "image_io.h"
#include "xsf_clock.h"

static const bpc_tables *load_tables(const char *path)
{
    uint8_t *data;
    size_t len;
    xsf_error err;
    xsf_error_clear(&err);
    if (imgio_read_file(path, &data, &len, &err) != XSF_OK) {
        cli_error(path, "%s", err.msg);
        return NULL;
    }
    bpc_tables *t = NULL;
    if (bpc_tables_load(&t, data, len, &err) != XSF_OK)
        cli_error(path, "%s", err.msg);
    free(data);
    return t;
}

/* ---- encode ---- */

typedef struct bpc_encode_args {
    const char *in, *out, *tables, *sampling;
    double bpp;
    uint64_t bytes;
    int frames, size[2], depth, passes;
    int gpu, quiet;
    bpc_params p;
} bpc_encode_args;

static int encode_args(int argc, char **argv, bpc_encode_args *a)
{
    memset(a, 0, sizeof *a);
    bpc_params_default(&a->p);
    a->frames = -1;
    a->gpu = -1;
    a->sampling = "444";
    a->depth = 8;
    a->passes = (int)a->p.variant;
    int codec = 0;
    const cli_option options[] = {
        CLI_OPT("codec", 0, CLI_CHOICE, &codec, "bpc", "BPC-PaCo (xs: JPEG XS, see encode --help)", .choices = "xs|bpc"),
        CLI_OPT("output", 'o', CLI_STRING, &a->out, "OUT.bpc", "output file"),
        CLI_OPT("bpp", 0, CLI_DOUBLE, &a->bpp, "B",
                "target bits per pixel (of component 0's size): each codestream is\n"
                "at most floor(B*W*H/8) bytes and within 1% of it",
                .lo = 0, .hi = 1024, .flags = CLI_ABOVE_LO),
        CLI_OPT("bytes", 0, CLI_BYTES, &a->bytes, "N", "target codestream size in bytes instead", .lo = 1,
                .hi = (double)(1ULL << 32)),
        CLI_OPT("passes", 0, CLI_INT, &a->passes, "1|2|3", "coding passes per bitplane (default 2)", .lo = 1, .hi = 3),
        CLI_OPT("filter", 0, CLI_CHOICE, &a->p.filter, "53|97", "5/3 reversible (default) or 9/7 irreversible",
                .choices = "53|97|5/3|9/7", .values = bpc_filter_values),
        CLI_OPT("levels", 0, CLI_CALL, &a->p.levels, "L", "DWT levels 0..6 (default 5)", .call = bpc_option_levels),
        CLI_OPT("colour", 0, CLI_CHOICE, &a->p.colour, "C",
                "auto (default: RCT with the 5/3, ICT with the 9/7, for three\n"
                "components of one shape), none, rct, ict",
                .choices = "none|rct|ict|auto"),
        CLI_OPT("color", 0, CLI_CHOICE, &a->p.colour, "C", NULL, .choices = "none|rct|ict|auto", .flags = CLI_HIDDEN),
        CLI_OPT("qstep", 0, CLI_CALL, &a->p.qstep, "Q", "9/7 quantization step in 8-bit units (default 1)",
                .call = bpc_option_qstep),
        CLI_OPT("tables", 0, CLI_STRING, &a->tables, "FILE",
                "probability tables from xsflow bpc-train (the decoder needs them)"),
        CLI_OPT("size", 0, CLI_SIZE, a->size, "WxH", "the picture size of a .yuv input"),
        CLI_OPT("sampling", 0, CLI_STRING, &a->sampling, "S", ".yuv input: 444 (default), 422, 420 or mono"),
        CLI_OPT("depth", 0, CLI_INT, &a->depth, "D", ".yuv input: bits per sample (default 8)", .lo = 1, .hi = 16),
        CLI_OPT("frames", 0, CLI_INT, &a->frames, "N", "encode the first N frames only", .lo = 1, .hi = 1 << 30),
        CLI_OPT("cpu", 0, CLI_SET, &a->gpu, NULL, "the C reference encoder", .value = 0),
        CLI_OPT("gpu", 0, CLI_SET, &a->gpu, NULL, "the CUDA encoder (default: GPU where usable)", .value = 1),
        CLI_OPT("quiet", 'q', CLI_FLAG, &a->quiet, NULL, "print nothing but errors"),
        CLI_TABLE_END};
    const cli_command cmd = {
        .name = "encode --codec bpc",
        .synopsis = "IN -o OUT.bpc [options]",
        .about = "Encodes the frames of IN (.yuv, .y4m, .ppm, .pgm) as BPC-PaCo codestreams, one\n"
                 "after the other in OUT (bpc/FORMAT.md). Without a rate every coding pass is kept:\n"
                 "lossless with the 5/3.\n",
        .options = options,
        .input = &a->in};
    const int r = cli_parse(&cmd, argc, argv);
    if (r)
        return r;
    a->p.variant = (bpc_variant)a->passes;
    if (!a->in || !a->out) {
        cli_usage(&cmd, stderr);
        return 2;
    }
    return 0;
}

int bpc_cli_encode(int argc, char **argv)
{
    bpc_encode_args a;
    int r = encode_args(argc, argv, &a);
    if (r)
        return r == 1 ? 0 : 2;
    xsf_error err;
    xsf_error_clear(&err);
    const imgio_format fmt = imgio_format_from_path(a.in);
    if (fmt == IMGIO_FORMAT_NONE) {
        cli_error(a.in, "unknown input format: name it .yuv, .y4m, .ppm or .pgm");
        return 2;
    }
    if (fmt == IMGIO_FORMAT_YUV && !a.size[0]) {
        cli_error(a.in, "a .yuv input needs --size WxH (and --sampling, --depth)");
        return 2;
    }
    const bpc_tables *tables = NULL;
    if (a.tables && !(tables = load_tables(a.tables)))
        return 1;
    a.p.tables = tables;
    if (a.gpu < 0)
        a.gpu = bpc_gpu_available() == XSF_OK;
    else if (a.gpu && bpc_gpu_available() != XSF_OK) {
        cli_error("--gpu", "no usable GPU (or no CUDA kernels in this build)");
        bpc_tables_destroy((bpc_tables *)tables);
        return 1;
    }
    imgio_raw_layout raw;
    imgio_reader *rd = NULL;
    if (fmt == IMGIO_FORMAT_YUV &&
        imgio_raw_layout_make(&raw, a.sampling, a.size[0], a.size[1], a.depth, &err) != XSF_OK) {
        cli_error("--sampling", "%s", err.msg);
        bpc_tables_destroy((bpc_tables *)tables);
        return 2;
    }
    if (imgio_reader_open(&rd, a.in, fmt, fmt == IMGIO_FORMAT_YUV ? &raw : NULL, &err) != XSF_OK) {
        cli_error(a.in, "%s", err.msg);
        bpc_tables_destroy((bpc_tables *)tables);
        return 1;
    }
    FILE *out = NULL;
    bpc_encoder *enc = NULL;
    bpc_gpu_encoder *genc = NULL;
    uint8_t *cs = NULL;
    size_t cap = 0;
    unsigned long frames = 0;
    uint64_t total = 0;
    double seconds = 0;
    int status = 0;
    while (a.frames < 0 || frames < (unsigned long)a.frames) {
        const xsf_picture *pic;
        if (imgio_read(rd, &pic, &err) != XSF_OK) {
            cli_error(a.in, "%s", err.msg);
            status = 1;
            break;
        }
        if (!pic)
            break;
        if (pic->fmt.nc > BPC_MAX_COMPONENTS) {
            cli_error(a.in, "%d components: BPC-PaCo codes at most %d", pic->fmt.nc, BPC_MAX_COMPONENTS);
            status = 2;
            break;
        }
        if (frames == 0) {
            if (a.bpp > 0)
                bpc_params_set_bpp(&a.p, a.bpp, pic->fmt.width[0], pic->fmt.height[0]);
            else if (a.bytes > 0)
                a.p.target_bytes = (size_t)a.bytes;
            cap = bpc_encode_bound(&a.p, &pic->fmt);
            xsf_status st = XSF_OK;
            if (a.gpu) {
                st = bpc_gpu_encoder_create(&genc, &a.p, &pic->fmt, NULL);
                if (st)
                    cli_error(a.in, "GPU encoder: %s", genc ? bpc_gpu_encoder_error(genc) : xsf_status_name(st));
            } else {
                st = bpc_encoder_create(&enc, &a.p);
            }
            if (st || !cap) {
                if (!cap)
                    cli_error(a.in, "cannot code this picture with these parameters (sizes, depth, step)");
                status = 2;
                break;
            }
            if (!(cs = malloc(cap))) {
                cli_error(a.out, "out of memory");
                status = 1;
                break;
            }
        }
        size_t len = 0;
        const double t0 = xsf_clock_mono_s();
        xsf_status st = a.gpu ? bpc_gpu_encode(genc, pic, cs, cap, &len) : bpc_encode(enc, pic, cs, cap, &len);
        seconds += xsf_clock_mono_s() - t0;
        if (st != XSF_OK) {
            cli_error(a.in, "frame %lu: %s", frames, a.gpu ? bpc_gpu_encoder_error(genc) : bpc_encoder_error(enc));
            status = st == XSF_ERR_ARG ? 2 : 1;
            break;
        }
        if (!out && !(out = strcmp(a.out, "-") ? fopen(a.out, "wb") : stdout)) {
            cli_error(a.out, "%s", strerror(errno)); /* created once a frame is coded */
            status = 1;
            break;
        }
        if (fwrite(cs, 1, len, out) != len) {
            cli_error(a.out, "%s", strerror(errno));
            status = 1;
            break;
        }
        total += len;
        frames++;
    }
    if (out && out != stdout && fclose(out) && !status) {
        cli_error(a.out, "%s", strerror(errno));
        status = 1;
    }
    if (!status && frames == 0) {
        cli_error(a.in, "no frames");
        status = 1;
    }
    if (!status && !a.quiet)
        fprintf(a.out && !strcmp(a.out, "-") ? stderr : stdout,
                "%s: %lu frame%s, %llu bytes, BPC-PaCo %d passes (%s)%s, %.1f ms per frame\n", a.out, frames,
                frames == 1 ? "" : "s", (unsigned long long)total, (int)a.p.variant, a.gpu ? "GPU" : "C",
                a.p.target_bytes ? "" : ", every pass", 1e3 * seconds / (double)frames);
    free(cs);
    bpc_encoder_destroy(enc);
    bpc_gpu_encoder_destroy(genc);
    imgio_reader_close(rd);
    bpc_tables_destroy((bpc_tables *)tables);
    return status;
}

/* ---- info ---- */

static const char *colour_name(bpc_colour c)
{
    return c == BPC_COLOUR_RCT ? "RCT" : (c == BPC_COLOUR_ICT ? "ICT" : "none");
}

int bpc_cli_info(int argc, char **argv)
{
    const char *in = NULL;
    int all = 0, verbose = 0;
    const cli_option options[] = {CLI_OPT("all", 0, CLI_FLAG, &all, NULL, "print every frame in full"),
                                  CLI_OPT("verbose", 'v', CLI_FLAG, &verbose, NULL, "(no more for BPC-PaCo)"),
                                  CLI_TABLE_END};
    const cli_command cmd = {.name = "info", .synopsis = "IN.bpc [--all]", .options = options, .input = &in};
    const int r = cli_exit_status(cli_parse(&cmd, argc, argv));
    if (r >= 0)
        return r;
    if (!in) {
        cli_error("info", "no input");
        return 2;
    }
    uint8_t *data;
    size_t len;
    xsf_error err;
    xsf_error_clear(&err);
    if (imgio_read_file(in, &data, &len, &err) != XSF_OK) {
        cli_error(in, "%s", err.msg);
        return 1;
    }
    size_t off = 0;
    unsigned long frame = 0;
    int status = 0;
    while (off < len) {
        bpc_info info;
        if (bpc_parse_header(data + off, len - off, &info, &err) != XSF_OK) {
            fflush(stdout);
            cli_error(in, "frame %lu (file byte %zu): %s", frame, off, err.msg);
            status = 1;
            break;
        }
        if (frame == 0)
            printf("%s: BPC-PaCo codestreams (xsflow bpc/FORMAT.md)\n", in);
        if (frame == 0 || all) {
            printf("frame %lu: file bytes %zu..%zu, version %d.%d\n", frame, off, off + info.codestream_bytes - 1,
                   info.version_major, info.version_minor);
            for (int c = 0; c < info.nc; c++)
                printf("  component %d: %dx%d, %d bits\n", c, info.width[c], info.height[c], info.depth[c]);
            printf("  %d coding passes per bitplane, %s DWT, %d levels, colour transform %s\n", (int)info.variant,
                   info.filter == BPC_FILTER_53 ? "5/3 reversible" : "9/7 irreversible", info.levels,
                   colour_name(info.colour));
            if (info.filter == BPC_FILTER_97)
                printf("  quantization step %g (8-bit units)\n", (double)info.qstep);
            if (info.tables_id)
                printf("  probability tables: external, id %08x\n", info.tables_id);
            else
                printf("  probability tables: built-in\n");
            printf("  %zu code blocks; header %zu, index %zu, data %zu bytes\n", info.codeblocks,
                   info.header_bytes, info.index_bytes, info.data_bytes);
        }
        off += info.codestream_bytes;
        frame++;
    }
    if (!status)
        printf("%lu frame%s, %zu bytes\n", frame, frame == 1 ? "" : "s", len);
    free(data);
    return status;
}
