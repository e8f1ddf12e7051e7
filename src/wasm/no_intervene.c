/* no_intervene.c: model/intervene/intervene.h, logit_lens.h and ablate.h
 * for the WebAssembly core. The page offers no intervention and no logit
 * lens (their options shape no page, option_list.h): asked anyway, the
 * run is refused, naming the option. */
#include "model/intervene/ablate.h"
#include "model/intervene/intervene.h"
#include "model/intervene/logit_lens.h"

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

/* A lesson run's --ablate L.H is its own pass's (lesson_ablate.h):
 * pipeline.c asks intervene_check of every other intervention. */
int logit_lens_check(const lm_ops *lm, const run_request *rq, mx_error *err)
{
    (void)lm;
    return rq->logit_lens ? refuse(rq, err) : 0;
}

int logit_lens_record(trace *tr, const lm_ops *lm, const run_request *rq,
                      const model_input *in, mx_error *err)
{
    (void)tr;
    (void)lm;
    (void)in;
    return rq->logit_lens ? refuse(rq, err) : 0;
}
