/* head_list.c: a list of heads such as 9.6,9.9,10.0 (head_list.h). */
#include "cli/head_list.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/i18n.h"
#include "cli/index_list.h"

/* A whole number at p (digits only) into *v, SIZE_MAX when too large;
 * returns the end, or p when there is no digit. */
static const char *whole(size_t *v, const char *p)
{
    *v = 0;
    const char *q = p;
    for (; *q >= '0' && *q <= '9'; q++) {
        const size_t d = (size_t)(*q - '0');
        *v = *v > (SIZE_MAX - d) / 10 ? SIZE_MAX : *v * 10 + d;
    }
    return q;
}

/* The place of the first head of list[0..n) that an earlier one names
 * too (the same layer and head, however typed), or 0 for none. */
static size_t repeated(const head_ref *list, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (list[j].layer == list[i].layer && list[j].head == list[i].head)
                return i;
    return 0;
}

/* Reads list's heads into out (room for every item); returns whether
 * the whole of list is such a list. */
static bool read_heads(head_ref *out, size_t *n, const char *list)
{
    const char *p = list;
    for (;;) {
        head_ref h = {0};
        const char *end = whole(&h.layer, p);
        if (end == p || *end != '.')
            return false;
        const char *q = end + 1;
        end = whole(&h.head, q);
        if (end == q)
            return false;
        out[(*n)++] = h;
        if (*end == '\0')
            return true;
        if (*end != ',')
            return false;
        p = end + 1;
    }
}

int head_list_parse(head_ref **out, size_t *n, const char *list,
                    const char *option, mx_error *err)
{
    size_t items = 1;
    for (const char *p = list; *p != '\0'; p++)
        items += *p == ',';
    free(*out);
    *out = calloc(items, sizeof **out);
    *n = 0;
    if (*out == NULL)
        return err_nomem(err, option);
    const bool read = read_heads(*out, n, list);
    const size_t twice = read ? repeated(*out, *n) : 0;
    if (read && twice == 0)
        return 0;
    size_t len;
    const char *typed = list_item(list, twice, &len);
    if (read)
        err_usage(err, _("%s: '%.*s' is listed twice in '%s'"), option,
                  (int)len, typed, list);
    else
        err_usage(err,
                  _("%s: '%s' is not a list of heads such as 9.6,9.9,10.0 "
                    "(layer.head)"),
                  option, list);
    free(*out);
    *out = NULL;
    *n = 0;
    return -1;
}
