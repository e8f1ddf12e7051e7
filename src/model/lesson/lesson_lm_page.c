/* lesson_lm_page.c: model/lesson/lesson_lm.h for the page's WebAssembly
 * cores (src/wasm/meson.build names it in lesson_lm.c's place): the
 * lesson model opens nowhere on the page. The core of every page runs
 * no interventions (model/intervene/intervene_page.c refuses them
 * before a model opens); the families core runs a checkpoint's, and
 * refuses a trained lesson model's here (RUN_NOT_ON_PAGE,
 * model/pipeline.h: the caller names the option). */
#include "model/lesson/lesson_lm.h"

static int open_none(lm_session **s, lm_shape *shape, const run_request *rq,
                     mx_error *err)
{
    (void)shape;
    *s = NULL;
    return err_detail_set(err, RUN_NOT_ON_PAGE,
                          rq->patch         ? RUN_PATCH
                          : rq->head_scores ? RUN_HEAD_SCORES
                                            : RUN_ABLATE,
                          0, 0);
}

const lm_ops lesson_lm = {.open = open_none, .variant = VARIANT_ID_BLOCK};
