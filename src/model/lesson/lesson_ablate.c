/* lesson_ablate.c: switching heads off in a lesson run without an
 * lm_head (lesson_ablate.h). */
#include "model/lesson/lesson_ablate.h"

#include <stdlib.h>

#include "base/i18n.h"
#include "model/lesson/model.h"
#include "model/lesson/variants.h"

/* The layers and heads variant v's module has in a run of rq. */
static void variant_heads(size_t *layers, size_t *heads, const run_request *rq,
                          variant_id v)
{
    const variant_row *row = variant_row_of(v);
    *layers =
        row->stacks && rq->model.block_layers > 0 ? rq->model.block_layers : 1;
    *heads = row->heads == HEADS_ONE ? 1 : rq->model.heads;
}

int lesson_ablate_alone(const run_request *rq, mx_error *err)
{
    if (rq->n_ablate == 0 || rq->train || rq->ablate_all || rq->patch ||
        rq->head_scores)
        return 0;
    // the most layers and heads among the chosen variants
    size_t layers = 0, heads = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        if (!(rq->variants & model_variants[i].bit))
            continue;
        size_t l, h;
        variant_heads(&l, &h, rq, model_variants[i].id);
        layers = l > layers ? l : layers;
        heads = h > heads ? h : heads;
    }
    for (size_t i = 0; i < rq->n_ablate; i++) {
        const head_ref *h = &rq->ablate[i];
        if (h->layer >= layers || h->head >= heads)
            return err_detail_set(err, RUN_LIST_ABLATE, i, layers, heads);
    }
    return 1;
}

int lesson_ablate_hooks(forward_hooks *hk, replace_hook **own,
                        const run_request *rq, variant_id v, mx_error *err)
{
    *hk = (forward_hooks){0};
    *own = NULL;
    if (rq->n_replace == 0)
        return 0;
    if ((*own = calloc(rq->n_replace, sizeof **own)) == NULL)
        return err_nomem(err, _("the heads"));
    size_t layers, heads, n = 0;
    variant_heads(&layers, &heads, rq, v);
    for (size_t i = 0; i < rq->n_replace; i++) {
        replace_hook k = rq->replace[i];
        if (!is_layer_table(&k.at) || k.at.layer < 0 ||
            (size_t)k.at.layer >= layers || k.at.head < 0 ||
            (size_t)k.at.head >= heads)
            continue;
        k.at.variant = v;
        (*own)[n++] = k;
    }
    if (n > 0)
        *hk = (forward_hooks){.replace = *own, .n_replace = n};
    return 0;
}
