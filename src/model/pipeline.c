/* pipeline.c: a run of the family its configuration asks for
 * (model/family.h), into a trace. */
#include "model/pipeline.h"

#include "base/i18n.h"
#include "model/family.h"

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
    return family->check(values, mc, in, streamed, err);
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
    return family->run(tr, mc, in, err);
}

bool pipeline_makes_table(const model_config *mc, const model_input *in,
                          const char *name)
{
    mx_error err;
    const model_family *family = family_of(mc, &err);
    // a model_type no family reads: pipeline_check refuses the run
    return family == NULL || family->makes_table(mc, in, name);
}
