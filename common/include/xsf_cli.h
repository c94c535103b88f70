/* Command lines of programs (xsflow's subcommands, the bench programs): one
 * option table per command, parsed with getopt_long (each option's long
 * name, short name, kind of value, where the value goes and its help line),
 * the usage text generated from the table, and one parser per kind of value
 * (xsf_parse.h, xsf_colour.h), so that a flag means the same thing in every
 * program of the tree.
 *
 * The one part of common/ that prints, and so its own target, xsf_cli, that
 * programs link and libraries never do: -h/--help prints the usage on
 * stdout; an error is one line on stderr, "PROGRAM: --OPTION: 'VALUE' is
 * not ...", and a usage error makes the command exit with status 2
 * (cli_exit_status). PROGRAM is cli_set_program's name, by default the name
 * the program was started as.
 *
 * Not thread-safe: getopt_long's state and the program's name are the
 * process's. Call these from the main thread, before starting others.
 * Nothing here exits the process or keeps memory after it returns. */
#ifndef XSF_CLI_H
#define XSF_CLI_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "xsf_colour.h"
#include "xsf_option.h"
#include "xsf_parse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The program's name in messages and in the usage ("xsflow"); name must
 * outlive the calls. */
void cli_set_program(const char *name);

/* The name messages use (cli_set_program's, else the name the program was
 * started as). */
const char *cli_program(void);

/* What --version prints on stdout (lines ending in '\n'): with a text set,
 * every command takes --version (cli_parse then returns 1, as for --help)
 * and its usage lists it. NULL (the default): no --version. `text` must
 * outlive the calls. */
void cli_set_version(const char *text);

/* Prints "PROGRAM: <subject>: <message>" as one line on stderr; the message
 * is cut at its first newline so that an error is always one line. */
