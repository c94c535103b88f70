/* Option tables of programs on getopt_long (xsf_cli.h). */
#define _GNU_SOURCE /* getopt_long, program_invocation_short_name */
#include "xsf_cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char *program, *version;

void cli_set_program(const char *name)
{
    program = name;
}

void cli_set_version(const char *text)
{
    version = text;
}

const char *cli_program(void)
{
    return program ? program : program_invocation_short_name;
}

/* "xsflow decode" or "rtp_bench": the command as messages name it. */
static const char *command_name(const cli_command *cmd, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s%s", cli_program(), cmd->name ? " " : "", cmd->name ? cmd->name : "");
    return buf;
}

void cli_error(const char *subject, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    msg[strcspn(msg, "\r\n")] = '\0';
    fprintf(stderr, "%s: %s: %s\n", cli_program(), subject, msg);
}

/* ---- values ---- */

static int choice(const cli_option *o, const char *value, int *out)
{
    const char *c = o->choices;
    for (int i = 0; *c; i++) {
        const size_t n = strcspn(c, "|");
        if (strlen(value) == n && !strncmp(c, value, n)) {
            *out = o->values ? o->values[i] : i;
            return 1;
        }
        c += n + (c[n] == '|');
    }
    return 0;
}

/* A bound of the table (a double) as an int64_t: (double)INT64_MAX is 2^63,
 * which does not convert back, so the ends clamp. */
static int64_t int_bound(double d)
{
    if (d >= 9223372036854775807.0)
        return INT64_MAX;
    if (d <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)d;
}

/* "a, b or c" from "a|b|c". */
static const char *choice_list(const char *choices, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const char *c = choices; *c && used < cap;) {
        const size_t n = strcspn(c, "|");
        const int last = !c[n], first = c == choices;
        used += (size_t)snprintf(buf + used, cap - used, "%s%.*s",
                                 first  ? ""
                                 : last ? " or "
                                        : ", ",
                                 (int)n, c);
        c += n + !last;
    }
    return buf;
}

int cli_value(const cli_option *o, const char *value, void *dst)
{
    char subject[80];
    snprintf(subject, sizeof subject, "%s%s", o->flags & CLI_ARGUMENT ? "" : "--", o->name);
    xsf_error err;
    xsf_error_clear(&err);
    xsf_status st = XSF_OK;
    int64_t i64 = 0;
    switch (o->kind) {
    case CLI_FLAG: *(int *)dst = 1; return 0;
    case CLI_SET: *(int *)dst = o->value; return 0;
    case CLI_STRING: *(const char **)dst = value; return 0;
    case CLI_INT:
    case CLI_LONG:
    case CLI_U64:
        st = xsf_parse_integer(value, int_bound(o->lo), int_bound(o->hi), &i64, &err);
        if (st == XSF_OK && o->kind == CLI_INT)
            *(int *)dst = (int)i64;
        else if (st == XSF_OK && o->kind == CLI_LONG)
            *(long *)dst = (long)i64;
        else if (st == XSF_OK)
            *(uint64_t *)dst = (uint64_t)i64;
        break;
    case CLI_DOUBLE: {
        char *end;
        const double d = strtod(value, &end);
        const int low_ok = o->flags & CLI_ABOVE_LO ? d > o->lo : d >= o->lo;
        if (!*value || *end || !low_ok || !(d <= o->hi)) {
            cli_error(subject, "'%s' is not a number %s %g and at most %g", value,
                      o->flags & CLI_ABOVE_LO ? "above" : "from", o->lo, o->hi);
            return 2;
        }
        *(double *)dst = d;
        return 0;
    }
    case CLI_RATE: {
        xsf_rate r;
        st = xsf_parse_rate(value, &r, &err);
        if (st == XSF_OK && (o->lo || o->hi) &&
            (xsf_rate_value(r) < o->lo || xsf_rate_value(r) > o->hi)) {
            cli_error(subject, "'%s' is not a rate from %g to %g", value, o->lo, o->hi);
            return 2;
        }
        if (st == XSF_OK)
            *(xsf_rate *)dst = r;
        break;
    }
    case CLI_SIZE: {
        int *wh = dst;
        st = xsf_parse_size(value, o->hi > 0 ? (int)o->hi : 65535, &wh[0], &wh[1], &err);
        break;
    }
    case CLI_BYTES:
        st = xsf_parse_bytes(value, (uint64_t)o->lo, o->hi > 0 ? (uint64_t)o->hi : UINT64_MAX,
                             (uint64_t *)dst, &err);
        break;
    case CLI_COLOUR: st = xsf_colour_parse(value, (xsf_colour *)dst, &err); break;
    case CLI_PIX_FMT: st = xsf_container_parse(value, (xsf_container *)dst, &err); break;
    case CLI_CHOICE: {
        char list[256];
        if (!choice(o, value, (int *)dst)) {
            cli_error(subject, "'%s' is not %s", value, choice_list(o->choices, list, sizeof list));
            return 2;
        }
        return 0;
    }
    case CLI_INTS: {
        int n = 0;
        st = xsf_parse_int_list(value, (int)o->lo, (int)o->hi, (int *)dst, o->max_items, &n, &err);
        if (st == XSF_OK && o->count)
            *o->count = n;
        break;
    }
    case CLI_LIST:
        if (*o->count >= o->max_items) {
            cli_error(subject, "'%s': at most %d of them", value, o->max_items);
            return 2;
        }
        ((const char **)dst)[(*o->count)++] = value;
        return 0;
    case CLI_KNOB: st = xsf_option_set(o->knobs, dst, value, &err); break;
    case CLI_CALL:
    case CLI_KNOBS:
    case CLI_END:
    case CLI_HEADING: break;
    }
    if (st != XSF_OK) {
        cli_error(subject, "%s", err.msg);
        return 2;
    }
    return 0;
}

