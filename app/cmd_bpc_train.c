/* xsflow bpc-train: estimates BPC-PaCo probability tables from pictures
 * (bpc_trainer_*), writes a table file for --tables, or writes the C source
 * of the built-in sets (bpc/tables_builtin.c) from two table files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpc.h"
#include "bpc_internal.h"
#include "cli.h"
#include "image_io.h"
#include "xs.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: xsflow bpc-train [options] IN... -o TABLES\n"
            "       xsflow bpc-train --builtin T53 T97 -o tables_builtin.c\n"
            "\n"
            "Counts the symbols the BPC-PaCo coder emits for the pictures IN (.ppm, .pgm, .y4m,\n"
            "or .jxs: every frame, decoded with the JPEG XS C decoder) per band, bitplane and\n"
            "context, for all three pass variants, and writes the probability tables (thesis\n"
            "eq. 3.3) as a table file for encode/decode --tables. The front end is the codec's:\n"
            "the options below must match those the tables will code with.\n"
            "\n"
            "options:\n"
            "  -o FILE           output\n"
            "  --filter 53|97    (default 53)\n"
            "  --levels L        (default 5); all: every level count 0..6 (the built-in sets)\n"
            "  --qstep Q         9/7 step (default 1)\n"
            "  --colour C        auto (default), none, rct, ict\n"
            "  --average         average each picture's probabilities (Bruns' averaged tables)\n"
            "                    instead of pooling the counts\n"
            "  --builtin T53 T97 write the C source of the built-in sets from two table files\n");
}

static int read_all(const char *path, uint8_t **data, size_t *len)
{
    xsf_error err;
    xsf_error_clear(&err);
    if (imgio_read_file(path, data, len, &err) != XSF_OK) {
        cli_error(path, "%s", err.msg);
        return 1;
    }
    return 0;
}

static int emit_builtin(const char *t53, const char *t97, const char *out, char **sources, int nsources)
{
    const char *paths[2] = {t53, t97};
    bpc_tables *t[2] = {NULL, NULL};
    for (int f = 0; f < 2; f++) {
        uint8_t *data;
        size_t len;
        xsf_error err;
        if (read_all(paths[f], &data, &len))
            return 1;
        if (bpc_tables_load(&t[f], data, len, &err) != XSF_OK) {
            cli_error(paths[f], "%s", err.msg);
            free(data);
            bpc_tables_destroy(t[0]);
            return 1;
        }
        free(data);
    }
    FILE *o = fopen(out, "w");
    if (!o) {
        cli_error(out, "cannot write");
        bpc_tables_destroy(t[0]);
        bpc_tables_destroy(t[1]);
        return 1;
    }
    fprintf(o, "/* Built-in BPC-PaCo probability tables, written by `xsflow bpc-train --builtin`\n"
               " * from %s (5/3) and %s (9/7). Per filter, for variant 1..3, band\n"
               " * (level * 4 + orientation), table plane and the variant's contexts, two hex\n"
               " * digits per entry: a code of the log-odds (tables.c, code_to_p). */\n",
            t53, t97);
    fprintf(o, "const char *const bpc_builtin_source =\n    \"");
    for (int i = 0; i < nsources; i++)
        fprintf(o, "%s%s", i ? " " : "", sources[i]);
    fprintf(o, "\";\n\nconst char *const bpc_builtin_hex[2] = {\n");
    for (int f = 0; f < 2; f++) {
        size_t col = 0;
        fprintf(o, "    /* %s */\n    \"", f ? "9/7" : "5/3");
        for (int v = 1; v <= 3; v++)
            for (int b = 0; b < BPC_TABLE_BANDS; b++)
                for (int j = 0; j < BPC_TABLE_PLANES; j++)
                    for (int k = 0; k < bpc_context_count((bpc_variant)v); k++) {
                        fprintf(o, "%02x", bpc_p_to_code(t[f]->p[v - 1][b][j][k]));
                        if (++col == 48) {
                            fprintf(o, "\"\n    \"");
                            col = 0;
                        }
                    }
        fprintf(o, "\",\n");
    }
    fprintf(o, "};\n");
    fclose(o);
    bpc_tables_destroy(t[0]);
    bpc_tables_destroy(t[1]);
    return 0;
}

static int add_picture(bpc_trainer *tr, const xsf_picture *img, const char *path, unsigned long frame)
{
    if (bpc_trainer_add(tr, img) != XSF_OK) {
        cli_error(path, "frame %lu: %s", frame, bpc_trainer_error(tr));
        return 1;
    }
    return 0;
}

static int add_jxs(bpc_trainer *tr, const char *path)
{
    uint8_t *data;
    size_t len, off = 0;
    if (read_all(path, &data, &len))
        return 1;
    xs_decoder *dec;
    if (xs_decoder_create(&dec) != XSF_OK) {
        free(data);
        return 1;
    }
    int status = 0;
    for (unsigned long frame = 0; off < len && !status; frame++) {
        const xsf_picture *xi;
        size_t used;
        if (xs_decode(dec, data + off, len - off, &used, &xi) != XSF_OK) {
            cli_error(path, "frame %lu: %s", frame, xs_decoder_error(dec));
            status = 1;
            break;
        }
        status = add_picture(tr, xi, path, frame);
        off += used;
    }
    xs_decoder_destroy(dec);
    free(data);
    return status;
}

