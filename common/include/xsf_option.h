/* Named knobs of a library object, as a table (FFmpeg's AVOption): each row
 * names a knob, says what its value is (kind, bounds, choices), where the
 * value goes in the object (offset) and how to explain it (the value's name
 * and help lines, what a command line or a configuration shows). A codec
 * lists its encoder's own knobs this way (xsf_codec.h); the program builds
 * its command-line options from the table, a configuration passes the same
 * knobs as text ("nlx=4 quant=uniform").
 *
 * Values are text, parsed by kind with the parsers of xsf_parse.h, so a knob
 * reads the same wherever it is given. Nothing here prints. */
#ifndef XSF_OPTION_H
#define XSF_OPTION_H

#include <stddef.h>

#include "xsf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum xsf_option_kind {
    XSF_OPTION_END = 0, /* ends a table */
    XSF_OPTION_HEADING, /* no knob: `help` heads the rows after it ("coding:") */
    XSF_OPTION_FLAG,    /* no value: the int at offset becomes 1 */
    XSF_OPTION_SET,     /* no value: the int at offset becomes .value */
    XSF_OPTION_INT,     /* int (a long with .size sizeof(long)): a whole number in [lo, hi]
                           (decimal, or 0x hexadecimal) */
    XSF_OPTION_DOUBLE,  /* double in [lo, hi] (above lo with XSF_OPTION_ABOVE_LO) */
    XSF_OPTION_CHOICE, /* int: one of .choices ("a|b|c"), stored as .values[i] (i without values) */
    XSF_OPTION_INTS,   /* int[max_items] at offset, their count in the int at count_offset:
                          a comma list, each in [lo, hi] */
    XSF_OPTION_CALL,   /* .parse(obj, value): the owner parses the value itself */
    XSF_OPTION_FILE,   /* a file's name: the caller reads the file and hands its bytes to the
                          owner (a codec's params_set under this name); not set from text */
    XSF_OPTION_STRING, /* const char *: the value itself, which must outlive obj's use (a
                          command line's argument); not set from text (xsf_options_apply) */
    XSF_OPTION_UINT,   /* an unsigned integer of .size bytes (1, 2, 4 or 8: sizeof the
                          field; 0 is sizeof(unsigned)) in [lo, hi] (decimal or 0x) */
    XSF_OPTION_BYTES,  /* uint64_t: a byte count, N with k, M or G (binary), in [lo, hi] */
} xsf_option_kind;

enum {
    XSF_OPTION_ABOVE_LO = 1, /* XSF_OPTION_DOUBLE: lo itself is refused */
    XSF_OPTION_HIDDEN = 2,   /* left out of help texts (a second spelling: color) */
    XSF_OPTION_GIVEN = 4,    /* the int at given_offset becomes 1 when the knob is set */
};

typedef struct xsf_option {
    const char *name; /* "nlx": on a command line --nlx */
    xsf_option_kind kind;
    size_t offset;    /* where the value goes in the object */
    const char *arg;  /* the value's name in a help text ("N"), NULL for FLAG and SET */
    const char *help; /* lines separated by '\n' */
    double lo, hi;
    unsigned flags;      /* XSF_OPTION_ABOVE_LO, XSF_OPTION_HIDDEN */
    int value;           /* SET: what is stored */
    const char *choices; /* CHOICE */
    const int *values;
    int max_items; /* INTS */
    size_t count_offset;
    size_t size;         /* UINT: the field's bytes */
    char short_name;     /* a command line's one-letter spelling ('o': -o), 0: none */
    size_t given_offset; /* with XSF_OPTION_GIVEN */
    /* CALL: parses value into obj; XSF_ERR_ARG with a message that names
     * the value (not the knob) when it is not one the knob takes. */
    xsf_status (*parse)(void *obj, const char *value, xsf_error *err);
} xsf_option;

/* Table rows: name, kind, offset, the value's name, help; then any of .lo,
 * .hi, .flags, .value, .choices, .values, .max_items, .count_offset, .size,
 * .given_offset, .short_name, .parse. */
#define XSF_OPTION(n, k, off, a, h, ...)                                                           \
    {                                                                                              \
        .name = (n), .kind = (k), .offset = (off), .arg = (a), .help = (h), __VA_ARGS__            \
    }
#define XSF_OPTION_HEAD(text)                                                                      \
    {                                                                                              \
        .kind = XSF_OPTION_HEADING, .help = (text)                                                 \
    }
#define XSF_OPTION_TABLE_END                                                                       \
    {                                                                                              \
        .kind = XSF_OPTION_END                                                                     \
    }

/* The knob `name` of a table (headings skipped), NULL where it has none. */
const xsf_option *xsf_option_find(const xsf_option *table, const char *name);

/* 1 when the knob takes no value (FLAG, SET). */
int xsf_option_is_flag(const xsf_option *o);

/* Parses `value` (NULL for a FLAG or SET) by o->kind into obj. XSF_ERR_ARG
 * when the value is not one the knob takes: the message names the value,
 * not the knob ("'9' is not a whole number from 1 to 8"), so the caller
 * says where it came from. */
xsf_status xsf_option_set(const xsf_option *o, void *obj, const char *value, xsf_error *err);

/* Applies knobs given as text to obj: "key=value" pairs (a flag: "key"),
 * separated by spaces or tabs, in order (a later one wins); NULL or "" is
 * none. XSF_ERR_ARG on the first that fails, its message "KEY: why", or
 * "OWNER have no option 'KEY'" (owner: "JPEG XS encoders"). */
xsf_status xsf_options_apply(const xsf_option *table, void *obj, const char *text,
                             const char *owner, xsf_error *err);

/* Appends one knob to the text xsf_options_apply reads (buf: cap bytes, a
 * string): "key=value", or "key" with value NULL, after a space where buf
 * is not empty. XSF_ERR_ARG when the
 * key or value holds a space, '=' in the key, or the text would not fit. */
xsf_status xsf_options_append(char *buf, size_t cap, const char *key, const char *value,
                              xsf_error *err);

#ifdef __cplusplus
}
#endif
#endif
