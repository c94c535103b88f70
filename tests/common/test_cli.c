/* The option tables of programs (common/include/xsf_cli.h): each kind of value
 * stored where its row says, the refusals (exit status 2, one line on stderr
 * naming the program, the option and the value), --help, positional
 * arguments, and the usage text generated from the table. */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "xsf_cli.h"

typedef struct values {
    int flag, set, frames, frames_given, choice, ints[4], nints;
    long big;
    uint64_t u64, bytes;
    double seconds;
    xsf_rate rate;
    int size[2];
    const char *name, *input;
    int calls;
    char last_call[32];
} values;

static int on_call(void *ctx, const cli_option *o, const char *value)
{
    values *v = ctx;
    (void)o;
    v->calls++;
    snprintf(v->last_call, sizeof v->last_call, "%s", value ? value : "(none)");
    return value && !strcmp(value, "bad") ? 2 : 0;
}

static values v;
static const int choice_values[] = {10, 20, 30};
static const cli_option options[] = {
    CLI_OPT("flag", 'f', CLI_FLAG, &v.flag, NULL, "a flag"),
    CLI_OPT("cpu", 0, CLI_SET, &v.set, NULL, "sets 7", .value = 7),
    CLI_OPT("frames", 'n', CLI_INT, &v.frames, "N", "frames", .lo = 1, .hi = 1000,
            .given = &v.frames_given),
    CLI_OPT("big", 0, CLI_LONG, &v.big, "N", "a long", .lo = -5, .hi = 5e9),
    CLI_OPT("u64", 0, CLI_U64, &v.u64, "N", "a u64", .lo = 0, .hi = 1e12),
    CLI_OPT("seconds", 0, CLI_DOUBLE, &v.seconds, "S", "above 0", .lo = 0, .hi = 60,
            .flags = CLI_ABOVE_LO),
    CLI_OPT("fps", 0, CLI_RATE, &v.rate, "RATE", "a rate", .lo = 1, .hi = 240),
    CLI_OPT("size", 0, CLI_SIZE, v.size, "WxH", "a size", .hi = 8192),
    CLI_OPT("queue", 0, CLI_BYTES, &v.bytes, "BYTES", "a byte count", .lo = 1, .hi = 1 << 30),
    CLI_OPT("mode", 0, CLI_CHOICE, &v.choice, "a|b|c", "a choice", .choices = "a|b|c",
            .values = choice_values),
    CLI_OPT("threads", 0, CLI_INTS, v.ints, "N,N", "a list", .lo = 1, .hi = 16, .max_items = 4,
            .count = &v.nints),
    CLI_OPT("name", 0, CLI_STRING, &v.name, "NAME", "a string\non two lines"),
    CLI_OPT("call", 0, CLI_CALL, NULL, "X", "the command's own", .call = on_call),
    CLI_OPT("hidden", 0, CLI_FLAG, &v.flag, NULL, "not listed", .flags = CLI_HIDDEN),
    CLI_TABLE_END,
};
static const cli_command cmd = {
    .name = NULL, .synopsis = "[options] FILE", .options = options, .input = &v.input, .ctx = &v};

/* Runs fn(arg) with file descriptor fd (1 or 2) going to a temporary file,
 * whose text lands in out (cap bytes). */
static int captured(int fd, int (*fn)(const void *), const void *arg, char *out, size_t cap)
{
    fflush(NULL);
    FILE *tmp = tmpfile();
    const int saved = dup(fd);
    dup2(fileno(tmp), fd);
    const int r = fn(arg);
    fflush(NULL);
    dup2(saved, fd);
    close(saved);
    rewind(tmp);
    const size_t n = fread(out, 1, cap - 1, tmp);
    out[n] = '\0';
    fclose(tmp);
    return r;
}

typedef struct call {
    const cli_command *cmd;
    const char *const *args; /* NULL-terminated, after argv[0] */
} call;

