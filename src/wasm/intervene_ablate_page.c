/* intervene_ablate_page.c: model/intervene/intervene.h for the
 * WebAssembly core of every live page (meson.build names it in the place
 * of model/intervene/intervene.c). The core runs
 * --ablate L.H[,...] (ablate.c): on a lesson run that does not train, in
 * its modules' own pass (model/lesson/lesson_ablate.h, which pipeline.c
 * asks first), and on a trained lesson model (model/lesson/lesson_lm.c),
 * so that the head and training views' switches run it on a trained
 * model's page and in a run the editor trains. --patch, --head-scores
 * and the logit lens are refused (RUN_NOT_ON_PAGE, model/pipeline.h: the
 * caller names the option); the families core of a --model page has
 * them (intervene.c). */
#include "model/intervene/intervene.h"

#include "model/intervene/ablate.h"

/* The intervention rq asks for that the core does not run (enum
 * run_intervention), or -1. */
static int refused(const run_request *rq)
{
    return rq->patch         ? RUN_PATCH
           : rq->head_scores ? RUN_HEAD_SCORES
           : rq->logit_lens  ? RUN_LOGIT_LENS
                             : -1;
}

bool intervene_asked(const run_request *rq)
{
    return rq->n_ablate > 0 || rq->ablate_all || refused(rq) >= 0;
}

int intervene_check(const lm_ops *lm, const run_request *rq,
                    const model_input *in, mx_error *err)
{
    if (!intervene_asked(rq))
        return 0;
    if (refused(rq) >= 0)
        return err_detail_set(err, RUN_NOT_ON_PAGE, (size_t)refused(rq), 0, 0);
    if (lm == NULL)
        return err_detail_set(err, RUN_NEEDS_LM_HEAD, RUN_ABLATE, 0, 0);
    return ablate_check(lm, rq, in, err);
}

int intervene_record(trace *tr, const lm_ops *lm, const run_request *rq,
                     const model_input *in, mx_error *err)
{
    if (!intervene_asked(rq))
        return 0;
    if (refused(rq) >= 0)
        return err_detail_set(err, RUN_NOT_ON_PAGE, (size_t)refused(rq), 0, 0);
    return ablate_record(tr, lm, rq, in, err);
}

bool intervene_makes_table(const run_request *rq, table_id id)
{
    return refused(rq) < 0 && ablate_makes_table(rq, id);
}
