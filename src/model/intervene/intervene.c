/* intervene.c: the interventions a run asks for (intervene.h). */
#include "model/intervene/intervene.h"

#include "model/intervene/ablate.h"
#include "model/intervene/head_scores.h"
#include "model/intervene/patch.h"

bool intervene_asked(const run_request *rq)
{
    return rq->n_ablate > 0 || rq->ablate_all || rq->patch || rq->head_scores;
}

int intervene_check(const lm_ops *lm, const run_request *rq,
                    const model_input *in, mx_error *err)
{
    if (!intervene_asked(rq))
        return 0;
    if (lm == NULL)
        return err_detail_set(err, RUN_NEEDS_LM_HEAD,
                              rq->patch         ? RUN_PATCH
                              : rq->head_scores ? RUN_HEAD_SCORES
                                                : RUN_ABLATE,
                              0, 0);
    if (rq->patch)
        return patch_check(lm, rq, err);
    if (rq->head_scores)
        return head_scores_check(lm, rq, in, err);
    return ablate_check(lm, rq, in, err);
}

int intervene_record(trace *tr, const lm_ops *lm, const run_request *rq,
                     const model_input *in, mx_error *err)
{
    if (!intervene_asked(rq))
        return 0;
    if (rq->patch)
        return patch_record(tr, lm, rq, err);
    if (rq->head_scores)
        return head_scores_record(tr, lm, rq, in, err);
    return ablate_record(tr, lm, rq, in, err);
}

bool intervene_makes_table(const run_request *rq, table_id id)
{
    if (rq->patch)
        return (PATCH_TABLES & table_bit(id)) != 0;
    if (rq->head_scores)
        return ((HEAD_SCORE_TABLES |
                 (rq->repeat_random > 0 ? REPEAT_RANDOM_TABLES : 0)) &
                table_bit(id)) != 0;
    return ablate_makes_table(rq, id);
}
