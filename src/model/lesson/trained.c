/* trained.c: each variant's trained notebook (trained.h). */
#include "model/lesson/trained.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/lesson/lesson_generate.h"
#include "model/lesson/score_steps.h"
#include "model/lesson/weights.h"
#include "model/lesson/variants.h"
#include "model/next_tokens.h"

/* ---- a trained variant ------------------------------------------------- */

/* A new table of the whole model (the embedding, lm_head, the inputs,
 * the logits, the losses), not of one block of a stack (stack.h). */
static table *model_table(trace *tr, const table_key *key, const labels *rows,
                          const labels *cols, mx_error *err)
{
    table *t = trace_new(tr, key, rows, cols, err);
    if (t != NULL)
        t->stacked = false;
    return t;
}

/* A table (rows x cols labels) of variant v, a copy of m. */
static int record_copy(trace *tr, variant_id v, table_id id, bool grad,
                       const labels *rows, const labels *cols, const matrix *m,
                       mx_error *err)
{
    const table_key key = {v, 0, NO_HEAD, id, grad};
    table *t = model_table(tr, &key, rows, cols, err);
    if (t == NULL)
        return -1;
    memcpy(t->values.v, m->v, m->rows * m->cols * sizeof(float));
    return 0;
}

/* The tables of model m (or of its gradients): embedding.weight,
 * pos_embedding.weight, the module's parameters, lm_head.weight. */
static int record_model(trace *tr, variant_id v, bool grad,
                        const train_model *m, const model_dims *dims,
                        const trained_labels *lab, mx_error *err)
{
    const labels *pos =
        m->positions != NULL
            ? trace_index_labels(tr, "pos", m->positions->rows, err)
            : NULL;
    const labels *width = trace_index_labels(tr, "dim", m->lm_head->cols, err);
    if (width == NULL || (m->positions != NULL && pos == NULL))
        return -1;
    if (record_copy(tr, v, TABLE_EMBEDDING, grad, lab->vocab, lab->dims,
                    m->embedding, err) != 0 ||
        (m->positions != NULL &&
         record_copy(tr, v, TABLE_POS_EMBEDDING, grad, pos, lab->dims,
                     m->positions, err) != 0))
        return -1;
    param_recorder rec = {tr, v, err, grad};
    if (model_params_each(variant_by_id(v)->bit, dims, m->module, record_param,
                          &rec) != 0)
        return -1;
    return record_copy(tr, v, TABLE_LM_HEAD, grad, lab->vocab, width,
                       m->lm_head, err);
}

/* inputs (T, D) = emb(ids) + pos(arange(T)), as the training computes
 * them, into a new table of variant v; *x points at its values. */
static int record_inputs(const matrix **x, trace *tr, variant_id v,
                         const train_model *m, const size_t *ids,
                         const trained_labels *lab, const forward_hooks *hk,
                         mx_error *err)
{
    const table_key key = {v, 0, NO_HEAD, TABLE_INPUTS, false};
    table *t = model_table(tr, &key, lab->seq->tokens, lab->dims, err);
    if (t == NULL)
        return -1;
    train_inputs(&t->values, m, ids);
    *x = &t->values;
    return hook_point(hk, &key, &t->values, err);
}

/* ---- checkpoints: the heads' weights as the training goes ------------- */

/* What the training's hook (train.h) records for attn_weights_steps: the
 * shown sentence's attn_weights of every head (of every block of a
 * stack) at the chosen steps, a forward pass of the module as it is
 * then, into a trace of its own. */
typedef struct {
    variant_id variant;
    const variant_row *row;
    const train_model *model; /* the model being trained */
    const attention_config *cfg;
    const size_t *ids; /* the shown sentence (T) */
    const sequence_labels *seq;
    size_t step[TRAIN_CHECKPOINTS]; /* the chosen steps, rising */
    size_t n, done;                 /* chosen, recorded */
    size_t layers, heads, T, S;     /* known at the first checkpoint */
    float *values;                  /* (n·layers·heads·T, S), owned:
                                       step, then block, then head */
} checkpoints;

/* K = min(N + 1, TRAIN_CHECKPOINTS) steps from 0 to N, evenly spaced:
 * step k is floor(k·N / (K - 1)). */
static void checkpoints_choose(checkpoints *c, size_t N)
{
    c->n = N + 1 < TRAIN_CHECKPOINTS ? N + 1 : TRAIN_CHECKPOINTS;
    for (size_t k = 0; k < c->n; k++)
        c->step[k] = c->n > 1 ? k * N / (c->n - 1) : 0;
}

