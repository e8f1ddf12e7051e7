/* model_options.c: the model a command line asks for, and the checks of a
 * run before it starts (model_options.h). */
#include "cli/model_options.h"

#include <stddef.h>

#include "model/tokenize.h"

model_config model_config_of(const options *opt)
{
    return (model_config){
        .seed = opt->seed,
        .d_model = opt->d_model,
        .d_model_given = opt->d_model_given,
        .d_out = opt->d_out,
        .heads = opt->heads,
        .ff = opt->ff,
        .qkv_bias = opt->qkv_bias,
        .causal = opt->causal,
        .scale = opt->scale,
        .tokens = opt->tokens,
        .variants = opt->variants,
        .average = opt->average,
        .tie = opt->tie,
        .threads = opt->threads,
        .weights = opt->weight_files,
        .weights_style = {opt->csv_delimiter, opt->decimal_comma},
    };
}

/* --focus WORD or WORD@POSITION names one of the sentence's tokens (not
 * those of --kv). */
static int check_focus(const model_config *mc, const char *focus,
                       const model_input *in, mx_error *err)
{
    tokenized tok = {0};
    size_t n_queries, position;
    int rc = pipeline_tokens(&tok, &n_queries, mc, in, err);
    if (rc == 0)
        rc = find_token(&position, focus, (const char *const *)tok.tokens,
                        n_queries, err);
    tokenized_free(&tok);
    return rc;
}

int check_run(double *values, const options *opt, const model_input *in,
              bool streamed, mx_error *err)
{
    const model_config mc = model_config_of(opt);
    int rc = pipeline_check(values, &mc, in, streamed, err);
    if (rc == 0 && opt->focus != NULL)
        rc = check_focus(&mc, opt->focus, in, err);
    return rc;
}
