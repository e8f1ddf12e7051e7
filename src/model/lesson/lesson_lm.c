/* lesson_lm.c: a trained lesson model as the interventions' language
 * model (lesson_lm.h). */
#include "model/lesson/lesson_lm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/limits.h"
#include "model/lesson/lesson_run.h"
#include "model/lesson/lesson_tokens.h"
#include "model/lesson/lesson_size.h"
#include "model/lesson/trained.h"
#include "model/lesson/variants.h"
#include "numerics/rng.h"

struct lm_session {
    variant_id variant; /* the run's one variant, whose row has lm_head */
    run_request rq;     /* the run's, without hooks */
    tokenized tok;      /* the shown sentence's words; the vocabulary */
    train_data data;    /* the sentences trained on */
    trace names;        /* owns the labels below */
    const labels *vocab, *dims;
    attention_config cfg; /* the run's module, one thread, no hooks */
    variant_sizes sz;
    size_t C, layers;  /* positions; blocks */
    matrix drawn, pos; /* emb and pos as drawn, (V, D) and (C, D) */
    start_model sm;    /* the session's own, when the run trained none */
    train_model model; /* the run's trained model (borrowed), or sm's */
    bool trained;
    bool corpus;  /* trained on --corpus: mean ablation is over it */
    float *zmean; /* (L·H, hd): each head's z, its mean over the corpus;
                     NULL until a mean ablation needs it */
};

static void close_session(lm_session *s)
{
    if (s == NULL)
        return;
    trained_start_free(&s->sm, s->variant);
    free(s->zmean);
    matrix_free(&s->drawn);
    matrix_free(&s->pos);
    trace_free(&s->names);
    tokenized_free(&s->tok);
    train_data_free(&s->data);
    free(s);
}

/* The run is one trained model of a variant whose row has an lm_head,
 * the block's (--train refuses --dropout and --draw: the forward pass is
 * the training's, without dropout). */
static int check_trained_block(const run_request *rq, mx_error *err)
{
    if (!rq->train)
        return err_detail_set(err, RUN_LESSON_UNTRAINED, 0, 0, 0);
    // one variant, whose row has an lm_head (variants.h)
    if ((rq->variants & (rq->variants - 1)) != 0 ||
        (rq->variants & variants_taking(TAKES_LM_HEAD)) == 0)
        return err_detail_set(err, RUN_LESSON_NOT_BLOCK, 0, 0, 0);
    return 0;
}

/* What the model trains on. --repeat-random has no sentence: the model
 * trains on --corpus alone, whose first sentence stands for the shown
 * one (it adds no word to the vocabulary, no position to the longest
 * sentence's, and the corpus's sentences are the ones trained on); or,
 * read from a trained --weights folder and not trained further, it is
 * the folder's model as it is (*as_read), with the folder's vocabulary. */
static int training_input(model_input *in, bool *as_read, const run_request *rq,
                          mx_error *err)
{
    *in = *rq->trained_on;
    *as_read = false;
    if (rq->repeat_random == 0)
        return 0;
    if (in->corpus != NULL && in->n_corpus > 0) {
        in->sentence = in->corpus[0];
        in->len = strlen(in->corpus[0]);
        return 0;
    }
    if (rq->weights != NULL && rq->training.steps == 0) {
        *as_read = true;
        return 0;
    }
    if (rq->weights != NULL) // --train N trains the folder's model further
        return err_usage(err, _("--repeat-random: a lesson model has no "
                                "sentence to train on: it goes with "
                                "--corpus FILE"));
    return err_usage(err, _("--repeat-random: a lesson model has no "
                            "sentence to train on: it goes with --corpus "
                            "FILE, or with --weights DIR of a trained "
                            "model"));
}

/* The session's words and sentences: the run's (lesson_run_tokens, the
 * shown sentence's T tokens), or a folder's model read as it is, its
 * vocabulary alone (T 0, nothing to train on). */
static int session_tokens(lm_session *s, size_t *T, bool as_read,
                          const run_request *rq, const model_input *in,
                          mx_error *err)
{
    *T = 0;
    if (as_read)
        return lesson_folder_vocab(&s->tok, &s->data, rq, err);
    return lesson_run_tokens(&s->tok, T, &s->data, rq, in, err);
}

