/* Command-line conventions shared by the xsflow subcommands: the one-line
 * error format and option values. */
#ifndef XSF_APP_CLI_H
#define XSF_APP_CLI_H

#include <stdarg.h>

/* Prints "xsflow: <subject>: <message>" as one line on stderr; the message
 * is cut at its first newline so that an error is always one line. */
void cli_error(const char *subject, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Parses a whole decimal number in [min, max]; 0 on success. */
int cli_parse_long(const char *s, long min, long max, long *value);

/* The value of option argv[*i] (the next argument), advancing *i; prints
 * an error and returns NULL when it is missing. */
const char *cli_option_value(int argc, char **argv, int *i);

/* In an option loop over argv with index `i`: the option's value into `v`,
 * or return 2 (the error printed) when it is missing. */
#define CLI_VALUE()                                                                                \
    do {                                                                                           \
        if (!(v = cli_option_value(argc, argv, &i)))                                               \
            return 2;                                                                              \
    } while (0)

/* Parses a picture size "WxH" (both at least 1); 0 on success. */
int cli_parse_size(const char *s, long *width, long *height);

/* Parses a comma-separated list of GPU numbers ("0,1"), at most max of
 * them, each 0..255; 0 on success. */
int cli_parse_gpus(const char *s, int *gpus, int max, int *count);

#endif
