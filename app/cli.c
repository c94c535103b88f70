#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_error(const char *subject, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    msg[strcspn(msg, "\r\n")] = '\0';
    fprintf(stderr, "xsflow: %s: %s\n", subject, msg);
}

int cli_parse_long(const char *s, long min, long max, long *value)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *value = v;
    return 0;
}

const char *cli_option_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        cli_error(argv[*i], "needs a value");
        return NULL;
    }
    return argv[++*i];
}

int cli_parse_gpus(const char *s, int *gpus, int max, int *count)
{
    *count = 0;
    char buf[256];
    if (!*s || strlen(s) >= sizeof buf)
        return -1;
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = buf, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next)
            *next++ = '\0';
        long v;
        if (*count == max || cli_parse_long(tok, 0, 255, &v))
            return -1;
        gpus[(*count)++] = (int)v;
    }
    return 0;
}

int cli_parse_size(const char *s, long *width, long *height)
{
    char *end;
    *width = strtol(s, &end, 10);
    if (*end != 'x' || *width < 1)
        return -1;
    *height = strtol(end + 1, &end, 10);
    return *end || *height < 1 ? -1 : 0;
}