static int run_parse(const void *arg)
{
    const call *c = arg;
    char *argv[32] = {"prog"};
    int argc = 1;
    while (argc < 31 && c->args[argc - 1])
        argv[argc] = (char *)c->args[argc - 1], argc++;
    return cli_parse(c->cmd, argc, argv);
}

/* Parses args (NULL-terminated) with stderr in err. */
static int parse_args(const cli_command *c, const char *const *args, char *err, size_t cap)
{
    const call one = {c, args};
    return captured(2, run_parse, &one, err, cap);
}
#define parse(cmd, err, cap, ...) parse_args(cmd, (const char *const[]){__VA_ARGS__}, err, cap)

static void reset(void)
{
    memset(&v, 0, sizeof v);
    v.frames = 5;
}

static void test_values(void)
{
    char err[512];
    reset();
    int r =
        parse(&cmd, err, sizeof err, "-f", "--cpu", "-n", "30", "--big=4000000000", "--u64", "0x10",
              "--seconds", "0.5", "--fps", "30000/1001", "--size", "1920x1080", "--queue", "32M",
              "--mode", "b", "--threads", "1,2,4", "--name", "x", "--call", "y", "in.jxs", NULL);
    CHECK(r == 0 && err[0] == '\0', "parsed: %d, '%s'", r, err);
    CHECK(v.flag == 1 && v.set == 7, "flag %d set %d", v.flag, v.set);
    CHECK(v.frames == 30 && v.frames_given == 1, "frames %d given %d", v.frames, v.frames_given);
    CHECK(v.big == 4000000000L && v.u64 == 16, "big %ld u64 %llu", v.big,
          (unsigned long long)v.u64);
    CHECK(v.seconds == 0.5, "seconds %g", v.seconds);
    CHECK(v.rate.num == 30000 && v.rate.den == 1001, "rate %u/%u", v.rate.num, v.rate.den);
    CHECK(v.size[0] == 1920 && v.size[1] == 1080, "size %dx%d", v.size[0], v.size[1]);
    CHECK(v.bytes == 32u << 20, "bytes %llu", (unsigned long long)v.bytes);
    CHECK(v.choice == 20, "choice %d", v.choice);
    CHECK(v.nints == 3 && v.ints[0] == 1 && v.ints[1] == 2 && v.ints[2] == 4, "ints %d", v.nints);
    CHECK(v.name && !strcmp(v.name, "x"), "name");
    CHECK(v.calls == 1 && !strcmp(v.last_call, "y"), "call %d '%s'", v.calls, v.last_call);
    CHECK(v.input && !strcmp(v.input, "in.jxs"), "input");

    /* A second parse in the same process starts afresh (getopt's state). */
    reset();
    r = parse(&cmd, err, sizeof err, "--frames", "7", "--", "-dash.jxs", NULL);
    CHECK(r == 0 && v.frames == 7 && v.input && !strcmp(v.input, "-dash.jxs"),
          "second parse: %d, frames %d", r, v.frames);
    /* Nothing given: the defaults stay. */
    reset();
    r = parse(&cmd, err, sizeof err, NULL);
    CHECK(r == 0 && v.frames == 5 && !v.frames_given && !v.input, "no arguments");
    /* The same where the input is required: the usage, a usage error. */
    cli_command needs = cmd;
    needs.input_required = 1;
    reset();
    r = parse(&needs, err, sizeof err, "--frames", "6", NULL);
    CHECK(r == 2 && strstr(err, "usage: ") && strstr(err, "[options] FILE"),
          "required input missing: %d, '%s'", r, err);
    reset();
    r = parse(&needs, err, sizeof err, "in.jxs", NULL);
    CHECK(r == 0 && v.input && !strcmp(v.input, "in.jxs"), "required input given: %d", r);
    /* One value outside a table. */
    int one = 0;
    CHECK(cli_value(&options[2], "12", &one) == 0 && one == 12, "cli_value");
}

