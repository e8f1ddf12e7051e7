/* settings.c: how a run renders, from its options and the terminal. */
#include "cli/settings.h"

#include <unistd.h>

#include "cli/model_options.h"
#include "model/lesson/weights.h"
#include "io/terminal.h"

bool use_color(const options *opt)
{
    if (opt->color != COLOR_AUTO)
        return opt->color == COLOR_ALWAYS;
    return terminal_color();
}

size_t screen_width(const options *opt)
{
    if (opt->given[OPT_WIDTH])
        return opt->width;
    return terminal_columns(MAX_SCREEN_WIDTH);
}

bool use_grid(const options *opt, const model_input *in)
{
    if (opt->layout != LAYOUT_AUTO)
        return opt->layout == LAYOUT_GRID;
    if (!isatty(STDOUT_FILENO))
        return false;
    /* a run that fails the check fails again, with its message, when it
     * runs */
    double values = 0;
    mx_error ignored = {0};
    return check_run(&values, opt, in, true, &ignored) != 0 ||
           values <= (double)MAX_TRACE_VALUES;
}

bool keeps_all(const options *opt, bool grid)
{
    // a generation's heads step by step (attn_weights_generated) are made
    // from the prompt's weights and the steps' at the end
    const bool steps_joined =
        opt->kv_steps && opt->tables != NULL &&
        options_wants_table(opt,
                            table_info_of(TABLE_ATTN_WEIGHTS_GENERATED)->name);
    return opt->html != NULL || opt->plot != NULL || steps_joined ||
           (opt->format == FORMAT_TEXT && !opt->torch_style &&
            opt->focus == NULL && grid);
}

/* Tokens of the --kv sentence in the trace. */
static size_t kv_rows(const trace *tr)
{
    const table *t = trace_find_input(tr, TABLE_KV_INPUTS);
    return t != NULL ? t->values.rows : 0;
}

/* What the --weights folder's model.json says of its model's training
 * (explain.h's trained). */
static explain_trained trained_record(const options *opt)
{
    explain_trained r = {0};
    if (opt->weight_files == NULL || !opt->weight_files->manifest.record)
        return r;
    const trained_manifest *m = &opt->weight_files->manifest;
    r.record = true;
    r.steps = m->steps;
    r.steps_before = m->steps_before;
    r.adam = m->adam;
    r.lr = m->lr;
    r.corpus = m->corpus;
    return r;
}

explain_context explain_for(const options *opt, const trace *tr)
{
    const table *inputs = trace_find_input(tr, TABLE_INPUTS);
    const table *vocab = trace_find_input(tr, TABLE_VOCAB);
    // a trained run (--train): each variant has its own inputs
    const table *tokens = trace_find_input(tr, TABLE_TOKENS);
    // the model's sizes as the run made them (trace.h)
    const trace_model *m = &tr->model;
    explain_context c = {
        .checkpoint = m->checkpoint,
        .own_head = m->own_head,
        .tokens = inputs   ? inputs->values.rows
                  : tokens ? tokens->values.rows
                           : 0,
        .vocab = vocab ? vocab->values.rows : 0,
        .d_model = m->d_model,
        .d_out = m->d_out,
        .heads = m->heads,
        .seed = opt->seed,
        .causal = m->causal,
        .scale = m->scale,
        .qkv_bias = m->qkv_bias,
        .layers = m->layers,
        .attn_only = m->attn_only,
        .embeddings_given = opt->embeddings != NULL,
        .chars = opt->tokens == TOKENS_CHARS,
        .rules = opt->rules,
        .unk = opt->unk,
        .kv_tokens = kv_rows(tr),
        .width = screen_width(opt),
        .ff = m->ff,
        .randn_input = opt->randn_input,
        .batch = opt->batch,
        .draw = opt->draw,
        .n_draw = opt->n_draw,
        .dropout = m->dropout,
        .attn_dropout = m->attn_dropout,
        .train = opt->train,
        .steps = opt->training.steps,
        .lr = opt->training.lr,
        .adam = opt->training.optimizer == OPTIMIZER_ADAM,
        .grad = opt->grad,
        .positions = m->positions,
        .corpus = opt->corpus != NULL,
        .reloaded = opt->train && opt->weights != NULL,
        .read_back = opt->weights != NULL,
        .trained = trained_record(opt),
        .seed_set = opt->given[OPT_SEED],
        // a lesson run without an lm_head ablates in its own pass
        .ablated = !m->checkpoint && !opt->train ? opt->n_ablate_heads : 0,
        .repeat_random = opt->repeat_random,
        .generated_ablated = opt->generate > 0 && opt->n_ablate_heads > 0,
        .how = {.sample = opt->sample,
                .temperature = opt->temperature,
                .top_k = opt->top_k,
                .top_p = opt->top_p},
    };
    return c;
}

text_style text_style_of(const options *opt, const trace *tr,
                         const explain_context *ctx, bool grid)
{
    const text_style style = {
        .precision = opt->precision,
        .full = opt->full,
        .color = use_color(opt),
        .before = opt->explain ? explain_table_before : NULL,
        .before_ctx = ctx,
        .width = screen_width(opt),
        .truecolor = terminal_truecolor(),
        .scale = opt->color_scale,
        .trace = tr,
        .grid = grid,
        .page_breaks = opt->step,
    };
    return style;
}