static int open_session(lm_session **out, lm_shape *shape,
                        const run_request *rq, mx_error *err)
{
    *out = NULL;
    if (rq->trained_on == NULL)
        return err_set(err, 1, _("the lesson model has no input"));
    model_input input;
    bool as_read;
    if (check_trained_block(rq, err) != 0 ||
        training_input(&input, &as_read, rq, err) != 0)
        return -1;
    const model_input *in = &input;
    lm_session *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_nomem(err, _("the model"));
    trace_init(&s->names);
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if (rq->variants == model_variants[i].bit)
            s->variant = model_variants[i].id;
    s->rq = *rq;
    s->rq.replace = NULL;
    s->rq.n_replace = 0;
    s->rq.watch = NULL;
    s->rq.trained_on = NULL;
    s->corpus = in->corpus != NULL;
    size_t T;
    if (session_tokens(s, &T, as_read, rq, in, err) != 0) {
        close_session(s);
        return -1;
    }
    const size_t D = lesson_width(rq, in), V = s->tok.n_vocab;
    // the longest sentence trained on (a --weights folder's model.json
    // context_length, and the sentences trained on since: the masks of
    // the notebook's classes are built for it), as the run's generation
    // is bounded (lesson_generate.h); not recorded (an older folder): the
    // sentences trained on, or a folder's model read without one any
    // text the program reads; learned positions bound it instead (below)
    const size_t known = trained_context(rq, &s->data);
    s->C = known > 0 ? known : as_read ? MAX_TOKENS : s->data.context;
    s->cfg = (attention_config){.d_model = D,
                                .d_out = rq->model.d_out,
                                .heads = rq->model.heads,
                                .causal = rq->model.causal,
                                .scale = rq->model.scale,
                                .qkv_bias = rq->model.qkv_bias,
                                .batch = 1};
    s->sz = trained_sizes_of(s->variant, rq, &s->cfg);
    s->layers = rq->model.block_layers > 0 ? rq->model.block_layers : 1;
    s->vocab = trace_word_labels(&s->names, "",
                                 (const char *const *)s->tok.vocab, V, err);
    s->dims = trace_index_labels(&s->names, "dim", D, err);
    if (s->vocab == NULL || s->dims == NULL ||
        (rq->model.positions &&
         lesson_trained_positions(&s->C, rq, T, err) != 0)) {
        close_session(s);
        return -1;
    }
    // a stack's rows are its blocks', as the run's trace names them
    *shape = (lm_shape){
        s->layers, s->sz.dims.heads, V, s->C,
        rq->model.block_layers > 0 ? variant_id_name(LAYER_VARIANT) : NULL};
    *out = s;
    return 0;
}

/* The model as the run trains it, for a run that trained none (with
 * --repeat-random it makes no tables): torch.manual_seed(seed), emb
 * (V, D), pos (C, D), the blocks and lm_head drawn (or read from
 * --weights), then the training's steps (trained.h). */
static int train_session(lm_session *s, mx_error *err)
{
    const size_t V = s->tok.n_vocab, D = s->cfg.d_model;
    torch_rng g;
    rng_seed(&g, s->rq.seed);
    if (matrix_alloc(&s->drawn, V, D, N_("the embedding"), err) != 0 ||
        (s->rq.model.positions &&
         matrix_alloc(&s->pos, s->C, D, N_("the positions"), err) != 0))
        return -1;
    rng_normal_fill(s->drawn.v, V * D, 0.0, 1.0, &g);
    if (s->rq.model.positions)
        rng_normal_fill(s->pos.v, s->C * D, 0.0, 1.0, &g);
    const matrix *pos = s->rq.model.positions ? &s->pos : NULL;
    const trained_labels lab = {s->vocab, s->dims, NULL};
    if (trained_start_make(&s->sm, s->variant, &s->rq, &s->sz, &g, &s->drawn,
                           pos, &lab, err) != 0)
        return -1;
    s->model =
        (train_model){&s->sm.emb, pos != NULL ? &s->sm.pos : NULL, s->sm.module,
                      &s->sm.head.weight, s->rq.training.qkv_order};
    train_options opt = s->rq.training;
    opt.hook = NULL;
    float *losses = calloc(opt.steps + 1, sizeof *losses);
    if (losses == NULL)
        return err_nomem(err, _("the losses"));
    const int rc = train_run(losses, &s->model, s->variant, &s->sz.dims,
                             &s->sz.acfg, s->data.s, s->data.n, &opt, err);
    free(losses);
    s->trained = rc == 0;
    return rc;
}

