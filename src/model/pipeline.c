/* pipeline.c: a run of the family its configuration asks for
 * (model/family.h), into a trace, and the interventions it asks for
 * (model/intervene/). */
#include "model/pipeline.h"

#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/family.h"
#include "model/intervene/ablate.h"
#include "model/intervene/intervene.h"
#include "model/intervene/logit_lens.h"

int pipeline_tokens(tokenized *tok, size_t *n_queries, const model_config *mc,
                    const model_input *in, mx_error *err)
{
    const model_family *family = family_of(mc, err);
    if (family == NULL)
        return -1;
    return family->tokens(tok, n_queries, mc, in, err);
}

/* --generate goes with a family that continues a text. */
static int check_generates(const model_family *family, const model_config *mc,
                           mx_error *err)
{
    if (mc->generate > 0 && !family->generates)
        return err_usage(err,
                         _("--generate: this program does not continue "
                           "texts with a %s model"),
                         family->model_name ? family->model_name : "lesson");
    return 0;
}

int pipeline_check(double *values, const model_config *mc,
                   const model_input *in, bool streamed, mx_error *err)
{
    *values = 0;
    const model_family *family = family_of(mc, err);
    if (family == NULL || check_generates(family, mc, err) != 0)
        return -1;
    // --repeat-random draws its text: the run is the intervention's alone
    if (mc->repeat_random == 0 &&
        family->check(values, mc, in, streamed, err) != 0)
        return -1;
    if (logit_lens_check(family->lm, mc, err) != 0)
        return -1;
    // a lesson model trains on the input again (model/lesson/lesson_lm.h)
    model_config with = *mc;
    with.trained_on = in;
    return intervene_check(family->lm, &with, in, err);
}

int pipeline_run(trace *tr, const model_config *mc, const model_input *in,
                 mx_error *err)
{
    const model_family *family = family_of(mc, err);
    if (family == NULL || check_generates(family, mc, err) != 0)
        return -1;
    // the tables carry their family: headings, the CSV and --explain read
    // its row
    tr->family = family;
    // a lesson model trains on the input again (model/lesson/lesson_lm.h)
    model_config with = *mc;
    with.trained_on = in;
    if (logit_lens_check(family->lm, mc, err) != 0 ||
        intervene_check(family->lm, &with, in, err) != 0)
        return -1;
    // the run is the ablated model's: the family applies the hooks
    model_config run = *mc;
    replace_hook *hooks = NULL;
    if (ablate_hooks(&hooks, &run.n_replace, mc, err) != 0)
        return -1;
    run.replace = hooks;
    int rc = mc->repeat_random == 0 ? family->run(tr, &run, in, err) : 0;
    if (rc == 0)
        rc = intervene_record(tr, family->lm, &with, in, err);
    if (rc == 0)
        rc = logit_lens_record(tr, family->lm, mc, in, err);
    free(hooks);
    return rc;
}

bool pipeline_makes_table(const model_config *mc, const model_input *in,
                          const char *name)
{
    mx_error err;
    const model_family *family = family_of(mc, &err);
    // a model_type no family reads: pipeline_check refuses the run
    if (family == NULL)
        return true;
    const table_id id = table_by_name(name, strlen(name));
    if (family->lm != NULL && id != TABLE_COUNT &&
        intervene_makes_table(mc, id))
        return true;
    if (family->lm != NULL && id == TABLE_LOGIT_LENS)
        return mc->logit_lens;
    return family->makes_table(mc, in, name);
}
