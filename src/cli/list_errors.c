/* list_errors.c: the messages of a list's item out of the model's range
 * (list_errors.h). */
#include "cli/list_errors.h"

#include <stdio.h>

#include "base/i18n.h"
#include "cli/index_list.h"
#include "cli/option_table.h"
#include "model/pipeline.h"

void list_error_message(mx_error *err, const options *opt)
{
    const err_item at = err->item;
    if (at.list == RUN_LIST_NONE)
        return;
    size_t len;
    if (at.list == RUN_LIST_ABLATE) {
        const char *typed = list_item(opt->ablate, at.item, &len);
        err_usage(
            err,
            _("--ablate: %.*s is out of range; the model has layers 0 to %zu and heads 0 to %zu"),
            (int)len, typed, at.size[0] - 1, at.size[1] - 1);
        return;
    }
    // --layers or --show-heads, a list such as 0,3,5-7 (index_list.h)
    const bool layers = at.list == RUN_LIST_LAYERS;
    const char *typed =
        list_item(layers ? opt->layers : opt->show_heads, at.item, &len);
    char flag[64];
    snprintf(flag, sizeof flag, "--%s",
             option_rows[layers ? OPT_LAYERS : OPT_SHOW_HEADS].name);
    err_usage(err, _("%s: %.*s is out of range; the model has %zu (0 to %zu)"),
              flag, (int)len, typed, at.size[0], at.size[0] - 1);
}