/* ---- usage ---- */

static size_t left_column(const cli_option *o, char *buf, size_t cap)
{
    char sh[8] = "";
    if (o->flags & CLI_ARGUMENT)
        return (size_t)snprintf(buf, cap, "  %s", o->name);
    if (o->short_name)
        snprintf(sh, sizeof sh, "-%c, ", o->short_name);
    return (size_t)snprintf(buf, cap, "  %s--%s%s%s", sh, o->name, o->arg ? " " : "",
                            o->arg ? o->arg : "");
}

/* The synopsis from the table: "[options]" and the arguments, each optional
 * one opening a bracket that closes at the end. */
static void synopsis(const cli_command *cmd, FILE *f)
{
    if (cmd->synopsis) {
        fputs(cmd->synopsis, f);
        return;
    }
    fputs("[options]", f);
    int open = 0;
    for (const cli_option *o = cmd->options; o->kind != CLI_END; o++) {
        if (!(o->flags & CLI_ARGUMENT))
            continue;
        const int optional = !(o->flags & CLI_REQUIRED);
        fprintf(f, " %s%s%s", optional ? "[" : "", o->name, o->kind == CLI_LIST ? "..." : "");
        open += optional;
    }
    while (open--)
        fputc(']', f);
}

/* One row of the usage: its left column, then its help lines from column col. */
static void usage_row(const cli_option *o, size_t col, FILE *f)
{
    char left[160];
    const size_t n = left_column(o, left, sizeof left);
    fputs(left, f);
    const char *h = o->help ? o->help : "";
    if (n + 1 > col) /* too wide: the help starts on the next line */
        fprintf(f, "\n%*s", (int)col, "");
    else
        fprintf(f, "%*s", (int)(col - n), "");
    for (;;) {
        const size_t len = strcspn(h, "\n");
        fprintf(f, "%.*s\n", (int)len, h);
        if (!h[len])
            break;
        h += len + 1;
        fprintf(f, "%*s", (int)col, "");
    }
}

/* ---- knob tables ---- */

/* The rows of a table with each CLI_KNOBS row replaced by its knobs' rows (a
 * CLI_END row last; free it), or NULL without memory. */
static cli_option *expand(const cli_option *table)
{
    size_t n = 1;
    for (const cli_option *o = table; o->kind != CLI_END; o++) {
        const xsf_option *k = o->kind == CLI_KNOBS ? o->knobs : NULL;
        for (n += !k; k && k->kind != XSF_OPTION_END; k++)
            n++;
    }
    cli_option *rows = calloc(n, sizeof *rows);
    if (!rows)
        return NULL;
    size_t i = 0;
    for (const cli_option *o = table; o->kind != CLI_END; o++) {
        if (o->kind != CLI_KNOBS) {
            rows[i++] = *o;
            continue;
        }
        for (const xsf_option *k = o->knobs; k->kind != XSF_OPTION_END; k++)
            rows[i++] =
                k->kind == XSF_OPTION_HEADING
                    ? (cli_option)CLI_HEAD(k->help)
                    : (cli_option)CLI_OPT(k->name, k->short_name, CLI_KNOB, o->dst, k->arg, k->help,
                                          .knobs = k,
                                          .flags = (k->flags & XSF_OPTION_HIDDEN ? CLI_HIDDEN : 0) |
                                                   (o->flags & CLI_ITEM));
    }
    rows[i] = (cli_option)CLI_TABLE_END;
    return rows;
}

static void usage(const cli_command *cmd, FILE *f);

void cli_usage(const cli_command *cmd, FILE *f)
{
    cli_option *rows = expand(cmd->options);
    cli_command c = *cmd;
    c.options = rows ? rows : cmd->options;
    usage(&c, f);
    free(rows);
}