/* s->model: the model the run trained (trained.h), borrowed for
 * every forward pass, or when the run trained none the session's own,
 * trained here once. */
static int ready(lm_session *s, mx_error *err)
{
    if (s->trained)
        return 0;
    start_model *run = trained_made_model(s->rq.made, s->variant);
    if (run == NULL)
        return train_session(s, err);
    s->model =
        (train_model){&run->emb, s->rq.model.positions ? &run->pos : NULL,
                      run->module, &run->head.weight, s->rq.training.qkv_order};
    s->trained = true;
    return 0;
}

/* The word's id in the vocabulary, or -1. */
static ptrdiff_t word_id(const lm_session *s, const char *word)
{
    for (size_t i = 0; i < s->tok.n_vocab; i++)
        if (strcmp(s->tok.vocab[i], word) == 0)
            return (ptrdiff_t)i;
    return -1;
}

static int encode(int32_t **ids, size_t *T, const lm_session *s,
                  const char *text, size_t len, mx_error *err)
{
    tokenized t = {0};
    *ids = NULL;
    *T = 0;
    if (tokenize_with(&t, text, len, s->rq.tokens, &s->rq.rules, err) != 0)
        return -1;
    int rc = 0;
    if (t.n_tokens > s->C)
        rc = err_input(
            err,
            ngettext("the text is %zu words, more than the model's %zu "
                     "position",
                     "the text is %zu words, more than the model's %zu "
                     "positions",
                     s->C),
            t.n_tokens, s->C);
    else if ((*ids = calloc(t.n_tokens, sizeof **ids)) == NULL)
        rc = err_nomem(err, _("tokens"));
    const ptrdiff_t unk = s->rq.unk ? word_id(s, UNK_WORD) : -1;
    for (size_t i = 0; rc == 0 && i < t.n_tokens; i++) {
        ptrdiff_t id = word_id(s, t.tokens[i]);
        if (id < 0 && unk < 0)
            rc = err_input(err,
                           _("the word '%s' is not in the trained vocabulary"),
                           t.tokens[i]);
        (*ids)[i] = (int32_t)(id >= 0 ? id : unk);
    }
    if (rc == 0)
        *T = t.n_tokens;
    else {
        free(*ids);
        *ids = NULL;
    }
    tokenized_free(&t);
    return rc;
}

static void label(char *buf, size_t size, const lm_session *s, int32_t id)
{
    snprintf(buf, size, "%s", s->tok.vocab[id]);
}

/* ---- the forward pass with the checkpoints' hook points --------------- */

/* A block's out under the name of the residual stream before the next
 * block: hidden (lm.h), as a checkpoint's layer names it. */
static table_key as_hidden(const table_key *at)
{
    table_key k = *at;
    if (is_layer_table(&k) && k.id == TABLE_OUT && k.head == NO_HEAD)
        k.id = TABLE_HIDDEN;
    return k;
}

/* What the block's hook points hand on: the caller's hooks, named as
 * the block names its tables. */
typedef struct {
    const forward_hooks *outer;
} renamed_hooks;

static int record_renamed(void *ctx, const table_key *at, const matrix *m,
                          mx_error *err)
{
    const renamed_hooks *r = ctx;
    const table_key k = as_hidden(at);
    return r->outer->record(r->outer->ctx, &k, m, err);
}

/* The caller's replacing hooks as the block names its tables: hidden
 * is block L - 1's out; on a model trained on --corpus, a mean over the
 * positions is the corpus's mean, set on each of the T rows (values[i],
 * made here). *out (n) and values (n), the caller's. */