/* Refused with status 2 and one line "prog: ...want..." on stderr, nothing stored. */
static void refused_args(const char *want, const char *const *args)
{
    reset();
    char err[512];
    const int r = parse_args(&cmd, args, err, sizeof err);
    const char *nl = strchr(err, '\n');
    CHECK(r == 2 && !strncmp(err, "prog: ", 6) && nl && !nl[1] && strstr(err, want),
          "%s: %d, '%s' (want '%s')", args[0], r, err, want);
    CHECK(v.frames == 5 && v.choice == 0 && v.seconds == 0, "%s: nothing stored", args[0]);
}
#define refused(want, ...) refused_args(want, (const char *const[]){__VA_ARGS__})

static void test_refusals(void)
{
    cli_set_program("prog");
    refused("--frames: '0'", "--frames", "0", NULL);
    refused("--frames: '1001'", "--frames", "1001", NULL);
    refused("--frames: 'x'", "-n", "x", NULL);
    refused("--seconds: '0' is not a number above 0", "--seconds", "0", NULL);
    refused("--fps: '500' is not a rate from 1 to 240", "--fps", "500", NULL);
    refused("--fps: '30x'", "--fps", "30x", NULL);
    refused("--mode: 'd' is not a, b or c", "--mode", "d", NULL);
    refused("--threads", "--threads", "1,99", NULL);
    refused("--frames: needs a value", "--frames", NULL);
    refused("--nope: unknown option of 'prog'", "--nope", NULL);
    refused("-z: unknown option of 'prog'", "-z", NULL);
    refused("--flag takes no value", "--flag=1", NULL);
    refused("b.jxs: one input only", "a.jxs", "b.jxs", NULL);
    /* A CLI_CALL's own refusal: status 2, whatever it printed. */
    reset();
    char err[256];
    CHECK(parse(&cmd, err, sizeof err, "--call", "bad", NULL) == 2, "call refused");

    /* A subcommand is named with the program; without an input, arguments are refused. */
    const cli_command sub = {.name = "decode", .synopsis = "[options]", .options = options};
    reset();
    const int r = parse(&sub, err, sizeof err, "extra", NULL);
    CHECK(r == 2 && !strcmp(err, "prog: extra: 'prog decode' takes options only (see --help)\n"),
          "options only: '%s'", err);
    CHECK(cli_exit_status(0) == -1 && cli_exit_status(1) == 0 && cli_exit_status(2) == 2,
          "cli_exit_status");
}