/* The weights of head h of block l in t, a forward pass's trace. */
static const table *checkpoint_weights(const trace *t, variant_id v, size_t l,
                                       size_t h)
{
    const table_key key = {v, (int)l, (int)h, TABLE_ATTN_WEIGHTS, false};
    return trace_find(t, &key);
}

/* The module's heads' weights now, as checkpoint c->done. */
static int checkpoint_record(checkpoints *c, mx_error *err)
{
    const size_t T = c->seq->tokens->n, D = c->model->embedding->cols;
    matrix x = {0};
    trace pass_trace;
    trace_init(&pass_trace);
    int rc = matrix_alloc(&x, T, D, N_("the training's working tables"), err);
    if (rc == 0) {
        train_inputs(&x, c->model, c->ids);
        const attention_input in = {&x, &x};
        rc = c->row->forward(&pass_trace, c->model->module, c->cfg, &in, c->seq,
                             err);
    }
    const table *w0 =
        rc == 0 ? checkpoint_weights(&pass_trace, c->variant, 0, 0) : NULL;
    if (w0 != NULL && c->values == NULL) { /* the first checkpoint: shapes */
        c->T = w0->values.rows;
        c->S = w0->values.cols;
        while (checkpoint_weights(&pass_trace, c->variant, 0, c->heads))
            c->heads++;
        while (checkpoint_weights(&pass_trace, c->variant, c->layers, 0))
            c->layers++;
        c->values =
            calloc(c->n * c->layers * c->heads * c->T * c->S, sizeof(float));
        if (c->values == NULL)
            rc = err_nomem(err, _("the training's working tables"));
    }
    for (size_t l = 0; rc == 0 && w0 != NULL && l < c->layers; l++)
        for (size_t h = 0; h < c->heads; h++) {
            const table *w = checkpoint_weights(&pass_trace, c->variant, l, h);
            const size_t at = (c->done * c->layers + l) * c->heads + h;
            if (w != NULL)
                memcpy(c->values + at * c->T * c->S, w->values.v,
                       c->T * c->S * sizeof(float));
        }
    trace_free(&pass_trace);
    matrix_free(&x);
    c->done += rc == 0;
    return rc;
}

/* The training's hook: records the chosen steps. */
static int checkpoint_hook(void *ctx, size_t step, mx_error *err)
{
    checkpoints *c = ctx;
    return c->done < c->n && c->step[c->done] == step
               ? checkpoint_record(c, err)
               : 0;
}

/* What the training's hook looks at before each step: the checkpoints
 * and the heads' scores (or NULL) and the run's watch (or NULL). */
typedef struct {
    checkpoints *ck;
    score_steps *scores;
    const train_watch *watch;
    variant_id variant;
    size_t steps;
    const float *losses; /* each step's loss, as the training makes it */
} step_look;

/* The training's hook: tells the watch, then records the checkpoint. */
static int step_hook(void *ctx, size_t step, mx_error *err)
{
    const step_look *look = ctx;
    if (look->watch != NULL)
        look->watch->fn(look->watch->ctx, look->variant, step, look->steps,
                        step > 0 ? look->losses[step - 1] : NAN);
    if (look->scores != NULL && score_steps_look(look->scores, step, err) != 0)
        return -1;
    return look->ck != NULL ? checkpoint_hook(look->ck, step, err) : 0;
}

/* attn_weights_steps (n·heads·T, S) of variant v, one table per block
 * (its layer), rows "step<n>/head<h>/Q:<word>", columns the keys. */
static int record_checkpoints(trace *tr, const checkpoints *c, mx_error *err)
{
    const size_t rows = c->n * c->heads * c->T;
    if (rows == 0)
        return 0;
    char **names = calloc(rows, sizeof *names);
    int rc = names == NULL ? err_nomem(err, _("the trace")) : 0;
    for (size_t r = 0; r < rows && rc == 0; r++) {
        const size_t t = r % c->T, h = r / c->T % c->heads,
                     k = r / c->T / c->heads;
        const char *q = c->seq->queries->s[t];
        const size_t size = strlen(q) + 64;
        names[r] = malloc(size);
        if (names[r] == NULL)
            rc = err_nomem(err, _("the trace"));
        else
            snprintf(names[r], size, "step%zu/head%zu/%s", c->step[k], h, q);
    }
    const labels *row_labels =
        rc == 0
            ? trace_word_labels(tr, "", (const char *const *)names, rows, err)
            : NULL;
    for (size_t r = 0; names != NULL && r < rows; r++)
        free(names[r]);
    free(names);
    if (row_labels == NULL)
        return -1;
    const size_t head = c->T * c->S;
    for (size_t l = 0; l < c->layers; l++) {
        const table_key key = {c->variant, (int)l, NO_HEAD,
                               TABLE_ATTN_WEIGHTS_STEPS, false};
        table *t = trace_new(tr, &key, row_labels, c->seq->keys, err);
        if (t == NULL)
            return -1;
        // step k's heads of block l
        for (size_t k = 0; k < c->n; k++)
            memcpy(t->values.v + k * c->heads * head,
                   c->values + (k * c->layers + l) * c->heads * head,
                   c->heads * head * sizeof(float));
    }
    return 0;
}