static void usage(const cli_command *cmd, FILE *f)
{
    char whole[160];
    fprintf(f, "usage: %s ", command_name(cmd, whole, sizeof whole));
    synopsis(cmd, f);
    fputc('\n', f);
    if (cmd->about)
        fprintf(f, "\n%s", cmd->about);
    static const char help_row[] = "  -h, --help";
    size_t col = sizeof help_row - 1;
    int headings = 0, arguments = 0;
    char left[160];
    for (const cli_option *o = cmd->options; o->kind != CLI_END; o++) {
        headings += o->kind == CLI_HEADING;
        arguments += !!(o->flags & CLI_ARGUMENT);
        if (o->kind != CLI_HEADING && !(o->flags & CLI_HIDDEN) &&
            left_column(o, left, sizeof left) > col)
            col = strlen(left);
    }
    col = col + 2 > 24 ? 24 : col + 2;
    fprintf(f, "\n");
    if (headings) { /* the table's order, under its headings */
        if (cmd->options[0].kind != CLI_HEADING)
            fprintf(f, "options:\n");
        for (const cli_option *o = cmd->options; o->kind != CLI_END; o++)
            if (o->kind == CLI_HEADING)
                fprintf(f, "%s\n", o->help);
            else if (!(o->flags & CLI_HIDDEN))
                usage_row(o, col, f);
    } else { /* the arguments, then the options */
        for (int args = !!arguments; args >= 0; args--) {
            fprintf(f, "%s:\n", args ? "arguments" : "options");
            for (const cli_option *o = cmd->options; o->kind != CLI_END; o++)
                if (!(o->flags & CLI_HIDDEN) && !!(o->flags & CLI_ARGUMENT) == args)
                    usage_row(o, col, f);
        }
    }
    fprintf(f, "%-*s%s\n", (int)col, help_row, "print this help");
    if (version)
        fprintf(f, "%-*s%s\n", (int)col, "  --version", "print the version and the parts built in");
    if (cmd->epilogue)
        fprintf(f, "\n%s", cmd->epilogue);
}

/* ---- parsing ---- */

static const cli_option *by_val(const cli_command *cmd, int val)
{
    int i = 0;
    for (const cli_option *o = cmd->options; o->kind != CLI_END; o++, i++)
        if ((o->short_name && o->short_name == val) || 256 + i == val)
            return o->kind == CLI_HEADING ? NULL : o;
    return NULL;
}

static int apply(const cli_command *cmd, const cli_option *o, const char *value)
{
    void *base = NULL;
    if (o->flags & CLI_ITEM) {
        if (!(base = cmd->item(cmd->ctx, o)))
            return 2;
    }
    int r;
    if (o->kind == CLI_CALL)
        r = o->call(cmd->ctx, o, value);
    else
        r = cli_value(o, value, base ? (char *)base + (size_t)o->dst : o->dst);
    if (!r && o->given)
        *(base ? (int *)(void *)((char *)base + (size_t)o->given) : o->given) = 1;
    return r;
}

/* The CLI_ARGUMENT row the n-th positional argument fills, or NULL. */
static const cli_option *argument_row(const cli_command *cmd, int n)
{
    for (const cli_option *o = cmd->options; o->kind != CLI_END; o++)
        if ((o->flags & CLI_ARGUMENT) && n-- == 0)
            return o;
    return NULL;
}

static int positional(const cli_command *cmd, int *seen, const char *arg)
{
    if (cmd->positional)
        return cmd->positional(cmd->ctx, arg);
    const cli_option *row = argument_row(cmd, *seen);
    if (row) {
        *seen += row->kind != CLI_LIST; /* a list takes the rest */
        return apply(cmd, row, arg);
    }
    if (cmd->input && !*cmd->input) {
        *cmd->input = arg;
        return 0;
    }
    char whole[160];
    if (cmd->input)
        cli_error(arg, "one input only (see --help)");
    else if (argument_row(cmd, 0))
        cli_error(arg, "one argument too many (see --help)");
    else
        cli_error(arg, "'%s' takes options only (see --help)",
                  command_name(cmd, whole, sizeof whole));
    return 2;
}

static int takes_value(const cli_option *o)
{
    return !(o->kind == CLI_FLAG || o->kind == CLI_SET ||
             (o->kind == CLI_CALL && (o->flags & CLI_NO_VALUE)) ||
             (o->kind == CLI_KNOB && xsf_option_is_flag(o->knobs)));
}

/* A row getopt_long knows: an option, not a heading or an argument. */
static int is_option(const cli_option *o)
{
    return o->kind != CLI_HEADING && !(o->flags & CLI_ARGUMENT);
}