/* Positional arguments described in the table: typed, in order, required or not. */
static void test_arguments(void)
{
    cli_set_program("prog");
    const char *a = NULL, *in = NULL;
    int frames = 600, engine = 0;
    const cli_option rows[] = {
        CLI_HEAD("arguments:"),
        CLI_OPT("A.jxs", 0, CLI_STRING, &a, NULL, "the first",
                .flags = CLI_ARGUMENT | CLI_REQUIRED),
        CLI_OPT("FRAMES", 0, CLI_INT, &frames, NULL, "frames", .lo = 1, .hi = 100,
                .flags = CLI_ARGUMENT),
        CLI_OPT("ENGINE", 0, CLI_CHOICE, &engine, NULL, "where", .choices = "cpu|gpu",
                .flags = CLI_ARGUMENT),
        CLI_HEAD("options:"),
        CLI_OPT("frames", 0, CLI_INT, &frames, "N", "the same, as an option", .lo = 1, .hi = 100),
        CLI_TABLE_END,
    };
    const cli_command c = {.synopsis = "A.jxs [FRAMES [cpu|gpu]]", .options = rows};
    char err[256];
    int r = parse(&c, err, sizeof err, "x.jxs", "20", "gpu", NULL);
    CHECK(r == 0 && a && !strcmp(a, "x.jxs") && frames == 20 && engine == 1, "all three: %d '%s'",
          r, err);
    a = NULL, frames = 600, engine = 0;
    r = parse(&c, err, sizeof err, "--frames", "9", "y.jxs", NULL);
    CHECK(r == 0 && a && !strcmp(a, "y.jxs") && frames == 9 && engine == 0, "optional ones left");
    r = parse(&c, err, sizeof err, NULL);
    CHECK(r == 2 && !strcmp(err, "prog: A.jxs: missing (see --help)\n"), "required: '%s'", err);
    r = parse(&c, err, sizeof err, "x.jxs", "0", NULL);
    CHECK(r == 2 && strstr(err, "prog: FRAMES: '0'"), "a bad argument: '%s'", err);
    r = parse(&c, err, sizeof err, "x.jxs", "20", "tpu", NULL);
    CHECK(r == 2 && strstr(err, "prog: ENGINE: 'tpu' is not cpu or gpu"), "a bad choice: '%s'",
          err);
    r = parse(&c, err, sizeof err, "x.jxs", "20", "gpu", "more", NULL);
    CHECK(r == 2 && !strcmp(err, "prog: more: one argument too many (see --help)\n"),
          "too many: '%s'", err);
    r = parse(&c, err, sizeof err, "--FRAMES", "3", "x.jxs", NULL);
    CHECK(r == 2 && strstr(err, "unknown option"), "an argument is no option: '%s'", err);
    /* With an input too: the arguments first, then the input. */
    const cli_command ci = {
        .synopsis = "A.jxs [FRAMES [cpu|gpu]] IN", .options = rows, .input = &in};
    r = parse(&ci, err, sizeof err, "x.jxs", "20", "cpu", "in.yuv", NULL);
    CHECK(r == 0 && in && !strcmp(in, "in.yuv") && engine == 0, "input after the arguments");

    /* A list takes every argument from its place on; required: at least one. */
    const char *files[3] = {NULL};
    int nfiles = 0, reps = 1;
    const cli_option list_rows[] = {
        CLI_ARG_REQUIRED("REPS", CLI_INT, &reps, "runs", .lo = 1, .hi = 9),
        CLI_ARG_REQUIRED("FILE", CLI_LIST, files, "files", .max_items = 3, .count = &nfiles),
        CLI_TABLE_END,
    };
    const cli_command cl = {.options = list_rows};
    r = parse(&cl, err, sizeof err, "2", "a", "b", "c", NULL);
    CHECK(r == 0 && reps == 2 && nfiles == 3 && !strcmp(files[0], "a") && !strcmp(files[2], "c"),
          "a list: %d, %d files '%s'", r, nfiles, err);
    nfiles = 0;
    r = parse(&cl, err, sizeof err, "2", NULL);
    CHECK(r == 2 && !strcmp(err, "prog: FILE: missing (see --help)\n"), "an empty list: '%s'", err);
    nfiles = 0;
    r = parse(&cl, err, sizeof err, "2", "a", "b", "c", "d", NULL);
    CHECK(r == 2 && strstr(err, "prog: FILE: 'd': at most 3") && nfiles == 3, "a full list: '%s'",
          err);

    FILE *f = tmpfile();
    cli_usage(&cl, f);
    char text[1024];
    rewind(f);
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    /* The synopsis from the table when the command gives none. */
    CHECK(!strncmp(text, "usage: prog [options] REPS FILE...\n", 35), "synopsis: '%s'", text);
    CHECK(strstr(text, "\narguments:\n  REPS        runs\n") &&
              strstr(text, "\n  -h, --help  print this help\n"),
          "a narrow table: '%s'", text);
    const cli_command nested = {.options = rows};
    f = tmpfile();
    cli_usage(&nested, f);
    rewind(f);
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    CHECK(!strncmp(text, "usage: prog [options] A.jxs [FRAMES [ENGINE]]\n", 46), "nested: '%s'",
          text);

    f = tmpfile();
    cli_usage(&c, f);
    rewind(f);
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    CHECK(strstr(text, "arguments:\n  A.jxs ") && strstr(text, "\n  FRAMES ") &&
              !strstr(text, "--FRAMES") && strstr(text, "  --frames N"),
          "usage: '%s'", text);
}