/* Every gradient gets +0 added: -0 becomes +0, as when loss.backward()
 * adds the gradient to the zeros opt.zero_grad() left. */
static void grads_after_zero_grad(const train_model *g, const model_dims *dims,
                                  variant_id v);

/* A param_fn: adds +0 to a present parameter's values. */
static int add_zero(const param_info *p, void *ctx)
{
    (void)ctx;
    if (p->present && p->value != NULL)
        for (size_t i = 0; i < p->value->rows * p->value->cols; i++)
            p->value->v[i] += 0.0f;
    return 0;
}

static void matrix_add_zero(matrix *m)
{
    if (m != NULL)
        for (size_t i = 0; i < m->rows * m->cols; i++)
            m->v[i] += 0.0f;
}

static void grads_after_zero_grad(const train_model *g, const model_dims *dims,
                                  variant_id v)
{
    matrix_add_zero(g->embedding);
    matrix_add_zero(g->positions);
    matrix_add_zero(g->lm_head);
    model_params_each(variant_by_id(v)->bit, dims, g->module, add_zero, NULL);
}

/* Where the intermediates' gradients go (train_shown): tables of the
 * trace, labelled as the forward pass labels the tables. */
typedef struct {
    trace *tr;
    variant_id variant;
    const trained_labels *lab;
    mx_error *err;
} grad_recorder;

static int record_grad(void *ctx, table_id id, int layer, int head,
                       const matrix *g)
{
    const grad_recorder *r = ctx;
    const sequence_labels *seq = r->lab->seq;
    const labels *rows = seq->tokens, *cols = NULL;
    switch (id) {
    case TABLE_QUERIES:
        rows = seq->queries;
        break;
    case TABLE_KEYS:
        rows = seq->keys;
        break;
    case TABLE_VALUES:
        rows = seq->values;
        break;
    case TABLE_ATTN_SCORES:
    case TABLE_ATTN_WEIGHTS:
        rows = seq->queries;
        cols = seq->keys;
        break;
    case TABLE_LOGITS:
        cols = r->lab->vocab;
        break;
    default:
        break;
    }
    if (cols == NULL)
        cols = trace_index_labels(r->tr, "dim", g->cols, r->err);
    if (cols == NULL)
        return -1;
    const table_key key = {r->variant, layer, head, id, true};
    table *t = trace_new(r->tr, &key, rows, cols, r->err);
    if (t == NULL)
        return -1;
    // the inputs' and the logits' gradients are the model's, not a block's
    if (id == TABLE_INPUTS || id == TABLE_LOGITS)
        t->stacked = false;
    memcpy(t->values.v, g->v, g->rows * g->cols * sizeof(float));
    return 0;
}

/* Whether the last loss, the shown sentence's at the final parameters,
 * is also step N's: the training's only sentence is the shown one. */
static bool shown_is_trained(const train_data *data,
                             const train_sentence *shown)
{
    const train_sentence *only = data->n == 1 ? &data->s[0] : NULL;
    return only != NULL && only->n == shown->n &&
           memcmp(only->ids, shown->ids, shown->n * sizeof *only->ids) == 0;
}

/* The loss table's row labels: step0 .. stepN, or, when the shown
 * sentence is not what the steps trained on (--corpus), step0 ..
 * step(N-1) and LOSS_SHOWN_ROW. */
