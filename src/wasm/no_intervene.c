/* no_intervene.c: model/intervene/intervene.h, logit_lens.h and ablate.h
 * for the WebAssembly core. The page offers no intervention and no logit
 * lens (their options shape no page, option_list.h): asked anyway, the
 * run is refused, naming the option. */
#include "model/intervene/ablate.h"
#include "model/intervene/intervene.h"
#include "model/intervene/logit_lens.h"

#include "base/i18n.h"

/* The option of mc that asks for an intervention, or NULL. */
static const char *asked(const model_config *mc)
{
    return mc->patch                            ? "--patch"
           : mc->head_scores                    ? "--head-scores"
           : mc->n_ablate > 0 || mc->ablate_all ? "--ablate"
           : mc->logit_lens                     ? "--logit-lens"
                                                : NULL;
}

static int refuse(const model_config *mc, mx_error *err)
{
    const char *option = asked(mc);
    if (option == NULL)
        return 0;
    return err_usage(err,
                     _("%s: the page runs no interventions; run "
                       "mha-explain on the command line"),
                     option);
}

bool intervene_asked(const model_config *mc)
{
    return asked(mc) != NULL;
}

int intervene_check(const lm_ops *lm, const model_config *mc,
                    const model_input *in, mx_error *err)
{
    (void)lm;
    (void)in;
    return refuse(mc, err);
}

int intervene_record(trace *tr, const lm_ops *lm, const model_config *mc,
                     const model_input *in, mx_error *err)
{
    (void)tr;
    (void)lm;
    (void)in;
    return refuse(mc, err);
}

bool intervene_makes_table(const model_config *mc, table_id id)
{
    (void)mc;
    (void)id;
    return false;
}

int logit_lens_check(const lm_ops *lm, const model_config *mc, mx_error *err)
{
    (void)lm;
    return refuse(mc, err);
}

int logit_lens_record(trace *tr, const lm_ops *lm, const model_config *mc,
                      const model_input *in, mx_error *err)
{
    (void)tr;
    (void)lm;
    (void)in;
    return refuse(mc, err);
}

int ablate_hooks(replace_hook **out, size_t *n, const model_config *mc,
                 mx_error *err)
{
    *out = NULL;
    *n = 0;
    return refuse(mc, err);
}
