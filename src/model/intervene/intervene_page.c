/* intervene_page.c: model/intervene/intervene.h for the WebAssembly core
 * of every live page (src/wasm/meson.build names it in the place of this
 * folder's interventions; logit_lens_page.c stands in for the logit
 * lens). A lesson run's --ablate L.H is its own pass's
 * (model/lesson/lesson_ablate.h), which pipeline.c asks first; every
 * other intervention is refused, naming the option. The pages of --model
 * runs carry the families core, which has this folder's interventions
 * (the head view's switches run --ablate on a checkpoint). */
#include "model/intervene/intervene.h"

#include "base/i18n.h"

/* The option of rq that asks for an intervention, or NULL. */
static const char *asked(const run_request *rq)
{
    return rq->patch                            ? "--patch"
           : rq->head_scores                    ? "--head-scores"
           : rq->n_ablate > 0 || rq->ablate_all ? "--ablate"
           : rq->logit_lens                     ? "--logit-lens"
                                                : NULL;
}

static int refuse(const run_request *rq, mx_error *err)
{
    const char *option = asked(rq);
    if (option == NULL)
        return 0;
    return err_usage(err,
                     _("%s: the page runs no interventions; run "
                       "mha-explain on the command line"),
                     option);
}

bool intervene_asked(const run_request *rq)
{
    return asked(rq) != NULL;
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