static const labels *loss_rows(trace *tr, size_t steps, bool shown,
                               mx_error *err)
{
    if (!shown)
        return trace_index_labels(tr, "step", steps + 1, err);
    const size_t size = 32;
    char *text = malloc(steps * size + 1);
    const char **names = malloc((steps + 1) * sizeof *names);
    const labels *rows = NULL;
    if (text == NULL || names == NULL) {
        err_nomem(err, _("the trace"));
    } else {
        for (size_t i = 0; i < steps; i++) {
            snprintf(text + i * size, size, "step%zu", i);
            names[i] = text + i * size;
        }
        names[steps] = LOSS_SHOWN_ROW;
        rows = trace_new_word_labels(tr, "", names, steps + 1, err);
    }
    free(names);
    free(text);
    return rows;
}

/* The loss table (N + 1, 1): the loss before each step, then the shown
 * sentence's at the final parameters (its row named by loss_rows). */
static int record_losses(trace *tr, variant_id v, const float *losses,
                         size_t steps, const train_data *data,
                         const train_sentence *shown, mx_error *err)
{
    const labels *rows =
        loss_rows(tr, steps, !shown_is_trained(data, shown), err);
    const labels *col = trace_literal_label(tr, "loss", err);
    if (rows == NULL || col == NULL)
        return -1;
    const table_key key = {v, 0, NO_HEAD, TABLE_LOSS, false};
    table *t = model_table(tr, &key, rows, col, err);
    if (t == NULL)
        return -1;
    memcpy(t->values.v, losses, (steps + 1) * sizeof(float));
    return 0;
}

/* The trained module's forward pass on the sentence, as without
 * --train; with --average (in a module of several heads) the heads'
 * mean, attn_weights_avg, after it. */
static int shown_forward(trace *tr, variant_id id, const void *module,
                         const attention_config *cfg, const attention_input *in,
                         bool average, const sequence_labels *seq,
                         mx_error *err)
{
    const variant_row *row = variant_row_of(id);
    attention_config with_sum = *cfg;
    mean_stream sum = {0};
    const bool avg =
        average && (variant_by_id(id)->tables & TABLE_BIT(ATTN_WEIGHTS_AVG));
    int rc = 0;
    if (avg) {
        rc =
            mean_stream_init(&sum, cfg->heads, in->x->rows * in->kv->rows, err);
        with_sum.average = &sum;
    }
    if (rc == 0)
        rc = row->forward(tr, module, &with_sum, in, seq, err);
    if (rc == 0 && avg)
        rc = record_average(tr, id, &sum, cfg->hooks, err);
    mean_stream_free(&sum);
    return rc;
}

variant_sizes trained_sizes_of(variant_id id, const run_request *rq,
                               const attention_config *cfg)
{
    const variant_row *row = variant_row_of(id);
    variant_sizes s = {.run = {
                           .d_model = cfg->d_model,
                           .d_out = rq->model.d_out,
                           .heads = rq->model.heads,
                           .ff = rq->model.ff ? rq->model.ff : 4 * cfg->d_model,
                           .qkv_bias = rq->model.qkv_bias,
                           .layers = rq->model.block_layers,
                           .attn_only = rq->model.attn_only,
                       }};
    s.dims = variant_dims(row, &s.run);
    s.acfg = variant_attention(row, cfg);
    return s;
}

void trained_start_free(start_model *sm, variant_id id)
{
    variant_module_free(id, sm->module);
    sm->module = NULL;
    linear_free(&sm->head);
    matrix_free(&sm->emb);
    matrix_free(&sm->pos);
}

/* *sm: copies of embedding (V, D) and positions (C, D, or NULL) as
 * drawn; the module, then lm_head = nn.Linear(W, V, bias=False), drawn
 * from a copy of start; then with --weights the folder's files read over
 * them (a trained run's files replace what was drawn). */
int trained_start_make(start_model *sm, variant_id id, const run_request *rq,
                       const variant_sizes *sz, const torch_rng *start,
                       const matrix *embedding, const matrix *positions,
                       const trained_labels *lab, mx_error *err)
{
    const size_t V = embedding->rows;
    const char *const *words = (const char *const *)lab->vocab->s;
    torch_rng g = *start;
    if (matrix_alloc(&sm->emb, V, embedding->cols, N_("the embedding"), err) !=
            0 ||
        (positions != NULL &&
         matrix_alloc(&sm->pos, positions->rows, positions->cols,
                      N_("the positions"), err) != 0))
        return -1;
    memcpy(sm->emb.v, embedding->v, V * embedding->cols * sizeof(float));
    if (positions != NULL)
        memcpy(sm->pos.v, positions->v,
               positions->rows * positions->cols * sizeof(float));
    if ((sm->module = variant_module_new(id, err)) == NULL ||
        variant_row_of(id)->init(sm->module, &sz->acfg, &sz->dims, &g, err) !=
            0 ||
        linear_init(&sm->head, sz->dims.d_out, V, false, &g, err) != 0)
        return -1;
    if (rq->weights == NULL)
        return 0;
    const csv_style *style = &rq->weights_style;
    if (weights_load(variant_by_id(id)->bit, &sz->run, sm->module, rq->weights,
                     style, err) != 0 ||
        weights_load_words(&sm->emb, words, rq->weights, id, TABLE_EMBEDDING,
                           style, err) != 0 ||
        (positions != NULL &&
         weights_load_table(&sm->pos, rq->weights, id, TABLE_POS_EMBEDDING,
                            style, err) != 0) ||
        weights_load_words(&sm->head.weight, words, rq->weights, id,
                           TABLE_LM_HEAD, style, err) != 0)
        return -1;
    return 0;
}