static int renamed_replace(replace_hook **out, matrix **values,
                           const lm_session *s, const forward_hooks *hk,
                           size_t T, mx_error *err)
{
    *out = NULL;
    *values = NULL;
    if (hk == NULL || hk->n_replace == 0)
        return 0;
    const size_t n = hk->n_replace, H = s->sz.acfg.heads;
    const size_t hd = s->sz.acfg.d_out / H;
    if ((*out = calloc(n, sizeof **out)) == NULL ||
        (*values = calloc(n, sizeof **values)) == NULL)
        return err_nomem(err, _("the hooks"));
    for (size_t i = 0; i < n; i++) {
        replace_hook *k = &(*out)[i];
        *k = hk->replace[i];
        if (is_layer_table(&k->at) && k->at.id == TABLE_HIDDEN)
            k->at.id = TABLE_OUT;
        if (s->zmean == NULL || k->action != HOOK_MEAN ||
            k->at.id != TABLE_HEAD_CONTEXT)
            continue;
        matrix *v = &(*values)[i];
        if (matrix_alloc(v, T, hd, N_("the hooks"), err) != 0)
            return -1;
        const float *mean =
            s->zmean + ((size_t)k->at.layer * H + (size_t)k->at.head) * hd;
        for (size_t t = 0; t < T; t++)
            memcpy(matrix_at(v, t, 0), mean, hd * sizeof *mean);
        k->action = HOOK_SET;
        k->value = v;
    }
    return 0;
}

static void free_values(matrix *values, size_t n)
{
    for (size_t i = 0; values != NULL && i < n; i++)
        matrix_free(&values[i]);
    free(values);
}

/* Labels of the ids' words in tr: tokens, Q:, K:, V:. */
static int sequence_of(sequence_labels *seq, trace *tr, const lm_session *s,
                       const int32_t *ids, size_t T, mx_error *err)
{
    const char **words = calloc(T > 0 ? T : 1, sizeof *words);
    if (words == NULL)
        return err_nomem(err, _("tokens"));
    for (size_t t = 0; t < T; t++)
        words[t] = s->tok.vocab[ids[t]];
    seq->tokens = trace_word_labels(tr, "", words, T, err);
    seq->queries = trace_word_labels(tr, "Q:", words, T, err);
    seq->keys = trace_word_labels(tr, "K:", words, T, err);
    seq->values = trace_word_labels(tr, "V:", words, T, err);
    free(words);
    return seq->tokens && seq->queries && seq->keys && seq->values ? 0 : -1;
}

/* x (T, D) = emb(ids) + pos(arange(T)), through the hook point inputs,
 * then the blocks into tr (their hook points through hk), then logits
 * (T, V) = lm_head(out) through the hook point logits. */
static int run_pass(trace *tr, matrix *x, matrix *logits, lm_session *s,
                    const int32_t *ids, size_t T, const forward_hooks *hk,
                    mx_error *err)
{
    size_t *at = calloc(T, sizeof *at);
    if (at == NULL)
        return err_nomem(err, _("tokens"));
    for (size_t t = 0; t < T; t++)
        at[t] = (size_t)ids[t];
    train_inputs(x, &s->model, at);
    free(at);
    const table_key inputs = {VARIANT_INPUT, 0, NO_HEAD, TABLE_INPUTS, false};
    sequence_labels seq;
    if (hook_point(hk, &inputs, x, err) != 0 ||
        sequence_of(&seq, tr, s, ids, T, err) != 0)
        return -1;
    attention_config acfg = s->sz.acfg;
    acfg.hooks = hk;
    const attention_input in = {x, x};
    if (variant_row_of(s->variant)
            ->forward(tr, s->model.module, &acfg, &in, &seq, err) != 0)
        return -1;
    const table_key last =
        layer_table_key((int)s->layers - 1, NO_HEAD, TABLE_OUT);
    const table *out = trace_find(tr, &last);
    if (out == NULL)
        return err_set(err, 1, _("the model made no logits"));
    linear_forward(logits, &out->values, s->model.lm_head, NULL, NULL);
    const table_key at_logits = {VARIANT_MODEL, 0, NO_HEAD, TABLE_LOGITS,
                                 false};
    return hook_point(hk, &at_logits, logits, err);
}

