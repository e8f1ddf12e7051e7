/* option_read.c: an option's value read by its row (option_read.h). */
#include "cli/option_read.h"

#include <float.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"

int option_parse_size(size_t *out, const char *opt, const char *text, size_t lo,
                      size_t hi, mx_error *err)
{
    size_t value = 0;
    int ok = text[0] != '\0';
    for (const char *p = text; *p != '\0' && ok; p++) {
        if (*p < '0' || *p > '9')
            ok = 0;
        else if (value > (SIZE_MAX - (size_t)(*p - '0')) / 10)
            value = SIZE_MAX; /* saturate: reported as out of range */
        else
            value = value * 10 + (size_t)(*p - '0');
    }
    if (!ok && text[0] == '-' && text[1] != '\0' &&
        strspn(text + 1, "0123456789") == strlen(text + 1))
        return err_usage(err,
                         _("%s: '%s' is out of range (expected %zu to "
                           "%zu)"),
                         opt, text, lo, hi);
    if (!ok) {
        return err_usage(err,
                         _("%s: '%s' is not a whole number (expected %zu "
                           "to %zu)"),
                         opt, text, lo, hi);
    }
    if (value < lo || value > hi) {
        return err_usage(err, _("%s: %s is out of range (expected %zu to %zu)"),
                         opt, text, lo, hi);
    }
    *out = value;
    return 0;
}

/* Whether text is a decimal as the CSV's numbers are written: an optional
 * sign, digits with at most one '.', an optional exponent (-0.25, .5, 5.,
 * 1e-3, -1.5E+2); not hexadecimal, inf, nan or spaces. */
static bool is_decimal(const char *text)
{
    const char *p = text + (*text == '+' || *text == '-');
    size_t digits = strspn(p, "0123456789");
    p += digits;
    if (*p == '.') {
        p++;
        const size_t after = strspn(p, "0123456789");
        digits += after;
        p += after;
    }
    if (digits > 0 && (*p == 'e' || *p == 'E')) {
        p++;
        p += *p == '+' || *p == '-';
        const size_t exp_digits = strspn(p, "0123456789");
        if (exp_digits == 0)
            return false;
        p += exp_digits;
    }
    return digits > 0 && *p == '\0';
}

/* A probability P, 0 <= P < 1, or a rate, positive and finite: a decimal
 * read as the nearest double, so that one too small to be told from 0
 * becomes a subnormal number or 0 (1e-400 is 0: a probability, not a
 * rate) and one too large becomes infinity (neither). */
static int parse_real(double *out, const char *opt, const char *text,
                      enum option_type type, mx_error *err)
{
    const double v = is_decimal(text) ? strtod(text, NULL) : -1;
    // (the comparisons are false for NaN, which is_decimal keeps out)
    if (type == TYPE_PROBABILITY && !(v >= 0 && v < 1))
        return err_usage(err,
                         _("%s: '%s' is not a probability (expected a "
                           "number from 0 up to, but not including, 1)"),
                         opt, text);
    if (type == TYPE_RATE && !(v > 0 && v <= DBL_MAX))
        return err_usage(err,
                         _("%s: '%s' is not a learning rate (expected a "
                           "positive, finite number)"),
                         opt, text);
    *out = v;
    return 0;
}

/* Stores v in the row's integer field, as wide as the field is: a bool or
 * char, a 32-bit int, unsigned or enum, or a 64-bit size_t or uint64_t
 * (the values of the rows are never negative). */
static void store_int(options *opt, const option_row *o, uint64_t v)
{
    unsigned char *field = (unsigned char *)opt + o->at;
    const uint8_t v8 = (uint8_t)v;
    const uint32_t v32 = (uint32_t)v;
    if (o->size == sizeof v8)
        memcpy(field, &v8, sizeof v8);
    else if (o->size == sizeof v32)
        memcpy(field, &v32, sizeof v32);
    else if (o->size == sizeof v)
        memcpy(field, &v, sizeof v);
}

static void store_text(options *opt, const option_row *o, const char *text)
{
    if (o->size == sizeof text)
        memcpy((unsigned char *)opt + o->at, &text, sizeof text);
}