/* --grad: the pass over the shown sentence again, backward, into grads
 * (made here; the caller frees it): every intermediate's gradient as it
 * is made, then every parameter's. */
static int record_gradients(trace *tr, train_model *grads,
                            const train_model *model, variant_id id,
                            const model_dims *dims,
                            const attention_config *acfg,
                            const train_sentence *shown, size_t steps,
                            const trained_labels *lab, mx_error *err)
{
    float again;
    grad_recorder rec = {tr, id, lab, err};
    const train_shown to = {record_grad, &rec};
    if (train_grad_model(grads, model, id, dims, acfg, err) != 0 ||
        train_pass(&again, NULL, grads, model, id, dims, acfg, shown, &to,
                   err) != 0)
        return -1;
    if (steps > 0)
        grads_after_zero_grad(grads, dims, id);
    return record_model(tr, id, true, grads, dims, lab, err);
}

int trained_check_files(const run_request *rq, const attention_config *cfg,
                        const torch_rng *start, const matrix *embedding,
                        const matrix *positions, const trained_labels *lab,
                        mx_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS && rc == 0; i++) {
        const variant_id id = model_variants[i].id;
        if (!(rq->variants & model_variants[i].bit))
            continue;
        const variant_sizes sz = trained_sizes_of(id, rq, cfg);
        start_model sm = {0};
        rc = trained_start_make(&sm, id, rq, &sz, start, embedding, positions,
                                lab, err);
        trained_start_free(&sm, id);
    }
    return rc;
}

size_t trained_context(const run_request *rq, const train_data *data)
{
    if (rq->weights == NULL)
        return data->context;
    const size_t saved = rq->weights->manifest.context;
    if (saved == 0)
        return 0;
    // a folder read back trains on nothing (its --train 0): only its length
    return rq->training.steps > 0 && data->context > saved ? data->context
                                                           : saved;
}

