/* gpt2_trace.c: a GPT-2 checkpoint's run into the trace (gpt2_trace.h). */
#include "model/gpt2/gpt2_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/text.h"
#include "model/checkpoint_lm.h"
#include "model/checkpoint_record.h"
#include "model/gpt2/gpt2.h"
#include "model/gpt2/gpt2_generate.h"
#include "model/tokenizers/checkpoint_tokenizer.h"
#include "model/next_tokens.h"
#include "model/tied_head.h"
#include "numerics/workers.h"

/* ---- the folder, the text --------------------------------------------------- */

/* What a run reads: the checkpoint, its tokenizer, and the text and
 * what is shown (checkpoint_run.h). */
typedef struct {
    checkpoint_run run;
    gpt2_model model;
    checkpoint_tokenizer *tokenizer;
} gpt2_trace_run_state;

static void run_free(gpt2_trace_run_state *r)
{
    gpt2_close(&r->model);
    checkpoint_tokenizer_free(r->tokenizer);
    checkpoint_run_free(&r->run);
}

/* An id's label, as the tokenizer ctx writes it (checkpoint_label). */
static void label_of(const void *ctx, int32_t id, char *buf, size_t size)
{
    checkpoint_tokenizer_label(buf, size, ctx, id);
}

/* A parameter --tables names, as the checkpoint has it
 * (checkpoint_find_param): a weight (rows x cols) labelled in0.. x out0..
 * (Conv1D's in x out), wte and wpe id0.. and pos0.. x dim0.., a bias or
 * a LayerNorm's weight one row; wte and wpe make the input, ln_f is after
 * the layers. lm_head.weight (id0.. x dim0.., nn.Linear's out x in), after
 * the layers too, stands outside the prefix and only in a checkpoint with
 * a head of its own (model/tied_head.h): a tied one has none. */
static bool find_param(const void *ctx, const char *name, checkpoint_param *p,
                       const safetensors **in, const st_tensor **st)
{
    const gpt2_trace_run_state *r = ctx;
    int layer;
    if (!gpt2_param_name(name, &layer))
        return false;
    const bool head = strcmp(name, TIED_HEAD_NAME) == 0;
    char full[128];
    text_join(full, sizeof full, head ? "" : r->model.prefix, name);
    *in = &r->model.st;
    *st = safetensors_find(*in, full);
    const char *rows = "in", *cols = "out";
    if (strncmp(name, "wte", 3) == 0 || strncmp(name, "wpe", 3) == 0 || head) {
        rows = name[1] == 'p' ? "pos" : "id";
        cols = "dim";
    }
    *p = (checkpoint_param){
        name, layer,
        strncmp(name, "ln_f", 4) == 0 || head ? VARIANT_MODEL : VARIANT_INPUT,
        rows, cols};
    return true;
}

/* The checkpoint, its tokenizer, and --tables' parameters in it. */
static int open_model(gpt2_trace_run_state *r, const run_request *rq,
                      mx_error *err)
{
    if (gpt2_open(&r->model, rq->checkpoint, err) != 0 ||
        checkpoint_run_tokenizer(&r->tokenizer, rq, r->model.cfg.vocab_size,
                                 err) != 0)
        return -1;
    r->run.find_param = find_param;
    r->run.find_ctx = r;
    r->run.tied_embed = r->model.cfg.tied ? "wte.weight" : NULL;
    return checkpoint_run_params_present(&r->run, rq, err);
}

/* The text's ids and labels, the layers and heads shown. */
static int open_text(gpt2_trace_run_state *r, const run_request *rq,
                     const model_input *in, mx_error *err)
{
    const gpt2_config *c = &r->model.cfg;
    checkpoint_run *run = &r->run;
    run->label = label_of;
    run->label_ctx = r->tokenizer;
    if (checkpoint_run_shown(run, c->n_layer, c->n_head, rq, err) != 0 ||
        checkpoint_tokenizer_encode(&run->ids, &run->T, r->tokenizer,
                                    in->sentence, in->len, c->n_positions,
                                    err) != 0)
        return -1;
    if (run->T == 0)
        return err_input(err, _("the text has no tokens"));
    size_t given = 0;
    if (run->T > c->n_positions)
        return checkpoint_tokenizer_count(&given, r->tokenizer, in->sentence,
                                          in->len, err) != 0
                   ? -1
                   : checkpoint_lm_too_long(err, given, c->n_positions,
                                            GPT2_POSITIONS_KEY);
    return checkpoint_run_labels(run, err);
}

static int run_open(gpt2_trace_run_state *r, const run_request *rq,
                    const model_input *in, mx_error *err)
{
    *r = (gpt2_trace_run_state){0};
    if (checkpoint_run_refuse(in, err) != 0)
        return -1;
    if (in->pair != NULL)
        return err_usage(err, _("--pair: a second text is for a BERT "
                                "checkpoint; this one is GPT-2's"));
    if (open_model(r, rq, err) != 0 || open_text(r, rq, in, err) != 0) {
        run_free(r);
        return -1;
    }
    return 0;
}

/* About the values of the whole trace: per shown layer and head, its six
 * tables; per shown layer, seven T x D tables and ffn_hidden; the rest,
 * the logits (T x V) among them, shown or not. */
