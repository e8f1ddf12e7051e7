/* pipeline.c: a run of the family its configuration asks for
 * (model/family.h), into a trace, and the interventions it asks for
 * (model/intervene/). */
#include "model/pipeline.h"

#include <stdlib.h>

#include "base/i18n.h"
#include "model/family.h"
#include "model/intervene/ablate.h"
#include "model/intervene/corpus_mean.h"
#include "model/intervene/intervene.h"
#include "model/intervene/logit_lens.h"
#include "model/lm.h"

int pipeline_tokens(tokenized *tok, size_t *n_queries, const run_request *rq,
                    const model_input *in, mx_error *err)
{
    const model_family *family = family_of(rq, err);
    if (family == NULL)
        return -1;
    return family->tokens(tok, n_queries, rq, in, err);
}

/* --generate goes with a family that continues a text, and --ablate
 * with it with a family that does so with heads switched off. */
static int check_generates(const model_family *family, const run_request *rq,
                           mx_error *err)
{
    if (rq->generate > 0 && !family->generates)
        return err_usage(err,
                         _("--generate: this program does not continue "
                           "texts with a %s model"),
                         _(family->title));
    if (rq->generate > 0 && rq->n_ablate > 0 && !family->generates_ablated) {
        char types[256];
        family_types_generating_ablated(types, sizeof types);
        return err_usage(err,
                         _("--generate with --ablate: this program switches "
                           "heads off while generating with a --model "
                           "checkpoint (%s), not with a %s model"),
                         types, _(family->title));
    }
    return 0;
}

/* The family's ablate_alone (family.h), 0 for a family without one. */
static int ablates_alone(const model_family *family, const run_request *rq,
                         mx_error *err)
{
    return family->ablate_alone != NULL ? family->ablate_alone(rq, err) : 0;
}

/* The model rq's interventions run on (model/lm.h): the family's lm, or,
 * for --head-scores, which reads the heads' attention weights alone, the
 * model its row gives without an lm_head (scores_only: BERT's); NULL:
 * the family cannot run them. */
static const lm_ops *intervened(const model_family *family,
                                const run_request *rq)
{
    if (family->lm == NULL && rq->head_scores)
        return family->scores_only;
    return family->lm;
}

/* rc, after an intervention the family cannot run: its detail says
 * whether the family's attention looks both ways (a model that predicts
 * no next token, whatever heads it has). */
static int told(int rc, const model_family *family, mx_error *err)
{
    if (rc != 0 && err->detail.what == RUN_NEEDS_LM_HEAD &&
        family->bidirectional)
        err->detail.n[0] = 1;
    return rc;
}

int pipeline_check(double *values, const run_request *rq, const model_input *in,
                   bool streamed, mx_error *err)
{
    *values = 0;
    const model_family *family = family_of(rq, err);
    if (family == NULL || check_generates(family, rq, err) != 0)
        return -1;
    // --repeat-random draws its text: the run is the intervention's alone
    if (rq->repeat_random == 0 &&
        family->check(values, rq, in, streamed, err) != 0)
        return -1;
    // a lesson model trains on the input again (model/lesson/lesson_lm.h)
    run_request with = *rq;
    with.trained_on = in;
    if (told(logit_lens_check(family->lm, &with, in, err), family, err) != 0)
        return -1;
    // a run without an lm_head that switches heads off in its own pass
    const int alone = ablates_alone(family, rq, err);
    if (alone != 0)
        return alone < 0 ? -1 : 0;
    return told(intervene_check(intervened(family, rq), &with, in, err), family,
                err);
}

int pipeline_run(trace *tr, const run_request *rq, const model_input *in,
                 mx_error *err)
{
    const model_family *family = family_of(rq, err);
    if (family == NULL || check_generates(family, rq, err) != 0)
        return -1;
    // the tables carry their family: headings, the CSV and --explain read
    // its row
    tr->family = family;
    // a lesson model reads the input (model/lesson/lesson_lm.h)
    run_request with = *rq;
    with.trained_on = in;
    const int alone = ablates_alone(family, rq, err);
    const lm_ops *lm = intervened(family, rq);
    if (alone < 0 ||
        told(logit_lens_check(family->lm, &with, in, err), family, err) != 0 ||
        (alone == 0 &&
         told(intervene_check(lm, &with, in, err), family, err) != 0))
        return -1;
    // --ablate-mode mean over --corpus: each head's mean, taken first
    // (model/intervene/corpus_mean.h)
    run_request run = *rq;
    head_means means = {0};
    if (alone == 0 && corpus_mean_asked(lm, rq, in)) {
        if (corpus_mean_of(&means, lm, rq, in, err) != 0)
            return -1;
        run.ablate_means = with.ablate_means = &means;
    }
    // the run is the ablated model's: the family applies the hooks
    replace_hook *hooks = NULL;
    if (ablate_hooks(&hooks, &run.n_replace, &run, err) != 0) {
        corpus_mean_free(&means);
        return -1;
    }
    run.replace = hooks;
    // a model the run trains is the interventions' and the lens's model
    // (lm.h, lm_made)
    lm_made made = {0};
    if ((alone == 0 && intervene_asked(rq)) || rq->logit_lens)
        run.made = with.made = &made;
    // their maps have a row per layer: the CSV's layer column says it
    tr->layer_maps = family->lm != NULL &&
                     ((alone == 0 && intervene_asked(rq)) || rq->logit_lens);
    int rc = rq->repeat_random == 0 ? family->run(tr, &run, in, err) : 0;
    if (rc == 0 && alone == 0)
        rc = intervene_record(tr, lm, &with, in, err);
    if (rc == 0)
        rc = logit_lens_record(tr, family->lm, &with, in, err);
    if (made.free != NULL)
        made.free(made.model);
    free(hooks);
    corpus_mean_free(&means);
    return rc;
}

bool pipeline_makes_table(const run_request *rq, const model_input *in,
                          const table_pick *p)
{
    mx_error err;
    const model_family *family = family_of(rq, &err);
    // a model_type no family reads: pipeline_check refuses the run
    if (family == NULL)
        return true;
    const table_id id = table_pick_row(p);
    if (intervened(family, rq) != NULL && id != TABLE_COUNT &&
        ablates_alone(family, rq, &err) == 0 && intervene_makes_table(rq, id))
        return true;
    if (family->lm != NULL &&
        (id == TABLE_LOGIT_LENS || id == TABLE_LOGIT_LENS_GRID))
        return rq->logit_lens;
    // --repeat-random's run is the intervention's alone (pipeline_run)
    if (rq->repeat_random > 0)
        return false;
    return family->makes_table(rq, in, p);
}
