/* intervene.c: the interventions a run asks for (intervene.h). */
#include "model/intervene/intervene.h"

#include "base/i18n.h"
#include "model/intervene/ablate.h"
#include "model/intervene/head_scores.h"
#include "model/intervene/patch.h"

bool intervene_asked(const model_config *mc)
{
    return mc->n_ablate > 0 || mc->ablate_all || mc->patch || mc->head_scores;
}

int intervene_check(const lm_ops *lm, const model_config *mc,
                    const model_input *in, mx_error *err)
{
    if (!intervene_asked(mc))
        return 0;
    if (lm == NULL)
        return err_usage(
            err,
            _("%s: needs a model with an lm_head (--model DIR); this family cannot run it"),
            mc->patch         ? "--patch"
            : mc->head_scores ? "--head-scores"
                              : "--ablate");
    if (mc->patch)
        return patch_check(lm, mc, err);
    if (mc->head_scores)
        return head_scores_check(lm, mc, in, err);
    return ablate_check(lm, mc, in, err);
}

int intervene_record(trace *tr, const lm_ops *lm, const model_config *mc,
                     const model_input *in, mx_error *err)
{
    if (!intervene_asked(mc))
        return 0;
    if (mc->patch)
        return patch_record(tr, lm, mc, err);
    if (mc->head_scores)
        return head_scores_record(tr, lm, mc, in, err);
    return ablate_record(tr, lm, mc, in, err);
}

bool intervene_makes_table(const model_config *mc, table_id id)
{
    if (mc->patch)
        return (PATCH_TABLES & table_bit(id)) != 0;
    if (mc->head_scores)
        return (HEAD_SCORE_TABLES & table_bit(id)) != 0;
    return ablate_makes_table(mc, id);
}
