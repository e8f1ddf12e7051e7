/* lesson_lm_page.c: model/lesson/lesson_lm.h for the page's WebAssembly
 * cores (src/wasm/meson.build names it in lesson_lm.c's place): the
 * lesson model opens nowhere on the page. The core of every page runs
 * no interventions (model/intervene/intervene_page.c refuses them
 * before a model opens); the families core runs a checkpoint's, and
 * refuses a trained lesson model's here, naming the option. */
#include "model/lesson/lesson_lm.h"

#include "base/i18n.h"

static int open_none(lm_session **s, lm_shape *shape, const run_request *rq,
                     mx_error *err)
{
    (void)shape;
    *s = NULL;
    return err_usage(err,
                     _("%s: the page runs no interventions; run "
                       "mha-explain on the command line"),
                     rq->patch         ? "--patch"
                     : rq->head_scores ? "--head-scores"
                                       : "--ablate");
}

const lm_ops lesson_lm = {.open = open_none};
