/* figure_generation.c: a generation's page of --plot (figure_parts.h):
 * with --generate N --kv-steps, every kept head's attention growing a
 * row per step (attn_weights_generated) on the weights' scale, and under
 * them the probability of each chosen token (generated_p), a map from 0
 * to 1 (figure_maps.c): one for each lesson variant that generated. */
#include "plot/figure_parts.h"

#include <stdlib.h>

#include "base/i18n.h"

int fig_generation_of_run(const table ***out, size_t *n, const trace *tr,
                          mx_error *err)
{
    *out = NULL;
    *n = 0;
    size_t heads = 0, strips = 0;
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (t->grad || t->values.v == NULL)
            continue;
        heads += t->id == TABLE_ATTN_WEIGHTS_GENERATED;
        strips += t->id == TABLE_GENERATED_P;
    }
    if (heads == 0)
        return 0;
    const table **picked = malloc((heads + strips + 1) * sizeof *picked);
    if (picked == NULL)
        return err_nomem(err, _("the picture"));
    size_t k = 0;
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (t->id == TABLE_ATTN_WEIGHTS_GENERATED && !t->grad &&
            t->values.v != NULL)
            picked[k++] = t;
    }
    // the strips under every head
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (t->id == TABLE_GENERATED_P && !t->grad && t->values.v != NULL)
            picked[k++] = t;
    }
    *out = picked;
    *n = k;
    return 0;
}