int trained_variant(trace *tr, variant_id id, const run_request *rq,
                    const attention_config *cfg, const torch_rng *start,
                    const matrix *embedding, const matrix *positions,
                    const train_data *data, const size_t *ids,
                    const trained_labels *lab, mx_error *err)
{
    const variant_row *row = variant_row_of(id);
    const variant_sizes sz = trained_sizes_of(id, rq, cfg);
    const model_dims dims = sz.dims;
    const attention_config acfg = sz.acfg;
    const size_t steps = rq->training.steps, V = embedding->rows;
    const size_t T = lab->seq->tokens->n;
    start_model sm = {0};
    matrix logits = {0};
    train_model model = {&sm.emb, positions != NULL ? &sm.pos : NULL, NULL,
                         &sm.head.weight, rq->training.qkv_order};
    train_model grads = {0};
    checkpoints ck = {0};
    score_steps scores = {0};
    float *losses = calloc(steps + 1, sizeof *losses);
    int rc = -1;
    if (losses == NULL) {
        err_nomem(err, _("the losses"));
        goto done;
    }
    if (trained_start_make(&sm, id, rq, &sz, start, embedding, positions, lab,
                           err) != 0 ||
        matrix_alloc(&logits, T, V, N_("the logits"), err) != 0)
        goto done;
    model.module = sm.module; // made with the rest (trained_start_make)
    // with checkpoints, the hook looks at the heads as the training goes
    train_options training = rq->training;
    ck = (checkpoints){.variant = id,
                       .row = row,
                       .model = &model,
                       .cfg = &acfg,
                       .ids = ids,
                       .seq = lab->seq};
    scores = (score_steps){.variant = id,
                           .row = row,
                           .model = &model,
                           .cfg = &acfg,
                           .ids = ids,
                           .seq = lab->seq};
    step_look look = {rq->checkpoints ? &ck : NULL,
                      rq->checkpoints ? &scores : NULL,
                      rq->watch,
                      id,
                      steps,
                      losses};
    const train_hook hook = {step_hook, &look};
    if (rq->checkpoints) {
        checkpoints_choose(&ck, steps);
        score_steps_choose(&scores, steps);
    }
    if (rq->checkpoints || rq->watch != NULL)
        training.hook = &hook;
    if (train_run(losses, &model, id, &dims, &acfg, data->s, data->n, &training,
                  err) != 0 ||
        (rq->checkpoints && (checkpoint_hook(&ck, steps, err) != 0 ||
                             score_steps_look(&scores, steps, err) != 0)))
        goto done;
    if (rq->watch != NULL)
        rq->watch->fn(rq->watch->ctx, id, steps, steps,
                      steps > 0 ? losses[steps - 1] : NAN);

    // the trained model's tables, and its forward pass on the sentence
    const matrix *x;
    if (record_model(tr, id, false, &model, &dims, lab, err) != 0 ||
        record_inputs(&x, tr, id, &model, ids, lab, acfg.hooks, err) != 0)
        goto done;
    const attention_input in = {x, x};
    if (shown_forward(tr, id, sm.module, &acfg, &in, rq->average, lab->seq,
                      err) != 0)
        goto done;

    // logits and the loss at the final parameters; with --grad, one more
    // backward pass
    const train_sentence shown = {ids, T};
    if (train_pass(&losses[steps], &logits, NULL, &model, id, &dims, &acfg,
                   &shown, NULL, err) != 0)
        goto done;
    const labels *words = lab->vocab;
    const table_key next = {id, 0, NO_HEAD, TABLE_NEXT_TOKENS, false};
    if (record_copy(tr, id, TABLE_LOGITS, false, lab->seq->tokens, words,
                    &logits, err) != 0)
        goto done;
    // next_tokens is the whole model's, made as no stack's table
    const variant_id stacked = tr->stacked_variant;
    tr->stacked_variant = VARIANT_INPUT;
    const int next_rc =
        next_tokens_record(tr, &next, &logits, lab->seq->tokens, words, err);
    tr->stacked_variant = stacked;
    if (next_rc != 0)
        goto done;
    // --generate: the trained model continues the sentence
    if (rq->generate > 0 &&
        lesson_generate_into(tr, id, rq, &model, &dims, &acfg, ids, T,
                             tr->model.trained_context, words, err) != 0)
        goto done;
    if (rq->grad && record_gradients(tr, &grads, &model, id, &dims, &acfg,
                                     &shown, steps, lab, err) != 0)
        goto done;
    // the loss last: --step and the page show the forward pass, the
    // backward pass, then the updates' losses (catalogue.h's steps)
    if (record_losses(tr, id, losses, steps, data, &shown, err) != 0 ||
        (rq->checkpoints && (record_checkpoints(tr, &ck, err) != 0 ||
                             score_steps_record(tr, &scores, err) != 0)))
        goto done;
    rc = trained_keep(rq->made, id, &sm, err) != 0 ? -1 : trace_flush(tr, err);
done:
    if (rq->grad && grads.module != NULL)
        train_grad_model_free(&grads, id);
    trained_start_free(&sm, id);
    matrix_free(&logits);
    free(losses);
    free(ck.values);
    score_steps_free(&scores);
    return rc;
}

/* ---- the trained model kept for the interventions ---------------- */

/* What made->model points at: the variant and its trained model. */
typedef struct {
    variant_id id;
    start_model sm;
} trained_model;

static void trained_model_free(void *model)
{
    trained_model *m = model;
    if (m == NULL)
        return;
    trained_start_free(&m->sm, m->id);
    free(m);
}

int trained_keep(struct lm_made *made, variant_id id, start_model *sm,
                 mx_error *err)
{
    if (made == NULL || made->model != NULL)
        return 0;
    trained_model *m = malloc(sizeof *m);
    if (m == NULL)
        return err_nomem(err, _("the model"));
    m->id = id;
    m->sm = *sm;
    *sm = (start_model){0};
    made->model = m;
    made->free = trained_model_free;
    return 0;
}

start_model *trained_made_model(const struct lm_made *made, variant_id id)
{
    trained_model *m = made != NULL ? made->model : NULL;
    return m != NULL && m->id == id ? &m->sm : NULL;
}