/* The failing argument of a '?' from getopt_long. */
static int unknown(const cli_command *cmd, char **argv, int at)
{
    const char *arg = argv[at];
    if (!strncmp(arg, "--", 2) && strchr(arg, '=')) {
        const size_t n = (size_t)(strchr(arg, '=') - arg - 2);
        for (const cli_option *o = cmd->options; o->kind != CLI_END; o++)
            if (is_option(o) && !takes_value(o) && strlen(o->name) == n &&
                !strncmp(o->name, arg + 2, n)) {
                cli_error(arg, "--%s takes no value", o->name);
                return 2;
            }
    }
    char whole[160];
    command_name(cmd, whole, sizeof whole);
    if (optopt > 0 && optopt < 256 && strncmp(arg, "--", 2)) {
        char s[3] = {'-', (char)optopt, 0};
        cli_error(s, "unknown option of '%s' (see --help)", whole);
    } else {
        cli_error(arg, "unknown option of '%s' (see --help)", whole);
    }
    return 2;
}

static int parse(const cli_command *cmd, int argc, char **argv);

int cli_parse(const cli_command *cmd, int argc, char **argv)
{
    cli_option *rows = expand(cmd->options);
    if (!rows) {
        cli_error(cmd->name ? cmd->name : cli_program(), "out of memory");
        return 2;
    }
    cli_command c = *cmd;
    c.options = rows;
    const int r = parse(&c, argc, argv);
    free(rows);
    return r;
}

int cli_parse_input(const char *name, const char *synopsis, const char *about,
                    const cli_option *options, const char **input, int argc, char **argv)
{
    const cli_command cmd = {.name = name,
                             .synopsis = synopsis,
                             .about = about,
                             .options = options,
                             .input = input,
                             .input_required = 1};
    return cli_exit_status(cli_parse(&cmd, argc, argv));
}

static int parse(const cli_command *cmd, int argc, char **argv)
{
    size_t n = 0;
    while (cmd->options[n].kind != CLI_END)
        n++;
    struct option *longs = calloc(n + 3, sizeof *longs);
    char *shorts = malloc(2 * n + 8);
    if (!longs || !shorts) {
        free(longs);
        free(shorts);
        cli_error(cmd->name ? cmd->name : cli_program(), "out of memory");
        return 2;
    }
    size_t nl = 0, ns = 0;
    shorts[ns++] = '-'; /* options and arguments in order (recv's streams) */
    shorts[ns++] = ':'; /* a missing value returns ':' */
    shorts[ns++] = 'h';
    for (size_t i = 0; i < n; i++) {
        const cli_option *o = &cmd->options[i];
        if (!is_option(o))
            continue;
        const int has_arg = takes_value(o) ? required_argument : no_argument;
        longs[nl++] =
            (struct option){o->name, has_arg, NULL, o->short_name ? o->short_name : 256 + (int)i};
        if (o->short_name) {
            shorts[ns++] = o->short_name;
            if (has_arg)
                shorts[ns++] = ':';
        }
    }
    longs[nl++] = (struct option){"help", no_argument, NULL, 'h'};
    if (version) /* past the table's values: 256 + n */
        longs[nl++] = (struct option){"version", no_argument, NULL, 256 + (int)n};
    shorts[ns] = '\0';

    int r = 0, c, seen = 0;
    opterr = 0;
    optind = 0; /* glibc: start afresh */
    while (!r && (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        const int at = optind - 1; /* the argument just read (or its value) */
        if (c == 1) {
            r = positional(cmd, &seen, optarg);
        } else if (c == 'h') {
            cli_usage(cmd, stdout);
            r = 1;
        } else if (version && c == 256 + (int)n) {
            fputs(version, stdout);
            r = 1;
        } else if (c == ':') {
            const cli_option *o = by_val(cmd, optopt);
            char s[80];
            snprintf(s, sizeof s, "--%s", o ? o->name : "?");
            cli_error(o ? s : argv[at], "needs a value");
            r = 2;
        } else if (c == '?') {
            r = unknown(cmd, argv, at < 1 ? 1 : at);
        } else {
            r = apply(cmd, by_val(cmd, c), optarg);
        }
    }
    for (int i = optind; !r && i < argc; i++) /* after "--" */
        r = positional(cmd, &seen, argv[i]);
    const cli_option *missing = argument_row(cmd, seen);
    if (missing && missing->kind == CLI_LIST && *missing->count > 0)
        missing = NULL;
    if (!r && !cmd->positional && missing && (missing->flags & CLI_REQUIRED)) {
        cli_error(missing->name, "missing (see --help)");
        r = 2;
    }
    if (!r && cmd->input_required && !*cmd->input) {
        cli_usage(cmd, stderr);
        r = 2;
    }
    free(longs);
    free(shorts);
    return r;
}
