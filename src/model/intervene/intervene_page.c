/* intervene_page.c: model/intervene/intervene.h for the WebAssembly core
 * of every live page (src/wasm/meson.build names it in the place of this
 * folder's interventions; logit_lens_page.c stands in for the logit
 * lens). A lesson run's --ablate L.H is its own pass's
 * (model/lesson/lesson_ablate.h), which pipeline.c asks first; every
 * other intervention is refused (RUN_NOT_ON_PAGE, model/pipeline.h: the
 * caller names the option). The pages of --model
 * runs carry the families core, which has this folder's interventions
 * (the head view's switches run --ablate on a checkpoint). */
#include "model/intervene/intervene.h"

/* The intervention rq asks for (enum run_intervention), or -1. */
static int asked(const run_request *rq)
{
    return rq->patch                            ? RUN_PATCH
           : rq->head_scores                    ? RUN_HEAD_SCORES
           : rq->n_ablate > 0 || rq->ablate_all ? RUN_ABLATE
           : rq->logit_lens                     ? RUN_LOGIT_LENS
                                                : -1;
}

static int refuse(const run_request *rq, mx_error *err)
{
    const int what = asked(rq);
    if (what < 0)
        return 0;
    return err_detail_set(err, RUN_NOT_ON_PAGE, (size_t)what, 0, 0);
}

bool intervene_asked(const run_request *rq)
{
    return asked(rq) >= 0;
}

int intervene_check(const lm_ops *lm, const run_request *rq,
                    const model_input *in, mx_error *err)
{
    (void)lm;
    (void)in;
    return refuse(rq, err);
}

int intervene_record(trace *tr, const lm_ops *lm, const run_request *rq,
                     const model_input *in, mx_error *err)
{
    (void)tr;
    (void)lm;
    (void)in;
    return refuse(rq, err);
}

bool intervene_makes_table(const run_request *rq, table_id id)
{
    (void)rq;
    (void)id;
    return false;
}
