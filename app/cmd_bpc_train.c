/* xsflow bpc-train: estimates BPC-PaCo probability tables from pictures
 * (bpc_trainer_*), writes a table file for --tables, or writes the C source
 * of the built-in sets (bpc/tables_builtin.c, bpc_tables_builtin_c) from two
 * table files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpc.h"
#include "commands.h"
#include "image_io.h"
#include "xs.h"
#include "xsf_cli.h"

static const char about[] =
    "Counts the symbols the BPC-PaCo coder emits for the pictures IN (.ppm, .pgm, .y4m,\n"
    "or .jxs: every frame, decoded with the JPEG XS C decoder) per band, bitplane and\n"
    "context, for all three pass variants, and writes the probability tables (thesis\n"
    "eq. 3.3) as a table file for encode/decode --tables. The front end is the codec's:\n"
    "the options below must match those the tables will code with.\n";

const int bpc_filter_values[4] = {BPC_FILTER_53, BPC_FILTER_97, BPC_FILTER_53, BPC_FILTER_97};

int bpc_option_levels(void *ctx, const cli_option *o, const char *v)
{
    (void)ctx;
    int64_t n;
    if (!strcmp(v, "all") && o->value) { /* bpc-train: every level count */
        *(int *)o->dst = -1;
        return 0;
    }
    if (xsf_parse_integer(v, 0, BPC_MAX_LEVELS, &n, NULL) != XSF_OK) {
        cli_error("--levels", "'%s' is not a level count from 0 to %d%s", v, BPC_MAX_LEVELS,
                  o->value ? " or all" : "");
        return 2;
    }
    *(int *)o->dst = (int)n;
    return 0;
}

int bpc_option_qstep(void *ctx, const cli_option *o, const char *v)
{
    (void)ctx;
    char *end;
    const float q = strtof(v, &end);
    if (!*v || *end || !(q > 0)) {
        cli_error("--qstep", "'%s' is not a positive step", v);
        return 2;
    }
    *(float *)o->dst = q;
    return 0;
}

typedef struct train_args {
    const char *out, *b53, *b97;
    char **inputs;
    int ninputs, want_b97;
} train_args;

static int builtin_first(void *ctx, const cli_option *o, const char *v)
{
    train_args *a = ctx;
    (void)o;
    a->b53 = v;
    a->want_b97 = 1; /* the next argument is the 9/7 table file */
    return 0;
}

static int add_input(void *ctx, const char *arg)
{
    train_args *a = ctx;
    if (a->want_b97) {
        a->b97 = arg;
        a->want_b97 = 0;
    } else {
        a->inputs[a->ninputs++] = (char *)arg;
    }
    return 0;
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

/* --builtin: the C source of the built-in sets from two table files (bpc_tables_builtin_c). */
static int emit_builtin(const char *t53, const char *t97, const char *out, char **sources,
                        int nsources)
{
    const char *paths[2] = {t53, t97};
    bpc_tables *t[2] = {NULL, NULL};
    xsf_error err;
    xsf_error_clear(&err);
    int status = 0;
    for (int f = 0; f < 2 && !status; f++) {
        uint8_t *data;
        size_t len;
        if (read_all(paths[f], &data, &len)) {
            status = 1;
            break;
        }
        if (bpc_tables_load(&t[f], data, len, &err) != XSF_OK) {
            cli_error(paths[f], "%s", err.msg);
            status = 1;
        }
        free(data);
    }
    char *text = NULL;
    size_t len = 0;
    if (!status && bpc_tables_builtin_c(t[0], t[1], t53, t97, (const char *const *)sources,
                                        nsources, &text, &len, &err) != XSF_OK) {
        cli_error(out, "%s", err.msg);
        status = 1;
    }
    FILE *o = status ? NULL : fopen(out, "w");
    if (!status && !o) {
        cli_error(out, "cannot write");
        status = 1;
    }
    if (o) {
        fwrite(text, 1, len, o);
        fclose(o);
    }
    free(text);
    bpc_tables_destroy(t[0]);
    bpc_tables_destroy(t[1]);
    return status;
}

static int add_picture(bpc_trainer *tr, const xsf_picture *img, const char *path,
                       unsigned long frame)
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
    int average = 0;
    train_args a = {.inputs = calloc((size_t)argc + 1, sizeof(char *))};
    if (!a.inputs)
        return 1;
    char **inputs = a.inputs;
    int status = 2;
    const cli_option options[] = {
        CLI_OPT("output", 'o', CLI_STRING, &a.out, "FILE", "output"),
        CLI_OPT("filter", 0, CLI_CHOICE, &p.filter, "53|97", "(default 53)",
                .choices = "53|97|5/3|9/7", .values = bpc_filter_values),
        CLI_OPT("levels", 0, CLI_CALL, &p.levels, "L",
                "(default 5); all: every level count 0..6 (the built-in sets)",
                .call = bpc_option_levels, .value = 1),
        CLI_OPT("qstep", 0, CLI_CALL, &p.qstep, "Q", "9/7 step (default 1)",
                .call = bpc_option_qstep),
        CLI_OPT("colour", 0, CLI_CHOICE, &p.colour, "C", "auto (default), none, rct, ict",
                .choices = "none|rct|ict|auto"),
        CLI_OPT("color", 0, CLI_CHOICE, &p.colour, "C", NULL, .choices = "none|rct|ict|auto",
                .flags = CLI_HIDDEN),
        CLI_OPT("average", 0, CLI_FLAG, &average, NULL,
                "average each picture's probabilities (Bruns' averaged tables)\ninstead of pooling "
                "the counts"),
        CLI_OPT("builtin", 0, CLI_CALL, NULL, "T53 T97",
                "write the C source of the built-in sets from two table files",
                .call = builtin_first),
        CLI_TABLE_END};
    const cli_command cmd = {.name = "bpc-train",
                             .synopsis =
                                 "[options] IN... -o TABLES\n"
                                 "       xsflow bpc-train --builtin T53 T97 -o tables_builtin.c",
                             .about = about,
                             .options = options,
                             .positional = add_input,
                             .ctx = &a};
    const int r = cli_parse(&cmd, argc, argv);
    const char *out = a.out, *b53 = a.b53, *b97 = a.b97;
    const int ninputs = a.ninputs;
    if (r) {
        status = r == 1 ? 0 : 2;
        goto done;
    }
    if (b53 && !b97) {
        cli_error("--builtin", "needs two table files");
        goto done;
    }
    if (!out) {
        cli_usage(&cmd, stderr);
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
            printf("%s: tables %08x from %zu pictures, %llu symbols (%s)\n", out, bpc_tables_id(t),
                   pics, (unsigned long long)syms,
                   average ? "averaged per picture" : "pooled counts");
    }
    bpc_tables_destroy(t);
    bpc_trainer_destroy(tr);
done:
    free(inputs);
    return status;
}