static double run_values(const gpt2_trace_run_state *r, const run_request *rq)
{
    const gpt2_config *c = &r->model.cfg;
    const double T = (double)r->run.T, D = (double)c->n_embd,
                 hd = D / (double)c->n_head;
    const double layers = (double)checkpoint_run_layers_shown(&r->run),
                 heads = (double)checkpoint_run_heads_shown(&r->run);
    double v = layers * (heads * (4 * T * hd + 2 * T * T) + 7 * T * D +
                         T * (double)c->n_inner);
    // the logits are always computed (next_tokens needs them), with one
    // row of their probabilities; a second copy when they are shown
    const double V = (double)c->vocab_size;
    v += 3 * T * D + T * NEXT_TOKENS_K + T * V + V;
    if (rq->logits)
        v += T * V;
    return v + checkpoint_run_params_values(&r->run, rq);
}

/* The steps' tables of --kv-steps fit MAX_STEP_VALUES (generate.h),
 * checked before anything is written; else an error saying how to
 * narrow them. */
static int steps_fit(const gpt2_trace_run_state *r, const run_request *rq,
                     mx_error *err)
{
    const gpt2_config *c = &r->model.cfg;
    const generate_steps_size steps = {
        .T = r->run.T,
        .n = rq->generate,
        .context = c->n_positions,
        .layers = checkpoint_run_layers_shown(&r->run),
        .heads = checkpoint_run_heads_shown(&r->run),
        .hd = c->n_embd / c->n_head,
    };
    return generate_steps_fit(&steps, rq, err);
}

int gpt2_trace_check(double *values, const run_request *rq,
                     const model_input *in, bool streamed, mx_error *err)
{
    (void)streamed;
    gpt2_trace_run_state r;
    *values = 0;
    if (run_open(&r, rq, in, err) != 0)
        return -1;
    *values = run_values(&r, rq);
    const int rc =
        checkpoint_run_fits(*values, err) != 0 || steps_fit(&r, rq, err) != 0
            ? -1
            : 0;
    run_free(&r);
    return rc;
}

int gpt2_trace_tokens(tokenized *tok, size_t *n_queries, const run_request *rq,
                      const model_input *in, mx_error *err)
{
    gpt2_trace_run_state r;
    if (run_open(&r, rq, in, err) != 0)
        return -1;
    const int rc = checkpoint_run_tokens(tok, n_queries, &r.run, err);
    run_free(&r);
    return rc;
}

bool gpt2_trace_makes_table(const run_request *rq, const model_input *in,
                            const table_pick *p)
{
    (void)in;
    return checkpoint_makes_table(
        rq, p, gpt2_param_name,
        CHECKPOINT_INPUT_TABLES | CHECKPOINT_HEAD_TABLES |
            CHECKPOINT_LAYER_TABLES | CHECKPOINT_MODEL_TABLES |
            table_bit(TABLE_GENERATED) | table_bit(TABLE_GENERATED_TOP) |
            table_bit(TABLE_KV_CACHE_SIZE) | GENERATE_MAP_TABLES |
            GENERATE_CLEAN_TABLES);
}

/* ---- the tables --------------------------------------------------------------- */

int gpt2_trace_run(trace *tr, const run_request *rq, const model_input *in,
                   mx_error *err)
{
    gpt2_trace_run_state r;
    if (run_open(&r, rq, in, err) != 0)
        return -1;
    workers *pool;
    if (steps_fit(&r, rq, err) != 0 ||
        checkpoint_run_pool(&pool, run_values(&r, rq), rq, err) != 0) {
        run_free(&r);
        return -1;
    }
    const gpt2_config *c = &r.model.cfg;
    tr->model = (trace_model){
        .checkpoint = true,
        .d_model = c->n_embd,
        .d_out = c->n_embd,
        .heads = c->n_head,
        .ff = c->n_inner,
        .layers = c->n_layer,
        .causal = true,
        .scale = c->scale,
        .own_head = !c->tied,
        .qkv_bias = true,
    };
    checkpoint_recorder rec = {
        .tr = tr,
        .rq = rq,
        .run = &r.run,
        .vocab_size = c->vocab_size,
        .layer_prefix = "h.",
        .layer_output = TABLE_HIDDEN,
    };
    int rc = checkpoint_record_init(&rec, err);
    if (rc == 0)
        rc = checkpoint_record_ids(&rec, err);
    if (rc == 0)
        rc = checkpoint_record_params(&rec, err);
    // --generate: the prompt's forward fills the generation's cache and
    // the first step takes its last row, unless activations are replaced
    // (--ablate: generation runs its own prompt's step with the hooks,
    // and the clean model's beside it)
    gpt2_generator g = {0};
    const bool prefill = rq->generate > 0 && rq->n_replace == 0;
    if (rc == 0 && prefill)
        rc = gpt2_generator_init(&g, &r.model, r.tokenizer, pool,
                                 r.run.T + rq->generate, err);
    if (rc == 0) {
        matrix out = {0};
        const forward_hooks hooks = {.replace = rq->replace,
                                     .n_replace = rq->n_replace,
                                     .record = checkpoint_record,
                                     .ctx = &rec};
        const gpt2_run run = {&hooks, true, pool, prefill ? &g.cache : NULL};
        rc = gpt2_forward(&out, &r.model, r.run.ids, r.run.T, &run, err);
        if (rc == 0 && prefill)
            rc = gpt2_generator_prefilled(&g, &out, err);
        matrix_free(&out);
    }
    if (rc == 0 && rq->generate > 0)
        rc = prefill
                 ? gpt2_generate_with(tr, &g, r.run.ids, r.run.T, rq, NULL, err)
                 : gpt2_generate_into(tr, &r.model, r.tokenizer, r.run.ids,
                                      r.run.T, rq, pool, err);
    gpt2_generator_free(&g);
    if (rc == 0)
        rc = trace_flush(tr, err);
    checkpoint_record_free(&rec);
    workers_free(pool);
    run_free(&r);
    return rc;
}
