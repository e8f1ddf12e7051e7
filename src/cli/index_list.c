/* index_list.c: a list such as 0,3,5-7 read into ranges. */
#include "cli/index_list.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"

/* A number of the list as strtoul reads it, SIZE_MAX when too large. */
static size_t index_of(unsigned long v)
{
    return v > SIZE_MAX ? SIZE_MAX : (size_t)v;
}

/* The place of the first range of list[0..n) that shares an index with
 * an earlier one (its place in *before), or 0 for none. */
static size_t repeated(size_t *before, const index_range *list, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (list[j].lo <= list[i].hi && list[i].lo <= list[j].hi) {
                *before = j;
                return i;
            }
    return 0;
}

/* The error of an index listed twice: the item that repeats it, as it
 * was typed, and the first index it repeats when it is a range of more. */
static int repeated_error(const index_range *list, size_t n, const char *text,
                          const char *option, mx_error *err)
{
    size_t before = 0;
    const size_t twice = repeated(&before, list, n);
    if (twice == 0)
        return 0;
    size_t len;
    const char *typed = list_item(text, twice, &len);
    const index_range *a = &list[before], *b = &list[twice];
    if (b->lo == b->hi || (a->lo == b->lo && a->hi == b->hi))
        return err_usage(err, _("%s: '%.*s' is listed twice in '%s'"), option,
                         (int)len, typed, text);
    return err_usage(err, _("%s: '%.*s' lists %zu a second time in '%s'"),
                     option, (int)len, typed, a->lo > b->lo ? a->lo : b->lo,
                     text);
}

int index_list_parse(index_range **out, size_t *n, const char *list,
                     const char *option, mx_error *err)
{
    size_t items = 1;
    for (const char *p = list; *p != '\0'; p++)
        items += *p == ',';
    free(*out); /* a list read before (the checks run again) */
    *out = calloc(items, sizeof **out);
    *n = 0;
    if (*out == NULL)
        return err_nomem(err, option);
    const char *p = list;
    for (;;) {
        char *end;
        const unsigned long lo = strtoul(p, &end, 10);
        unsigned long hi = lo;
        if (end == p || *p == '-' || *p == '+')
            break;
        if (*end == '-') {
            const char *q = end + 1;
            hi = strtoul(q, &end, 10);
            if (end == q || *q == '-' || *q == '+' || hi < lo)
                break;
        }
        (*out)[(*n)++] = (index_range){index_of(lo), index_of(hi)};
        if (*end == '\0') {
            if (repeated_error(*out, *n, list, option, err) == 0)
                return 0;
            free(*out);
            *out = NULL;
            *n = 0;
            return -1;
        }
        if (*end != ',' || *n == items)
            break;
        p = end + 1;
    }
    free(*out);
    *out = NULL;
    *n = 0;
    return err_usage(err, _("%s: '%s' is not a list such as 0,3,5-7"), option,
                     list);
}

const char *list_item(const char *list, size_t k, size_t *len)
{
    const char *p = list != NULL ? list : "";
    for (; k > 0 && *p != '\0'; p++)
        k -= *p == ',';
    if (k > 0) {
        *len = 0;
        return p;
    }
    *len = strcspn(p, ",");
    return p;
}
