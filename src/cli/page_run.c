/* page_run.c: the editor's command line of a live --html page. */
#include "cli/page_run.h"

#include <stdarg.h>
#include <stdio.h>

/* Appends one argument (printf-style) to run's fixed arguments; one that
 * does not fit makes the run not editable. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static void
add_arg(html_run *run, const char *fmt, ...)
{
    if (run->n_fixed == HTML_RUN_FIXED) {
        run->editable = false;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(run->fixed[run->n_fixed], HTML_RUN_ARG, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= HTML_RUN_ARG)
        run->editable = false; /* too long to keep whole */
    else
        run->n_fixed++;
}

html_run page_run_of(const options *opt, const model_input *in)
{
    html_run run = {
        .sentence = in->sentence != NULL ? in->sentence : "",
        .kv = in->kv,
        .seed = opt->seed,
        .d_model = opt->d_model,
        .d_out = opt->d_out,
        .heads = opt->heads,
        .variants = opt->variants,
        .causal = opt->causal,
        .scale = opt->scale,
        .qkv_bias = opt->qkv_bias,
        .chars = opt->tokens == TOKENS_CHARS,
        .train = opt->train,
        .train_steps = opt->training.steps,
        .lr = opt->training.lr,
        .lr_given = opt->lr_given,
        .adam = opt->training.optimizer == OPTIMIZER_ADAM,
        .positions = opt->positions,
        .grad = opt->grad,
        .queries_first = opt->training.qkv_order == QKV_ORDER_QKV,
        .layers = opt->block_layers,
        .editable = in->sentence != NULL && in->embeddings == NULL &&
                    opt->weights == NULL && opt->model == NULL &&
                    opt->tables == NULL && opt->n_draw == 0 &&
                    opt->corpus == NULL, /* the page reads no files */
    };
    static const char *const scales[] = {
        [SCALE_TABLE] = "table", [SCALE_ROW] = "row", [SCALE_FIXED] = "fixed"};
    if (opt->precision_given)
        add_arg(&run, "--precision=%d", opt->precision);
    if (opt->full)
        add_arg(&run, "--full");
    if (opt->plot_look.cmap != NULL)
        add_arg(&run, "--cmap=%s", opt->plot_look.cmap);
    if (opt->color_scale != SCALE_TABLE)
        add_arg(&run, "--color-scale=%s", scales[opt->color_scale]);
    if (!opt->plot_look.numbers)
        add_arg(&run, "--numbers=off");
    if (opt->average)
        add_arg(&run, "--average");
    if (opt->tie)
        add_arg(&run, "--tie");
    if (opt->ff != 0)
        add_arg(&run, "--ff=%zu", opt->ff);
    if (opt->dropout > 0)
        add_arg(&run, "--dropout=%.17g", opt->dropout);
    if (opt->attn_dropout > 0)
        add_arg(&run, "--attn-dropout=%.17g", opt->attn_dropout);
    if (opt->randn_input)
        add_arg(&run, "--randn-input");
    if (opt->batch > 1)
        add_arg(&run, "--batch=%zu", opt->batch);
    // how words are made: the page's runs cut them the same way
    static const char *const punct[] = {
        [PUNCT_KEEP] = "keep", [PUNCT_SPLIT] = "split", [PUNCT_DROP] = "drop"};
    if (opt->rules.lower)
        add_arg(&run, "--lower");
    if (opt->rules.punct != PUNCT_KEEP)
        add_arg(&run, "--punct=%s", punct[opt->rules.punct]);
    if (opt->unk)
        add_arg(&run, "--unk");
    return run;
}
