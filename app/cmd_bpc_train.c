/* xsflow bpc-train: estimates BPC-PaCo probability tables from pictures
 * (bpc_trainer_*), writes a table file for --tables, or writes the C source
 * of the built-in sets (bpc/tables_builtin.c, bpc_tables_builtin_c) from two
 * table files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpc.h"
#include "commands.h"
#include "picture_source.h"
#include "xsf_cli.h"

static const char about[] =
    "Counts the symbols the BPC-PaCo coder emits for the pictures IN (.ppm, .pgm, .y4m,\n"
    "or .jxs: every frame, decoded with the JPEG XS C decoder) per band, bitplane and\n"
    "context, for all three pass variants, and writes the probability tables (thesis\n"
    "eq. 3.3) as a table file for encode/decode --tables. The front end is the codec's:\n"
    "the options below must match those the tables will code with.\n";

static const int bpc_filter_values[4] = {BPC_FILTER_53, BPC_FILTER_97, BPC_FILTER_53,
                                         BPC_FILTER_97};

static int bpc_option_levels(void *ctx, const cli_option *o, const char *v)
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

static int bpc_option_qstep(void *ctx, const cli_option *o, const char *v)
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

/* Every picture of a file into the trainer. */
static int add_file(bpc_trainer *tr, const char *path)
{
    imgio_format fmt;
    if (imgio_source_kind_of(path, &fmt) == IMGIO_SOURCE_NONE || fmt == IMGIO_FORMAT_YUV) {
        cli_error(path, "training reads .ppm, .pgm, .y4m and .jxs files");
        return 1;
    }
    xsf_error err;
    xsf_error_clear(&err);
    imgio_source *src;
    if (imgio_source_open(&src, path, NULL, &err) != XSF_OK) {
        cli_error(path, "%s", err.msg);
        return 1;
    }
    int status = 0;
    for (unsigned long frame = 0; !status; frame++) {
        const xsf_picture *pic;
        if (imgio_source_next(src, &pic, &err) != XSF_OK) {
            cli_error(path, "%s", err.msg);
            status = 1;
        } else if (!pic) {
            break;
        } else if (bpc_trainer_add(tr, pic) != XSF_OK) {
            cli_error(path, "frame %lu: %s", frame, bpc_trainer_error(tr));
            status = 1;
        }
    }
    imgio_source_close(src);
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
        status = cli_exit_status(r);
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
        const char *subject = out;
        xsf_error err;
        xsf_error_clear(&err);
        status = bpc_tables_builtin_c_file(b53, b97, (const char *const *)inputs, ninputs, out,
                                           &subject, &err) != XSF_OK;
        if (status)
            cli_error(subject, "%s", err.msg);
        goto done;
    }
    if (!ninputs) {
        cli_error("bpc-train", "no pictures to train on");
        goto done;
    }
    bpc_trainer *tr;
    xsf_error err;
    xsf_error_clear(&err);
    if (bpc_trainer_create(&tr, &p, &err) != XSF_OK) {
        cli_error("bpc-train", "%s", err.msg);
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
    if (!status && bpc_tables_write_file(t, out, NULL) != XSF_OK) {
        cli_error(out, "cannot write the table file");
        status = 1;
    }
    if (!status) {
        size_t pics;
        uint64_t syms;
        bpc_trainer_totals(tr, &pics, &syms);
        printf("%s: tables %08x from %zu pictures, %llu symbols (%s)\n", out, bpc_tables_id(t),
               pics, (unsigned long long)syms, average ? "averaged per picture" : "pooled counts");
    }
    bpc_tables_destroy(t);
    bpc_trainer_destroy(tr);
done:
    free(inputs);
    return status;
}