static void test_usage(void)
{
    cli_set_program("prog");
    FILE *f = tmpfile();
    cli_usage(&cmd, f);
    char text[4096];
    rewind(f);
    const size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    CHECK(!strncmp(text, "usage: prog [options] FILE\n", 27), "synopsis: '%.40s'", text);
    CHECK(strstr(text, "  -n, --frames N") && strstr(text, "--fps RATE") &&
              strstr(text, "-h, --help"),
          "rows listed");
    CHECK(strstr(text, "a string\n") && strstr(text, "  on two lines\n"), "help lines aligned");
    CHECK(!strstr(text, "--hidden"), "a hidden row is left out");

    /* --help prints it on stdout and says so (1: the program exits 0). */
    reset();
    const call c = {&cmd, (const char *const[]){"--help", NULL}};
    const int r = captured(1, run_parse, &c, text, sizeof text);
    CHECK(r == 1 && !strncmp(text, "usage: prog ", 12), "--help: %d", r);
    CHECK(!strcmp(cli_program(), "prog"), "cli_program");
}

/* --version: every command takes it once the program set a text (1: exits 0); the usage
 * lists it; without a text it is an unknown option. A count's refusal states its range. */
static void test_version(void)
{
    cli_set_program("prog");
    char text[4096];
    reset();
    const call plain = {&cmd, (const char *const[]){"--version", NULL}};
    CHECK(captured(2, run_parse, &plain, text, sizeof text) == 2 && strstr(text, "--version"),
          "no version text: --version is unknown: '%s'", text);
    cli_set_version("prog 1.2.3\nCUDA: no\n");
    reset();
    CHECK(captured(1, run_parse, &plain, text, sizeof text) == 1 &&
              !strcmp(text, "prog 1.2.3\nCUDA: no\n"),
          "--version: '%s'", text);
    const cli_command sub = {.name = "decode", .synopsis = "[options]", .options = options};
    reset();
    const call later = {&sub, (const char *const[]){"--frames", "3", "--version", NULL}};
    CHECK(captured(1, run_parse, &later, text, sizeof text) == 1 &&
              !strncmp(text, "prog 1.2.3", 10),
          "a subcommand's --version after other options: '%s'", text);
    FILE *f = tmpfile();
    cli_usage(&cmd, f);
    rewind(f);
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    CHECK(strstr(text, "\n  --version") != NULL, "the usage lists --version: '%s'", text);
    cli_set_version(NULL);
    refused("--frames: '2147483647' is not a whole number from 1 to 1000", "--frames", "2147483647",
            NULL);
    refused("--frames: 'many' is not a whole number from 1 to 1000", "--frames", "many", NULL);
}

/* A library's knob table in a program's table (CLI_KNOB_TABLE): each kind stored in the
 * object, GIVEN set, a short name, the refusals naming the option, and the rows in the
 * usage in place, under the table's heading. */
typedef struct knobbed {
    const char *text;
    unsigned u;
    uint16_t u16;
    uint64_t u64, bytes;
    long l;
    int u16_given, flag;
} knobbed;
static knobbed kb;
#define KAT(f) offsetof(knobbed, f)
static const xsf_option knob_table[] = {
    XSF_OPTION_HEAD("library knobs:"),
    XSF_OPTION("text", XSF_OPTION_STRING, KAT(text), "T", "a text", .short_name = 't'),
    XSF_OPTION("u", XSF_OPTION_UINT, KAT(u), "N", "an unsigned", .lo = 1, .hi = 9),
    XSF_OPTION("u16", XSF_OPTION_UINT, KAT(u16), "N", "16 bits", .hi = 0xffff, .size = 2,
               .flags = XSF_OPTION_GIVEN, .given_offset = KAT(u16_given)),
    XSF_OPTION("u64", XSF_OPTION_UINT, KAT(u64), "N", "64 bits", .hi = 1e15, .size = 8),
    XSF_OPTION("bytes", XSF_OPTION_BYTES, KAT(bytes), "B", "bytes", .lo = 1, .hi = 1 << 30),
    XSF_OPTION("long", XSF_OPTION_INT, KAT(l), "N", "a long", .lo = -1, .hi = 5e9,
               .size = sizeof(long)),
    XSF_OPTION("on", XSF_OPTION_FLAG, KAT(flag), NULL, "a flag"),
    XSF_OPTION_TABLE_END};