/* The value of the row's integer field (store_int's reverse). */
static uint64_t load_int(const options *opt, const option_row *o)
{
    const unsigned char *field = (const unsigned char *)opt + o->at;
    uint8_t v8 = 0;
    uint32_t v32 = 0;
    uint64_t v = 0;
    if (o->size == sizeof v8)
        memcpy(&v8, field, sizeof v8);
    else if (o->size == sizeof v32)
        memcpy(&v32, field, sizeof v32);
    else if (o->size == sizeof v)
        memcpy(&v, field, sizeof v);
    return o->size == sizeof v8 ? v8 : o->size == sizeof v32 ? v32 : v;
}

double option_real_default(const options *opt, const option_row *o)
{
    if (o->def_by == NULL)
        return o->def_real;
    const uint64_t choice = load_int(opt, &option_rows[o->def_by->by]);
    const size_t n = sizeof o->def_by->each / sizeof *o->def_by->each;
    return choice < n ? o->def_by->each[choice] : o->def_real;
}

uint64_t option_int_default(const options *opt, const option_row *o)
{
    if (o->def_by == NULL)
        return o->def;
    const uint64_t v = load_int(opt, &option_rows[o->def_by->by]);
    const size_t n = sizeof o->def_by->each / sizeof *o->def_by->each;
    return v < n ? (uint64_t)o->def_by->each[v] : o->def;
}

void option_defaults(options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->plot_look = plot_style_default();
    for (size_t id = 0; id < N_OPTIONS; id++) {
        const option_row *o = &option_rows[id];
        if (o->real && o->def_by == NULL && o->size == sizeof(double))
            memcpy((unsigned char *)opt + o->at, &o->def_real,
                   sizeof o->def_real);
        else if (!o->real && o->size > 0 && o->def != 0)
            store_int(opt, o, o->def);
    }
}

/* One of the choices' names, or the choices' message. */
static int read_choice(options *opt, const option_row *o, const char *flag,
                       const char *arg, mx_error *err)
{
    const option_choices *c = o->choices;
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(arg, c->each[i].name) == 0) {
            store_int(opt, o, (uint64_t)c->each[i].value);
            return 0;
        }
        // the message is the row's: -Wformat-nonliteral cannot check it, the
        // po test's msgfmt -c checks its translations
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    if (c->named)
        return err_usage(err, _(c->wrong), flag, arg);
    return err_usage(err, _(c->wrong), arg);
#pragma GCC diagnostic pop
}

int option_read(options *opt, int id, const char *arg, mx_error *err)
{
    if (id < 0 || id >= N_OPTIONS)
        return err_usage(err, _("internal error: option %d not handled"), id);
    const option_row *o = &option_rows[id];
    char flag[40];
    snprintf(flag, sizeof flag, "--%s", o->name);
    size_t n = 0;
    double real = 0;
    switch (o->type) {
    case TYPE_FLAG:
        store_int(opt, o, o->def == 0);
        return 0;
    case TYPE_SIZE:
        if (option_parse_size(&n, flag, arg, o->lo, o->hi, err) != 0)
            return -1;
        store_int(opt, o, n);
        return 0;
    case TYPE_PROBABILITY:
    case TYPE_RATE:
        if (parse_real(&real, flag, arg, o->type, err) != 0)
            return -1;
        memcpy((unsigned char *)opt + o->at, &real, sizeof real);
        return 0;
    case TYPE_NAME:
        if (arg[0] == '\0')
            return err_usage(err, _("%s: the name is empty"), flag);
        store_text(opt, o, arg);
        return 0;
    case TYPE_LIST:
        if (arg[0] == '\0')
            return err_usage(err,
                             _("%s: the list is empty (give one such as "
                               "0,3,5-7)"),
                             flag);
        store_text(opt, o, arg);
        return 0;
    case TYPE_WORDS:
        if (arg[0] == '\0')
            return err_usage(err, _("%s: the text is empty"), flag);
        store_text(opt, o, arg);
        return 0;
    case TYPE_TEXT:
        store_text(opt, o, arg);
        return 0;
    case TYPE_CHOICE:
        return read_choice(opt, o, flag, arg, err);
    case TYPE_OWN:
        return 1;
    }
    return err_usage(err, _("internal error: option %d not handled"), id);
}
