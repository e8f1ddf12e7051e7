/* model_options.c: the model a command line asks for, and the checks of a
 * run before it starts (model_options.h). */
#include "cli/model_options.h"

#include <stddef.h>

#include "model/tokenize.h"

model_config model_config_of(const options *opt)
{
    model_config mc = {
        .seed = opt->seed,
        .d_model = opt->d_model,
        .d_model_given = opt->given[OPT_D_MODEL],
        .d_out = opt->d_out,
        .heads = opt->heads,
        .ff = opt->ff,
        .qkv_bias = opt->qkv_bias,
        .causal = opt->causal,
        .scale = opt->scale,
        .tokens = opt->tokens,
        .rules = opt->rules,
        .unk = opt->unk,
        .variants = opt->variants,
        .average = opt->average,
        .tie = opt->tie,
        .threads = opt->threads,
        .weights = opt->weight_files,
        .weights_style = {opt->csv_delimiter, opt->decimal_comma},
        .randn_input = opt->randn_input,
        .batch = opt->batch,
        .n_draw = opt->n_draw,
        .dropout = opt->dropout,
        .attn_dropout = opt->attn_dropout,
        .model = opt->model,
        .pair = opt->pair,
        .layers = opt->layer_list,
        .n_layers = opt->n_layer_list,
        .block_layers = opt->block_layers,
        .attn_only = opt->attn_only,
        .show_heads = opt->head_list,
        .n_show_heads = opt->n_head_list,
        .logits = opt->tables != NULL &&
                  options_wants_table(opt, table_info_of(TABLE_LOGITS)->name),
        .tables = (const char *const *)opt->tables,
        .n_tables = opt->n_tables,
        .positions = opt->positions,
        .train = opt->train,
        .training = opt->training,
        .grad = opt->grad,
        .generate = opt->generate,
        .sampling = {.sample = opt->sample,
                     .temperature = opt->temperature,
                     .top_k = opt->top_k,
                     .top_p = opt->top_p},
        .stop = opt->stop,
        .kv_steps = opt->kv_steps,
        .checkpoints =
            opt->train &&
            (opt->plot != NULL || opt->html != NULL ||
             (opt->tables != NULL &&
              (options_wants_table(
                   opt, table_info_of(TABLE_ATTN_WEIGHTS_STEPS)->name) ||
               options_wants_table(
                   opt, table_info_of(TABLE_HEAD_SCORES_STEPS)->name)))),
        .ablate = opt->ablate_heads,
        .n_ablate = opt->n_ablate_heads,
        .ablate_all = opt->ablate_all,
        .ablate_mode = opt->ablate_mode,
        .metric = opt->metric,
        .patch = opt->patch,
        .patch_clean = opt->patch_clean,
        .patch_corrupt = opt->patch_corrupt,
        .patch_answer = opt->patch_answer,
        .patch_wrong = opt->patch_wrong,
        .head_scores = opt->head_scores,
        .logit_lens = opt->logit_lens,
        .repeat_random = opt->repeat_random,
    };
    for (size_t i = 0; i < opt->n_draw; i++)
        mc.draw[i] = opt->draw[i];
    return mc;
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