static const cli_option knob_rows[] = {
    CLI_OPT("flag", 'f', CLI_FLAG, &v.flag, NULL, "a flag of the program"),
    CLI_KNOB_TABLE(knob_table, &kb),
    CLI_TABLE_END,
};
static const cli_command knob_cmd = {.name = "k", .options = knob_rows, .input = &v.input};

static int run_knob_usage(const void *arg)
{
    (void)arg;
    cli_usage(&knob_cmd, stdout);
    return 0;
}

static void test_knobs(void)
{
    char err[512];
    reset();
    memset(&kb, 0, sizeof kb);
    int r = parse(&knob_cmd, err, sizeof err, "-t", "hello", "--u", "7", "--u16", "0xffff", "--u64",
                  "1000000000000", "--bytes", "2k", "--long", "4000000000", "--on", "-f", NULL);
    CHECK(r == 0 && err[0] == '\0', "knobs parsed: %d '%s'", r, err);
    CHECK(kb.text && !strcmp(kb.text, "hello") && kb.u == 7 && kb.u16 == 0xffff &&
              kb.u16_given == 1 && kb.u64 == 1000000000000ull && kb.bytes == 2048 && kb.flag == 1 &&
              v.flag == 1,
          "knob values: %u %u %d", kb.u, kb.u16, kb.u16_given);
    CHECK(sizeof(long) < 8 || kb.l == (long)4000000000LL, "long %ld", kb.l);
    r = parse(&knob_cmd, err, sizeof err, "--u", "10", NULL);
    CHECK(r == 2 && strstr(err, "--u: '10' is not") != NULL, "knob refusal: %d '%s'", r, err);
    r = parse(&knob_cmd, err, sizeof err, "--u16", "65536", NULL);
    CHECK(r == 2 && strstr(err, "--u16:") != NULL, "u16 bound: '%s'", err);
    r = parse(&knob_cmd, err, sizeof err, "--on=1", NULL);
    CHECK(r == 2 && strstr(err, "takes no value") != NULL, "flag knob with a value: '%s'", err);
    char out[4096];
    captured(1, run_knob_usage, NULL, out, sizeof out);
    const char *head = strstr(out, "library knobs:\n"), *text = strstr(out, "-t, --text T");
    CHECK(strstr(out, "-f, --flag") && head && text && text > head && strstr(out, "--bytes B"),
          "knob usage:\n%s", out);
    xsf_error e;
    xsf_error_clear(&e);
    CHECK(xsf_options_apply(knob_table, &kb, "text=x", "tests", &e) == XSF_ERR_ARG,
          "a text knob is not set from knob text");
    CHECK(xsf_options_apply(knob_table, &kb, "u=3 bytes=1M", "tests", &e) == XSF_OK && kb.u == 3 &&
              kb.bytes == 1u << 20,
          "uint and bytes from text: %s", e.msg);
}

/* Knobs on the current item (CLI_KNOB_ITEM_TABLE): each value in the item the command's
 * `item` gives, at the table's offset in it; a NULL item stops the parse. */
typedef struct item {
    int tag; /* so that the knobs lie at an offset */
    knobbed k;
} item;
typedef struct item_ctx {
    item items[2];
    int n;
} item_ctx;

static int next_item(void *ctx, const char *arg)
{
    item_ctx *c = ctx;
    (void)arg;
    return c->n < 2 ? (c->n++, 0) : 2;
}

