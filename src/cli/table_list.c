/* table_list.c: the names of --tables read into the model's picks
 * (table_list.h). */
#include "cli/table_list.h"

#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"

bool table_name_is_grad(const char *name, size_t *base_len)
{
    const size_t n = strlen(name), suffix = strlen(".grad");
    const bool grad = n > suffix && strcmp(name + n - suffix, ".grad") == 0;
    if (base_len != NULL)
        *base_len = grad ? n - suffix : n;
    return grad;
}

void table_list_free(table_list *l)
{
    free(l->picks);
    free(l->names);
    *l = (table_list){0};
}

int table_list_read(table_list *out, const char *const *typed, size_t n,
                    bool whole, mx_error *err)
{
    table_list_free(out);
    if (n == 0)
        return 0;
    size_t room = 0;
    for (size_t i = 0; i < n; i++)
        room += strlen(typed[i]) + 1;
    out->picks = calloc(n, sizeof *out->picks);
    out->names = malloc(room);
    if (out->picks == NULL || out->names == NULL) {
        table_list_free(out);
        return err_nomem(err, _("the table list"));
    }
    char *at = out->names;
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const bool grad = !whole && table_name_is_grad(typed[i], &len);
        if (!grad)
            len = strlen(typed[i]);
        memcpy(at, typed[i], len);
        at[len] = '\0';
        out->picks[i] = (table_pick){table_by_name(at, len), at, grad};
        at += len + 1;
    }
    return 0;
}
