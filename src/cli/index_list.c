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
        if (*end == '\0')
            return 0;
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
