/* Knob tables (xsf_option.h): values parsed by kind, text of "key=value"
 * pairs applied in order. */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include "xsf_option.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xsf_parse.h"

const xsf_option *xsf_option_find(const xsf_option *table, const char *name)
{
    for (const xsf_option *o = table; o && o->kind != XSF_OPTION_END; o++)
        if (o->kind != XSF_OPTION_HEADING && !strcmp(o->name, name))
            return o;
    return NULL;
}

int xsf_option_is_flag(const xsf_option *o)
{
    return o->kind == XSF_OPTION_FLAG || o->kind == XSF_OPTION_SET;
}

static int *int_at(void *obj, size_t offset)
{
    return (int *)(void *)((char *)obj + offset);
}

/* The i-th choice of "a|b|c" equal to value, or -1. */
static int choice_index(const char *choices, const char *value)
{
    int i = 0;
    for (const char *c = choices; *c; i++) {
        const size_t n = strcspn(c, "|");
        if (strlen(value) == n && !strncmp(c, value, n))
            return i;
        c += n + (c[n] == '|');
    }
    return -1;
}

/* "'v' is not a, b or c" from "a|b|c". */
static xsf_status not_a_choice(const char *choices, const char *value, xsf_error *err)
{
    char list[256] = "";
    size_t used = 0;
    int count = 1;
    for (const char *c = choices; *c; c++)
        count += *c == '|';
    int i = 0;
    for (const char *c = choices; *c && used < sizeof list; i++) {
        const size_t n = strcspn(c, "|");
        const char *sep = i == 0 ? "" : i == count - 1 ? " or " : ", ";
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%.*s", sep, (int)n, c);
        c += n + (c[n] == '|');
    }
    return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not %s", value, list);
}

/* A table bound (a double) as an int64_t, the ends clamped. */
static int64_t bound(double d)
{
    if (d >= 9223372036854775807.0)
        return INT64_MAX;
    if (d <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)d;
}

/* UINT: v into a field of o->size bytes. */
static void store_uint(const xsf_option *o, void *obj, uint64_t v)
{
    void *at = (char *)obj + o->offset;
    switch (o->size) {
    case 1: *(uint8_t *)at = (uint8_t)v; break;
    case 2: *(uint16_t *)at = (uint16_t)v; break;
    case 8: *(uint64_t *)at = v; break;
    case 4: *(uint32_t *)at = (uint32_t)v; break;
    default: *(unsigned *)at = (unsigned)v; break;
    }
}

static xsf_status set_value(const xsf_option *o, void *obj, const char *value, xsf_error *err);

xsf_status xsf_option_set(const xsf_option *o, void *obj, const char *value, xsf_error *err)
{
    const xsf_status st = set_value(o, obj, value, err);
    if (st == XSF_OK && (o->flags & XSF_OPTION_GIVEN))
        *int_at(obj, o->given_offset) = 1;
    return st;
}

