/* model_options.c: the model a command line asks for, and the checks of a
 * run before it starts (model_options.h). */
#include "cli/model_options.h"

#include <stddef.h>

#include "base/i18n.h"
#include "base/limits.h"
#include "cli/run_errors.h"
#include "model/lesson/weights.h"
#include "model/pipeline.h"
#include "model/tokenize.h"

/* How --weights' files are written: as the folder's model.json says
 * (the --csv-dir run that saved them), else as the options say. */
static csv_style weights_style_of(const options *opt)
{
    const weights_files *w = opt->weight_files;
    if (w != NULL && w->manifest.has_csv)
        return w->manifest.csv;
    return (csv_style){opt->csv_delimiter, opt->decimal_comma};
}

run_request run_request_of(const options *opt)
{
    run_request rq = {
        .seed = opt->seed,
        .model.d_model = opt->d_model,
        .d_model_given = opt->given[OPT_D_MODEL],
        .model.d_out = opt->d_out,
        .model.heads = opt->heads,
        .model.ff = opt->ff,
        .model.qkv_bias = opt->qkv_bias,
        .model.causal = opt->causal,
        .model.scale = opt->scale,
        .tokens = opt->tokens,
        .rules = opt->rules,
        .unk = opt->unk,
        .variants = opt->variants,
        .average = opt->average,
        .tie = opt->tie,
        .threads = opt->threads,
        .weights = opt->weight_files,
        .weights_style = weights_style_of(opt),
        .randn_input = opt->randn_input,
        .batch = opt->batch,
        .n_draw = opt->n_draw,
        .model.dropout = opt->dropout,
        .model.attn_dropout = opt->attn_dropout,
        .checkpoint = opt->model,
        .layers = opt->layer_list,
        .n_layers = opt->n_layer_list,
        .model.block_layers = opt->block_layers,
        .model.attn_only = opt->attn_only,
        .show_heads = opt->head_list,
        .n_show_heads = opt->n_head_list,
        .logits = opt->tables != NULL &&
                  options_wants_table(opt, table_info_of(TABLE_LOGITS)->name),
        .tables = opt->tables_read.picks,
        .n_tables = opt->n_tables,
        .model.positions = opt->positions,
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
        .page_steps = opt->html != NULL,
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
        rq.draw[i] = opt->draw[i];
    return rq;
}

/* --focus WORD or WORD@POSITION names one of the sentence's tokens (not
 * those of --kv). */
static int check_focus(const run_request *rq, const char *focus,
                       const model_input *in, mx_error *err)
{
    tokenized tok = {0};
    size_t n_queries, position;
    int rc = pipeline_tokens(&tok, &n_queries, rq, in, err);
    if (rc == 0)
        rc = find_token(&position, focus, (const char *const *)tok.tokens,
                        n_queries, err);
    tokenized_free(&tok);
    return rc;
}

/* --html: the page of a run of about `values` values fits MAX_PAGE_MB
 * (the page's data is mostly the run's tables, each float as base64). */
static int check_page_size(double values, mx_error *err)
{
    const double mb = values * PAGE_BYTES_PER_VALUE / 1e6;
    if (mb <= MAX_PAGE_MB)
        return 0;
    return err_input(err,
                     _("--html: the page would be about %.0f MB, more than "
                       "the %d MB a browser opens well: use fewer words, "
                       "one --variant or fewer --heads"),
                     mb, MAX_PAGE_MB);
}

int check_run(double *values, const options *opt, const model_input *in,
              bool streamed, mx_error *err)
{
    const run_request rq = run_request_of(opt);
    int rc = pipeline_check(values, &rq, in, streamed, err);
    // a checkpoint's values count its logits and every layer's hidden
    // states, which its page does not carry: html_add checks that page as
    // it is written
    if (rc == 0 && opt->html != NULL && opt->model == NULL)
        rc = check_page_size(*values, err);
    if (rc == 0 && opt->focus != NULL)
        rc = check_focus(&rq, opt->focus, in, err);
    if (rc != 0) // a mistake the model told in numbers (run_errors.h)
        run_error_message(err, opt);
    return rc;
}