static void *current_item(void *ctx, const cli_option *o)
{
    item_ctx *c = ctx;
    (void)o;
    return c->n ? &c->items[c->n - 1] : NULL;
}

static void test_item_knobs(void)
{
    static item_ctx ic;
    const cli_option rows[] = {
        CLI_KNOB_ITEM_TABLE(knob_table, offsetof(item, k)),
        CLI_TABLE_END,
    };
    const cli_command c = {
        .name = "i", .options = rows, .positional = next_item, .item = current_item, .ctx = &ic};
    char err[512];
    int r =
        parse(&c, err, sizeof err, "a", "--u", "3", "--u16", "9", "b", "--u", "4", "-t", "x", NULL);
    CHECK(r == 0 && ic.n == 2 && ic.items[0].k.u == 3 && ic.items[0].k.u16 == 9 &&
              ic.items[0].k.u16_given && !ic.items[0].k.text && ic.items[1].k.u == 4 &&
              !ic.items[1].k.u16_given && ic.items[1].k.text && !strcmp(ic.items[1].k.text, "x") &&
              !ic.items[0].tag && !ic.items[1].tag,
          "each item's knobs in it: %d '%s'", r, err);
    memset(&ic, 0, sizeof ic);
    r = parse(&c, err, sizeof err, "--u", "3", NULL);
    CHECK(r == 2 && !ic.items[0].k.u, "no item: refused (%d)", r);
    r = parse(&c, err, sizeof err, "a", "--u", "10", NULL);
    CHECK(r == 2 && strstr(err, "--u: '10' is not"), "a knob's refusal: '%s'", err);
}

/* cli_parse_input: the input, --help (0), a missing input or a bad option (2). */
static void test_parse_input(void)
{
    const char *in = NULL;
    int on = 0;
    const cli_option rows[] = {CLI_OPT("on", 0, CLI_FLAG, &on, NULL, "a flag"), CLI_TABLE_END};
    char *argv[] = {"cmd", "--on", "x.jxs", NULL};
    CHECK(cli_parse_input("cmd", "IN", "About.\n", rows, &in, 3, argv) == -1 && on && in &&
              !strcmp(in, "x.jxs"),
          "the input and an option: go on");
    char out[2048];
    in = NULL;
    fflush(NULL);
    FILE *tmp = tmpfile();
    const int saved = dup(2), saved_out = dup(1);
    dup2(fileno(tmp), 2);
    dup2(fileno(tmp), 1);
    char *missing[] = {"cmd", "--on", NULL};
    const int r_missing = cli_parse_input("cmd", "IN", "About.\n", rows, &in, 2, missing);
    char *bad[] = {"cmd", "--off", "x", NULL};
    const int r_bad = cli_parse_input("cmd", "IN", "About.\n", rows, &in, 3, bad);
    char *h[] = {"cmd", "--help", NULL};
    const int r_help = cli_parse_input("cmd", "IN", "About.\n", rows, &in, 2, h);
    fflush(NULL);
    dup2(saved, 2);
    dup2(saved_out, 1);
    close(saved);
    close(saved_out);
    rewind(tmp);
    out[fread(out, 1, sizeof out - 1, tmp)] = '\0';
    fclose(tmp);
    CHECK(r_missing == 2 && r_bad == 2 && r_help == 0, "statuses %d %d %d", r_missing, r_bad,
          r_help);
    CHECK(strstr(out, "usage: ") && strstr(out, "cmd IN") && strstr(out, "About.") &&
              strstr(out, "--off"),
          "the usage and the refusal: '%s'", out);
}

int main(void)
{
    /* By default, the name the program was started as. */
    CHECK(!strcmp(cli_program(), "test_cli"), "default program: %s", cli_program());
    test_values();
    test_refusals();
    test_arguments();
    test_usage();
    test_version();
    test_knobs();
    test_item_knobs();
    test_parse_input();
    return xsf_test_finish();
}