static xsf_status set_value(const xsf_option *o, void *obj, const char *value, xsf_error *err)
{
    if (!xsf_option_is_flag(o) && !value)
        return xsf_error_set(err, XSF_ERR_ARG, "needs a value");
    if (xsf_option_is_flag(o) && value && *value && strcmp(value, "1"))
        return xsf_error_set(err, XSF_ERR_ARG, "takes no value ('%s')", value);
    switch (o->kind) {
    case XSF_OPTION_FLAG: *int_at(obj, o->offset) = 1; return XSF_OK;
    case XSF_OPTION_SET: *int_at(obj, o->offset) = o->value; return XSF_OK;
    case XSF_OPTION_INT: {
        int64_t v;
        const xsf_status st = xsf_parse_integer(value, bound(o->lo), bound(o->hi), &v, err);
        if (st == XSF_OK && o->size == sizeof(long) && sizeof(long) != sizeof(int))
            *(long *)(void *)((char *)obj + o->offset) = (long)v;
        else if (st == XSF_OK)
            *int_at(obj, o->offset) = (int)v;
        return st;
    }
    case XSF_OPTION_DOUBLE: {
        char *end;
        const double d = strtod(value, &end);
        const int low_ok = o->flags & XSF_OPTION_ABOVE_LO ? d > o->lo : d >= o->lo;
        if (!*value || *end || !low_ok || !(d <= o->hi))
            return xsf_error_set(err, XSF_ERR_ARG, "'%s' is not a number %s %g and at most %g",
                                 value, o->flags & XSF_OPTION_ABOVE_LO ? "above" : "from", o->lo,
                                 o->hi);
        *(double *)(void *)((char *)obj + o->offset) = d;
        return XSF_OK;
    }
    case XSF_OPTION_CHOICE: {
        const int i = choice_index(o->choices, value);
        if (i < 0)
            return not_a_choice(o->choices, value, err);
        *int_at(obj, o->offset) = o->values ? o->values[i] : i;
        return XSF_OK;
    }
    case XSF_OPTION_INTS:
        return xsf_parse_int_list(value, (int)o->lo, (int)o->hi, int_at(obj, o->offset),
                                  o->max_items, int_at(obj, o->count_offset), err);
    case XSF_OPTION_UINT: {
        int64_t v;
        const double lo = o->lo < 0 ? 0 : o->lo;
        const xsf_status st = xsf_parse_integer(value, bound(lo), bound(o->hi), &v, err);
        if (st == XSF_OK)
            store_uint(o, obj, (uint64_t)v);
        return st;
    }
    case XSF_OPTION_BYTES:
        return xsf_parse_bytes(value, (uint64_t)o->lo, o->hi > 0 ? (uint64_t)o->hi : UINT64_MAX,
                               (uint64_t *)(void *)((char *)obj + o->offset), err);
    case XSF_OPTION_STRING:
        *(const char **)(void *)((char *)obj + o->offset) = value;
        return XSF_OK;
    case XSF_OPTION_CALL: return o->parse(obj, value, err);
    case XSF_OPTION_FILE:
        return xsf_error_set(err, XSF_ERR_ARG,
                             "names a file, whose bytes go to the codec's parameters");
    case XSF_OPTION_END:
    case XSF_OPTION_HEADING: break;
    }
    return xsf_error_set(err, XSF_ERR_ARG, "not a knob");
}

static int is_space(char c)
{
    return c == ' ' || c == '\t';
}

xsf_status xsf_options_apply(const xsf_option *table, void *obj, const char *text,
                             const char *owner, xsf_error *err)
{
    for (const char *s = text ? text : ""; *s;) {
        while (is_space(*s))
            s++;
        const size_t n = strcspn(s, " \t");
        if (!n)
            break;
        char item[512];
        if (n >= sizeof item)
            return xsf_error_set(err, XSF_ERR_ARG, "'%.32s...' is too long for a knob", s);
        memcpy(item, s, n);
        item[n] = '\0';
        s += n;
        char *value = strchr(item, '=');
        if (value)
            *value++ = '\0';
        const xsf_option *o = xsf_option_find(table, item);
        if (!o)
            return xsf_error_set(err, XSF_ERR_ARG, "%s have no option '%s'", owner, item);
        if (o->kind == XSF_OPTION_STRING) /* item is this function's: it would not outlive it */
            return xsf_error_set(err, XSF_ERR_ARG, "%s: takes its text on a command line only",
                                 item);
        xsf_error e;
        xsf_error_clear(&e);
        if (xsf_option_set(o, obj, value, &e) != XSF_OK)
            return xsf_error_set(err, XSF_ERR_ARG, "%s: %s", item, e.msg);
    }
    return XSF_OK;
}

xsf_status xsf_options_append(char *buf, size_t cap, const char *key, const char *value,
                              xsf_error *err)
{
    if (!key || !*key || strpbrk(key, " \t=") || (value && strpbrk(value, " \t")))
        return xsf_error_set(err, XSF_ERR_ARG, "'%s%s%s' cannot be a knob (no spaces)",
                             key ? key : "", value ? "=" : "", value ? value : "");
    const size_t used = strnlen(buf, cap);
    const int n = snprintf(buf + used, cap - used, "%s%s%s%s", used ? " " : "", key,
                           value ? "=" : "", value ? value : "");
    if (n < 0 || (size_t)n >= cap - used) {
        buf[used] = '\0';
        return xsf_error_set(err, XSF_ERR_ARG, "too many knobs (%zu bytes of text at most)",
                             cap - 1);
    }
    return XSF_OK;
}
