/* ablate_hooks.c: the hooks of --ablate's heads (ablate.h), apart from
 * the rest of the ablation: the page's WebAssembly core carries them for
 * the lesson's modules (model/lesson/lesson_ablate.h), which switch heads
 * off in their own pass. */
#include "model/intervene/ablate.h"

#include <stdlib.h>

#include "base/i18n.h"

replace_hook ablate_head_hook(const run_request *rq, size_t layer, size_t head)
{
    replace_hook k = {
        .at = layer_table_key((int)layer, (int)head, TABLE_HEAD_CONTEXT),
        .action = rq->ablate_mode,
    };
    // a mean over --corpus, taken before the run: set on every position
    const head_means *m = rq->ablate_means;
    if (k.action == HOOK_MEAN && m != NULL && layer < m->layers &&
        head < m->heads) {
        k.action = HOOK_ROW;
        k.value = &m->rows[layer * m->heads + head];
    }
    return k;
}

int ablate_hooks(replace_hook **out, size_t *n, const run_request *rq,
                 mx_error *err)
{
    *out = NULL;
    *n = 0;
    if (rq->n_ablate == 0)
        return 0;
    if ((*out = calloc(rq->n_ablate, sizeof **out)) == NULL)
        return err_nomem(err, _("logits"));
    for (size_t i = 0; i < rq->n_ablate; i++)
        (*out)[i] =
            ablate_head_hook(rq, rq->ablate[i].layer, rq->ablate[i].head);
    *n = rq->n_ablate;
    return 0;
}