/* Whether hk asks for a mean of a head's z. */
static bool asks_mean(const forward_hooks *hk)
{
    for (size_t i = 0; hk != NULL && i < hk->n_replace; i++)
        if (hk->replace[i].action == HOOK_MEAN &&
            hk->replace[i].at.id == TABLE_HEAD_CONTEXT)
            return true;
    return false;
}

static int corpus_means(lm_session *s, mx_error *err);

static int forward(lm_session *s, const int32_t *ids, size_t T,
                   const forward_hooks *hk, mx_error *err)
{
    if (ready(s, err) != 0)
        return -1;
    if (s->corpus && s->zmean == NULL && asks_mean(hk) &&
        corpus_means(s, err) != 0)
        return -1;
    replace_hook *replace = NULL;
    matrix *values = NULL;
    const size_t n = hk != NULL ? hk->n_replace : 0;
    renamed_hooks r = {hk};
    const forward_hooks inner = {
        NULL, n, hk != NULL && hk->record != NULL ? record_renamed : NULL, &r};
    trace tr;
    trace_init(&tr);
    tr.stacked_variant =
        s->rq.model.block_layers > 0 ? LAYER_VARIANT : VARIANT_INPUT;
    matrix x = {0}, logits = {0};
    int rc = renamed_replace(&replace, &values, s, hk, T, err);
    forward_hooks with = inner;
    with.replace = replace;
    if (rc == 0)
        rc = matrix_alloc(&x, T, s->cfg.d_model, N_("the inputs"), err);
    if (rc == 0)
        rc = matrix_alloc(&logits, T, s->tok.n_vocab, N_("the logits"), err);
    if (rc == 0)
        rc = run_pass(&tr, &x, &logits, s, ids, T, &with, err);
    matrix_free(&x);
    matrix_free(&logits);
    trace_free(&tr);
    free(replace);
    free_values(values, n);
    return rc;
}

/* ---- the mean of each head's z over the corpus ------------------------ */

/* Each head's z over the sentences, one after the other: head (l, h)'s
 * rows in z[(l·H + h)·N·hd ...], N rows in all, the next at `row`. */
typedef struct {
    size_t H, hd, N, row;
    float *z;
} z_rows;

static int keep_z(void *ctx, const table_key *at, const matrix *m,
                  mx_error *err)
{
    (void)err;
    const z_rows *k = ctx;
    if (!is_layer_table(at) || at->id != TABLE_HEAD_CONTEXT)
        return 0;
    float *head =
        k->z + ((size_t)at->layer * k->H + (size_t)at->head) * k->N * k->hd;
    memcpy(head + k->row * k->hd, m->v, m->rows * k->hd * sizeof *m->v);
    return 0;
}

/* s->zmean (L·H, hd): the clean model over every sentence of the corpus,
 * each head's z (T_i, hd) one sentence after the other (torch.cat over
 * the positions), then x.mean over the N positions in PyTorch's order
 * (mean_rows). */
static int corpus_means(lm_session *s, mx_error *err)
{
    const size_t L = s->layers, H = s->sz.acfg.heads;
    z_rows k = {H, s->sz.acfg.d_out / H, 0, 0, NULL};
    for (size_t i = 0; i < s->data.n; i++)
        k.N += s->data.s[i].n;
    k.z = calloc(L * H * k.N * k.hd, sizeof *k.z);
    const float **rows = calloc(k.N, sizeof *rows);
    float *mean = calloc(L * H * k.hd, sizeof *mean);
    int32_t *ids = calloc(s->C, sizeof *ids);
    int rc = k.z && rows && mean && ids ? 0 : err_nomem(err, _("the corpus"));
    const forward_hooks hk = {NULL, 0, keep_z, &k};
    for (size_t i = 0; rc == 0 && i < s->data.n; i++) {
        const train_sentence *t = &s->data.s[i];
        if (t->n > s->C) {
            rc = err_input(
                err,
                ngettext("the text is %zu words, more than the model's %zu "
                         "position",
                         "the text is %zu words, more than the model's %zu "
                         "positions",
                         s->C),
                t->n, s->C);
            break;
        }
        for (size_t j = 0; j < t->n; j++)
            ids[j] = (int32_t)t->ids[j];
        rc = forward(s, ids, t->n, &hk, err);
        k.row += t->n;
    }
    for (size_t head = 0; rc == 0 && head < L * H; head++) {
        for (size_t r = 0; r < k.N; r++)
            rows[r] = k.z + (head * k.N + r) * k.hd;
        mean_rows(mean + head * k.hd, rows, k.N, k.hd);
    }
    if (rc == 0) {
        s->zmean = mean;
        mean = NULL;
    }
    free(k.z);
    free(rows);
    free(mean);
    free(ids);
    return rc;
}