void cli_error(const char *subject, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

typedef enum cli_kind {
    CLI_END = 0, /* ends a table */
    CLI_HEADING, /* no option: `help` is a heading line in the usage text ("options:") */
    CLI_FLAG,    /* no value: int *dst = 1 */
    CLI_SET,     /* no value: int *dst = .value (--cpu, --no-rct) */
    CLI_STRING,  /* const char **dst */
    CLI_INT,     /* int *dst, a whole number in [lo, hi] */
    CLI_LONG,    /* long *dst, in [lo, hi] */
    CLI_U64,     /* uint64_t *dst, in [lo, hi] (decimal or 0x hexadecimal) */
    CLI_DOUBLE,  /* double *dst, in [lo, hi] (above lo with CLI_ABOVE_LO) */
    CLI_RATE,    /* xsf_rate *dst: N, N/D, N:D or a decimal; its value in [lo, hi] */
    CLI_SIZE,    /* int dst[2] (width, height): WxH, each at most hi */
    CLI_BYTES,   /* uint64_t *dst: N with k, M or G, in [lo, hi] */
    CLI_COLOUR,  /* xsf_colour *dst, the vocabulary of xsf_colour.h */
    CLI_PIX_FMT, /* xsf_container *dst: a pixel format's name (xsf_container_parse) */
    CLI_CHOICE,  /* int *dst: one of .choices ("a|b|c"), as .values[i] (or i without values) */
    CLI_INTS,    /* int dst[max_items], *count: comma list, each in [lo, hi] */
    CLI_CALL,    /* .call(ctx, option, value): the command parses the value itself */
    CLI_LIST,    /* const char *dst[max_items], *count: each value appended (a
                    CLI_ARGUMENT row takes every argument from there on) */
    CLI_KNOB,    /* a library's knob (xsf_option.h) .knob, set by xsf_option_set into the
                    object at dst (its GIVEN flag included); its refusal the message */
    CLI_KNOBS,   /* not an option: stands for a row of kind CLI_KNOB for each knob of the
                    table .knobs (a heading for each of its headings), on the object dst
                    (with CLI_ITEM, at offset dst in the current item), in the table's
                    order (CLI_KNOB_TABLE, CLI_KNOB_ITEM_TABLE) */
} cli_kind;

enum {
    CLI_ABOVE_LO = 1, /* CLI_DOUBLE: lo itself is refused */
    CLI_ITEM =
        2, /* dst and given are offsets (offsetof) into the current item (cli_command.item) */
    CLI_HIDDEN = 4,   /* left out of the usage text (a second spelling: --color) */
    CLI_NO_VALUE = 8, /* CLI_CALL: the option takes no value; .call gets NULL */
    /* Not an option but a positional argument: `name` is its name in the
     * usage and in messages ("FRAMES"), with no dashes and no short name.
     * Arguments fill these rows in table order (before cli_command.input),
     * so the required ones come first. */
    CLI_ARGUMENT = 16,
    CLI_REQUIRED = 32, /* CLI_ARGUMENT: missing is a usage error */
};

typedef struct cli_option cli_option;
struct cli_option {
    const char *name; /* long name without the dashes */
    char short_name;  /* 0: none */
    cli_kind kind;
    void *dst;
    const char *arg;  /* the value's name in the usage text ("N", "WxH") */
    const char *help; /* lines separated by '\n' */
    double lo, hi;
    int value;      /* CLI_SET: what is stored */
    unsigned flags; /* CLI_ABOVE_LO, CLI_ITEM */
    int *given;     /* set to 1 when the option is seen */
    const char *choices;
    const int *values;
    int max_items, *count; /* CLI_INTS */
    /* CLI_CALL: 0, or 2 after printing why the value is refused. */
    int (*call)(void *ctx, const cli_option *o, const char *value);
    const xsf_option *knobs; /* CLI_KNOB: the knob; CLI_KNOBS: the table */
};

/* Table rows: long name, short name (0: none), kind, destination, the value's
 * name, help; then any of .lo, .hi, .value, .flags, .given, .choices, .values,
 * .max_items, .count, .call. */
#define CLI_OPT(n, s, k, d, a, h, ...)                                                             \
    {                                                                                              \
        .name = (n), .short_name = (s), .kind = (k), .dst = (d), .arg = (a), .help = (h),          \
        __VA_ARGS__                                                                                \
    }
#define CLI_HEAD(text)                                                                             \
    {                                                                                              \
        .kind = CLI_HEADING, .help = (text)                                                        \
    }
#define CLI_TABLE_END                                                                              \
    {                                                                                              \
        .kind = CLI_END                                                                            \
    }
/* A library's knob table (xsf_option.h) on its object `obj`, as rows in place
 * (CLI_KNOBS): --NAME for each knob, its value's name and help from the table. */
#define CLI_KNOB_TABLE(table, obj)                                                                 \
    {                                                                                              \
        .kind = CLI_KNOBS, .knobs = (table), .dst = (obj)                                          \
    }
/* The same on the current item (cli_command.item, CLI_ITEM): the table's object
 * lies at `offset` (offsetof) in it. */
#define CLI_KNOB_ITEM_TABLE(table, offset)                                                         \
    {                                                                                              \
        .kind = CLI_KNOBS, .knobs = (table), .dst = (void *)(offset), .flags = CLI_ITEM            \
    }
/* Positional argument rows (CLI_ARGUMENT): name, kind, destination, help,
 * then any of the other fields but .flags. */
#define CLI_ARG(n, k, d, h, ...) CLI_OPT(n, 0, k, d, NULL, h, .flags = CLI_ARGUMENT, __VA_ARGS__)
#define CLI_ARG_REQUIRED(n, k, d, h, ...)                                                          \
    CLI_OPT(n, 0, k, d, NULL, h, .flags = CLI_ARGUMENT | CLI_REQUIRED, __VA_ARGS__)
/* A number in a help text: CLI_STR(NMOS_MAX_SENDERS). */
#define CLI_STR_(x) #x
#define CLI_STR(x) CLI_STR_(x)

typedef struct cli_command {
    /* A subcommand's name ("decode": messages say "xsflow decode"), or NULL
     * for a program without subcommands (messages say "rtp_bench"). */
    const char *name;
    /* After "usage: PROGRAM [NAME] "; NULL: "[options]" and the CLI_ARGUMENT
     * rows ("[options] A.jxs [FRAMES [MODE]]", a list as "FILE..."). */
    const char *synopsis;
    const char *about; /* paragraphs between the synopsis and the options (or NULL) */
    const cli_option *options;
    const char *epilogue; /* after the options (or NULL) */
    /* Arguments that are not options: with `positional`, each is handed to it
     * in order (0, or 2 after an error); else they fill the table's
     * CLI_ARGUMENT rows in order, then the next goes to *input, and one more
     * is an error. */
    int (*positional)(void *ctx, const char *arg);
    const char **input;
    int input_required; /* *input left NULL: the usage on standard error, a usage error */
    /* CLI_ITEM options: the item they belong to (NULL after printing why). */
    void *(*item)(void *ctx, const cli_option *o);
    void *ctx;
} cli_command;

/* Parses argv[1..argc) (argv[0] the command's name) in order, storing each
 * value where its option says. Returns 0, 1 after printing the usage for
 * -h/--help or the version for --version (the command exits 0), or 2 after
 * printing a usage error. An
 * unknown option, a missing value, a bad value and a missing CLI_REQUIRED
 * argument name the option and the value; a missing input_required input
 * prints the usage. Long options may be given as
 * --name=value; after "--" every argument is positional. */
int cli_parse(const cli_command *cmd, int argc, char **argv);

/* The usage text from the table: the synopsis, `about`, the rows (in the
 * table's order under its headings; without headings, "arguments:" and
 * "options:"), -h/--help, --version (where set) and `epilogue`. */
void cli_usage(const cli_command *cmd, FILE *f);

/* What cli_parse's result means for a command's exit status: -1 go on,
 * else the status to return. */
static inline int cli_exit_status(int parsed)
{
    return parsed == 0 ? -1 : parsed == 1 ? 0 : 2;
}

/* cli_parse of the commonest command: its option table and one required input (a
 * missing one prints the usage on stderr, a usage error), no other argument, as
 * cli_exit_status gives it: -1 go on (*input set), else the status to return. */
int cli_parse_input(const char *name, const char *synopsis, const char *about,
                    const cli_option *options, const char **input, int argc, char **argv);

/* One value of a given kind, outside a table (a command's own CLI_CALL, a
 * check after parsing); the same messages. 0, or 2 after printing. */
int cli_value(const cli_option *o, const char *value, void *dst);

#ifdef __cplusplus
}
#endif

#endif