static int add_file(bpc_trainer *tr, const char *path)
{
    const size_t n = strlen(path);
    if (n > 4 && !strcmp(path + n - 4, ".jxs"))
        return add_jxs(tr, path);
    const imgio_format fmt = imgio_format_from_path(path);
    if (fmt == IMGIO_FORMAT_NONE || fmt == IMGIO_FORMAT_YUV) {
        cli_error(path, "training reads .ppm, .pgm, .y4m and .jxs files");
        return 1;
    }
    xsf_error err;
    xsf_error_clear(&err);
    imgio_reader *rd;
    if (imgio_reader_open(&rd, path, fmt, NULL, &err) != XSF_OK) {
        cli_error(path, "%s", err.msg);
        return 1;
    }
    int status = 0;
    for (unsigned long frame = 0; !status; frame++) {
        const xsf_picture *pic;
        if (imgio_read(rd, &pic, &err) != XSF_OK) {
            cli_error(path, "%s", err.msg);
            status = 1;
            break;
        }
        if (!pic)
            break;
        status = add_picture(tr, pic, path, frame);
    }
    imgio_reader_close(rd);
    return status;
}

int cmd_bpc_train(int argc, char **argv)
{
    bpc_params p;
    bpc_params_default(&p);
    const char *out = NULL, *b53 = NULL, *b97 = NULL;
    int average = 0, ninputs = 0;
    char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    if (!inputs)
        return 1;
    int status = 2;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        long n;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            free(inputs);
            return 0;
        } else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
            if (!(out = cli_option_value(argc, argv, &i)))
                goto done;
        } else if (!strcmp(arg, "--filter")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                goto done;
            p.filter = strstr(v, "9") ? BPC_FILTER_97 : BPC_FILTER_53;
        } else if (!strcmp(arg, "--levels")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                goto done;
            if (!strcmp(v, "all")) {
                p.levels = -1;
            } else if (cli_parse_long(v, 0, BPC_MAX_LEVELS, &n)) {
                cli_error(arg, "needs 0..%d or all", BPC_MAX_LEVELS);
                goto done;
            } else {
                p.levels = (int)n;
            }
        } else if (!strcmp(arg, "--qstep")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                goto done;
            p.qstep = strtof(v, NULL);
        } else if (!strcmp(arg, "--colour") || !strcmp(arg, "--color")) {
            if (!(v = cli_option_value(argc, argv, &i)))
                goto done;
            p.colour = !strcmp(v, "none") ? BPC_COLOUR_NONE
                                          : !strcmp(v, "rct") ? BPC_COLOUR_RCT
                                                              : !strcmp(v, "ict") ? BPC_COLOUR_ICT : BPC_COLOUR_AUTO;
        } else if (!strcmp(arg, "--average")) {
            average = 1;
        } else if (!strcmp(arg, "--builtin")) {
            if (i + 2 >= argc) {
                cli_error(arg, "needs two table files");
                goto done;
            }
            b53 = argv[++i];
            b97 = argv[++i];
        } else if (arg[0] == '-' && arg[1]) {
            cli_error(arg, "unknown option of 'xsflow bpc-train' (see --help)");
            goto done;
        } else {
            inputs[ninputs++] = argv[i];
        }
    }
    if (!out) {
        usage(stderr);
        goto done;
    }
    if (b53) {
        status = emit_builtin(b53, b97, out, inputs, ninputs);
        goto done;
    }
    if (!ninputs) {
        cli_error("bpc-train", "no pictures to train on");
        goto done;
    }
    bpc_trainer *tr;
    if (bpc_trainer_create(&tr, &p) != XSF_OK) {
        status = 1;
        goto done;
    }
    status = 0;
    for (int i = 0; i < ninputs && !status; i++)
        status = add_file(tr, inputs[i]);
    bpc_tables *t = NULL;
    if (!status && bpc_trainer_finish(tr, average, &t) != XSF_OK) {
        cli_error(out, "%s", bpc_trainer_error(tr));
        status = 1;
    }
    if (!status) {
        uint8_t *data;
        size_t len;
        xsf_error err;
        FILE *o = NULL;
        if (bpc_tables_save(t, &data, &len, &err) == XSF_OK) {
            o = fopen(out, "wb");
            if (!o || fwrite(data, 1, len, o) != len)
                status = 1;
            if (o && fclose(o))
                status = 1;
            free(data);
        } else {
            status = 1;
        }
        if (status)
            cli_error(out, "cannot write the table file");
        size_t pics;
        uint64_t syms;
        bpc_trainer_totals(tr, &pics, &syms);
        if (!status)
            printf("%s: tables %08x from %zu pictures, %llu symbols (%s)\n", out, bpc_tables_id(t), pics,
                   (unsigned long long)syms, average ? "averaged per picture" : "pooled counts");
    }
    bpc_tables_destroy(t);
    bpc_trainer_destroy(tr);
done:
    free(inputs);
    return status;
}