/* ---- the layers from a residual stream ------------------------------- */

/* Labels of T positions in tr ("0", "Q:0" ...): a pass from a layer has
 * the stream, not the words, and its tables are not kept. */
static int positions_of(sequence_labels *seq, trace *tr, size_t T,
                        mx_error *err)
{
    seq->tokens = trace_index_labels(tr, "", T, err);
    seq->queries = trace_index_labels(tr, "Q:", T, err);
    seq->keys = trace_index_labels(tr, "K:", T, err);
    seq->values = trace_index_labels(tr, "V:", T, err);
    return seq->tokens && seq->queries && seq->keys && seq->values ? 0 : -1;
}

/* The layers first .. first + count - 1 over x (T, D), in place, the
 * heads' tables passing the replacing hooks hk (renamed as forward
 * renames them), as forward's pass computes them from the same stream. */
static int text_layers(lm_session *s, matrix *x, size_t first, size_t count,
                       const forward_hooks *hk, mx_error *err)
{
    const size_t T = x->rows, n = hk != NULL ? hk->n_replace : 0;
    replace_hook *replace = NULL;
    matrix *values = NULL;
    trace tr;
    trace_init(&tr);
    tr.stacked_variant =
        s->rq.model.block_layers > 0 ? LAYER_VARIANT : VARIANT_INPUT;
    sequence_labels seq;
    int rc = renamed_replace(&replace, &values, s, hk, T, err);
    if (rc == 0)
        rc = positions_of(&seq, &tr, T, err);
    const forward_hooks with = {replace, n, NULL, NULL};
    attention_config acfg = s->sz.acfg;
    acfg.hooks = &with;
    if (rc == 0)
        rc = variant_row_of(s->variant)
                 ->layers(&tr, s->model.module, &acfg, x, &seq, first, count,
                          err);
    trace_free(&tr);
    free(replace);
    free_values(values, n);
    return rc;
}

/* lm_ops.layers: each of the n texts of resid (n * T, D) through the
 * layers alone, text i's heads passing hooks[i]. */
static int layers(lm_session *s, matrix *resid, size_t n, size_t first,
                  size_t count, const forward_hooks *hooks, mx_error *err)
{
    if (ready(s, err) != 0)
        return -1;
    for (size_t i = 0; hooks != NULL && s->corpus && s->zmean == NULL && i < n;
         i++)
        if (asks_mean(&hooks[i]) && corpus_means(s, err) != 0)
            return -1;
    const size_t T = resid->rows / n, D = resid->cols;
    for (size_t i = 0; i < n; i++) {
        matrix x = {T, D, resid->v + i * T * D};
        if (text_layers(s, &x, first, count, hooks != NULL ? &hooks[i] : NULL,
                        err) != 0)
            return -1;
    }
    return 0;
}

/* No final norm: logits (rows, V) = resid (rows, D) @ lm_head^T. */
static int unembed(lm_session *s, matrix *logits, const matrix *resid,
                   mx_error *err)
{
    if (ready(s, err) != 0)
        return -1;
    linear_forward(logits, resid, s->model.lm_head, NULL, NULL);
    return 0;
}

const lm_ops lesson_lm = {
    .open = open_session,
    .encode = encode,
    .encode_word = encode, // a lesson's words have no special tokens
    .label = label,
    .forward = forward,
    .unembed = unembed,
    .close = close_session,
    .layers = layers,
    .variant = LAYER_VARIANT,
    .own_corpus = true,
    .lm_head_alone = true,
};
