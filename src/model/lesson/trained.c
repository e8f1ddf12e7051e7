/* trained.c: the tokens of a training run and each variant's trained
 * notebook (trained.h). */
#include "model/lesson/trained.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/lesson/weights.h"
#include "model/lesson/variants.h"

/* ---- the vocabulary ---------------------------------------------------- */

/* Words to ids in order of first appearance: an open-addressing table
 * of indexes into words. */
typedef struct {
    char **words; /* n words; owned */
    size_t n, cap;
    size_t *slot; /* slots, each 0 (empty) or 1 + an index */
    size_t n_slots;
} word_ids;

static size_t hash_word(const char *s)
{
    size_t h = 2166136261u;
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void word_ids_free(word_ids *w)
{
    for (size_t i = 0; i < w->n; i++)
        free(w->words[i]);
    free(w->words);
    free(w->slot);
    *w = (word_ids){0};
}

/* Puts i's word in its slot. */
static void word_ids_place(word_ids *w, size_t i)
{
    size_t k = hash_word(w->words[i]) & (w->n_slots - 1);
    while (w->slot[k] != 0)
        k = (k + 1) & (w->n_slots - 1);
    w->slot[k] = i + 1;
}

/* Whether word has an id, *id. */
static bool word_find(size_t *id, const word_ids *w, const char *word)
{
    if (w->n_slots == 0)
        return false;
    size_t k = hash_word(word) & (w->n_slots - 1);
    for (; w->slot[k] != 0; k = (k + 1) & (w->n_slots - 1))
        if (strcmp(w->words[w->slot[k] - 1], word) == 0) {
            *id = w->slot[k] - 1;
            return true;
        }
    return false;
}

/* *id = word's id, a new one when it is new. */
static int word_id(size_t *id, word_ids *w, const char *word, mx_error *err)
{
    if (word_find(id, w, word))
        return 0;
    if (w->n == w->cap) {
        const size_t cap = w->cap ? 2 * w->cap : 64;
        char **grown = realloc(w->words, cap * sizeof *grown);
        if (grown == NULL)
            return err_nomem(err, _("the vocabulary"));
        w->words = grown;
        w->cap = cap;
    }
    if (2 * (w->n + 1) > w->n_slots) {
        const size_t n_slots = w->n_slots ? 2 * w->n_slots : 128;
        size_t *slot = calloc(n_slots, sizeof *slot);
        if (slot == NULL)
            return err_nomem(err, _("the vocabulary"));
        free(w->slot);
        w->slot = slot;
        w->n_slots = n_slots;
        for (size_t i = 0; i < w->n; i++)
            word_ids_place(w, i);
    }
    const size_t n = strlen(word) + 1;
    char *copy = malloc(n);
    if (copy == NULL)
        return err_nomem(err, _("the vocabulary"));
    memcpy(copy, word, n);
    w->words[w->n] = copy;
    word_ids_place(w, w->n);
    *id = w->n++;
    return 0;
}

void train_data_free(train_data *data)
{
    for (size_t i = 0; i < data->n_words; i++)
        free(data->words[i]);
    free(data->words);
    free(data->s);
    free(data->ids);
    *data = (train_data){0};
}

/* err's message about corpus sentence i (from 0), said as --input says
 * it: "FILE:LINE: column 'NAME': why". */
static int corpus_error(mx_error *err, const model_input *in, size_t i)
{
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    if (in->corpus_lines != NULL)
        return err_input(err, _("%s:%zu: column '%s': %s"), in->corpus_file,
                         in->corpus_lines[i], in->corpus_column, why);
    return err_input(err, _("--corpus: sentence %zu: %s"), i, why);
}

/* --unk: how words outside a closed vocabulary are read. */
typedef struct {
    bool on;   /* words are looked up, never added */
    size_t id; /* UNK_WORD's id */
} unk_map;

/* *id = word's id (word_id), or with u on its id if it has one, else
 * UNK_WORD's. */
static int vocab_id(size_t *id, word_ids *w, const char *word, const unk_map *u,
                    mx_error *err)
{
    if (!u->on)
        return word_id(id, w, word, err);
    if (!word_find(id, w, word))
        *id = u->id;
    return 0;
}

/* The corpus's sentences tokenized one by one into w and all (their
 * ids, *count of them); *lengths (n_corpus) their lengths. */
static int corpus_ids(word_ids *w, size_t **all, size_t *count,
                      size_t **lengths, const model_input *in,
                      const model_config *mc, const unk_map *u, mx_error *err)
{
    size_t cap = 0;
    *lengths = calloc(in->n_corpus ? in->n_corpus : 1, sizeof **lengths);
    if (*lengths == NULL)
        return err_nomem(err, _("the corpus"));
    for (size_t i = 0; i < in->n_corpus; i++) {
        tokenized t = {0};
        if (tokenize_with(&t, in->corpus[i], strlen(in->corpus[i]), mc->tokens,
                          &mc->rules, err) != 0)
            return corpus_error(err, in, i);
        int rc = 0;
        if (t.n_tokens < 2) {
            err_input(err, _("the sentence has one token: there is no next "
                             "word to predict"));
            rc = corpus_error(err, in, i);
        }
        if (rc == 0 && *count + t.n_tokens > cap) {
            const size_t grown_cap = 2 * (*count + t.n_tokens);
            size_t *grown = realloc(*all, grown_cap * sizeof *grown);
            if (grown == NULL)
                rc = err_nomem(err, _("the corpus"));
            else {
                *all = grown;
                cap = grown_cap;
            }
        }
        for (size_t k = 0; rc == 0 && k < t.n_tokens; k++)
            rc = vocab_id(&(*all)[(*count)++], w, t.tokens[k], u, err);
        (*lengths)[i] = t.n_tokens;
        tokenized_free(&t);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* The first word of ids[0..n) from `known` on (a word the trained
 * vocabulary lacks), or NULL. */
static const char *new_word(const word_ids *w, const size_t *ids, size_t n,
                            size_t known)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] >= known)
            return w->words[ids[i]];
    return NULL;
}

/* Token k of tok is word (UNK_WORD in place of a word outside the
 * vocabulary: the tables' labels say what the model reads). */
static int unk_label(tokenized *tok, size_t k, const char *word, mx_error *err)
{
    if (strcmp(tok->tokens[k], word) == 0)
        return 0;
    char *copy = strdup(word);
    if (copy == NULL)
        return err_nomem(err, _("a token"));
    free(tok->tokens[k]);
    tok->tokens[k] = copy;
    return 0;
}

/* --unk: UNK_WORD's id in u, added to w unless it is there (a trained
 * vocabulary must have it); u is on for what is read after. */
static int unk_begin(unk_map *u, word_ids *w, bool trained, mx_error *err)
{
    if (trained && !word_find(&u->id, w, UNK_WORD))
        return err_input(err,
                         _("--unk: the trained vocabulary has no word '%s' "
                           "(the model was trained without --unk)"),
                         UNK_WORD);
    if (word_id(&u->id, w, UNK_WORD, err) != 0)
        return -1;
    u->on = true;
    return 0;
}

int training_tokens(tokenized *tok, train_data *data, const model_input *in,
                    const model_config *mc, const char *const *vocab,
                    size_t n_vocab, mx_error *err)
{
    word_ids w = {0};
    size_t *all = NULL, *lengths = NULL, count = 0;
    *data = (train_data){0};
    int rc = -1;
    // a trained vocabulary (--weights) comes first, in its order
    for (size_t i = 0; i < n_vocab; i++) {
        size_t id;
        if (word_id(&id, &w, vocab[i], err) != 0) {
            word_ids_free(&w);
            return -1;
        }
    }
    if (w.n != n_vocab) {
        word_ids_free(&w);
        return err_input(err, _("--weights: the embedding's rows name a word "
                                "twice"));
    }
    if (tokenize_with(tok, in->sentence, in->len, mc->tokens, &mc->rules,
                      err) != 0) {
        word_ids_free(&w);
        return -1;
    }
    if (tok->n_tokens < 2) {
        tokenized_free(tok);
        word_ids_free(&w);
        return err_input(err, _("--train: the sentence has one token: there "
                                "is no next word to predict"));
    }
    if (in->corpus != NULL && in->n_corpus == 0) {
        tokenized_free(tok);
        word_ids_free(&w);
        return err_input(err, _("--corpus: the column holds no sentence"));
    }
    // --unk: a trained vocabulary is closed from the start; a corpus's
    // once it is read; a sentence's after it
    unk_map unk = {0};
    if (mc->unk && vocab != NULL && unk_begin(&unk, &w, true, err) != 0)
        goto done;
    if (corpus_ids(&w, &all, &count, &lengths, in, mc, &unk, err) != 0)
        goto done;
    if (mc->unk && vocab == NULL && in->corpus != NULL &&
        unk_begin(&unk, &w, false, err) != 0)
        goto done;
    // the shown sentence's ids, its new words after the corpus's
    const size_t T = tok->n_tokens;
    size_t *shown = malloc(T * sizeof *shown);
    if (shown == NULL) {
        err_nomem(err, _("the tokens"));
        goto done;
    }
    for (size_t k = 0; k < T; k++)
        if (vocab_id(&shown[k], &w, tok->tokens[k], &unk, err) != 0 ||
            (mc->unk && unk_label(tok, k, w.words[shown[k]], err) != 0)) {
            free(shown);
            goto done;
        }
    if (mc->unk && !unk.on && unk_begin(&unk, &w, false, err) != 0) {
        free(shown);
        goto done;
    }
    const char *unknown =
        vocab == NULL ? NULL : new_word(&w, all, count, n_vocab);
    if (unknown != NULL ||
        (vocab != NULL &&
         (unknown = new_word(&w, shown, T, n_vocab)) != NULL)) {
        err_input(err,
                  _("'%s' is not in the trained vocabulary (the rows of the "
                    "--weights embedding.weight file)"),
                  unknown);
        free(shown);
        goto done;
    }
    const size_t n = in->corpus != NULL ? in->n_corpus : 1;
    data->s = calloc(n, sizeof *data->s);
    if (data->s == NULL) {
        free(shown);
        err_nomem(err, _("the corpus"));
        goto done;
    }
    data->n = n;
    data->context = T;
    if (in->corpus == NULL) {
        data->ids = malloc(T * sizeof *data->ids);
        if (data->ids == NULL) {
            free(shown);
            err_nomem(err, _("the corpus"));
            goto done;
        }
        memcpy(data->ids, shown, T * sizeof *shown);
        data->s[0] = (train_sentence){data->ids, T};
    } else {
        data->ids = all;
        all = NULL;
        size_t at = 0;
        for (size_t i = 0; i < n; i++) {
            data->s[i] = (train_sentence){data->ids + at, lengths[i]};
            at += lengths[i];
            if (lengths[i] > data->context)
                data->context = lengths[i];
        }
    }
    // the vocabulary replaces the sentence's own (whose words are the
    // tokens'); data owns its words
    char **words = malloc((w.n ? w.n : 1) * sizeof *words);
    if (words == NULL) {
        free(shown);
        err_nomem(err, _("the vocabulary"));
        goto done;
    }
    memcpy(words, w.words, w.n * sizeof *words);
    free(tok->vocab);
    free(tok->ids);
    tok->vocab = words;
    tok->n_vocab = w.n;
    tok->ids = shown;
    data->words = w.words;
    data->n_words = w.n;
    w.words = NULL;
    w.n = 0;
    rc = 0;
done:
    word_ids_free(&w);
    free(all);
    free(lengths);
    if (rc != 0) {
        tokenized_free(tok);
        train_data_free(data);
    }
    return rc;
}

/* ---- a trained variant ------------------------------------------------- */

/* A table (rows x cols labels) of variant v, a copy of m. */
static int record_copy(trace *tr, variant_id v, table_id id, bool grad,
                       const labels *rows, const labels *cols, const matrix *m,
                       mx_error *err)
{
    const table_key key = {v, 0, NO_HEAD, id, grad};
    table *t = trace_new(tr, &key, rows, cols, err);
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

/* x (T, D) = emb(ids) + pos(arange(T)), as the training computes it. */
static void inputs_of(matrix *x, const train_model *m, const size_t *ids)
{
    const size_t D = x->cols;
    for (size_t r = 0; r < x->rows; r++) {
        float *row = matrix_at(x, r, 0);
        memcpy(row, matrix_at(m->embedding, ids[r], 0), D * sizeof(float));
        if (m->positions != NULL)
            for (size_t d = 0; d < D; d++)
                row[d] += *matrix_at(m->positions, r, d);
    }
}

/* inputs (T, D) = emb(ids) + pos(arange(T)), as the training computes
 * them, into a new table of variant v; *x points at its values. */
static int record_inputs(const matrix **x, trace *tr, variant_id v,
                         const train_model *m, const size_t *ids,
                         const trained_labels *lab, mx_error *err)
{
    const table_key key = {v, 0, NO_HEAD, TABLE_INPUTS, false};
    table *t = trace_new(tr, &key, lab->seq->tokens, lab->dims, err);
    if (t == NULL)
        return -1;
    inputs_of(&t->values, m, ids);
    *x = &t->values;
    return 0;
}

/* ---- checkpoints: the heads' weights as the training goes ------------- */

/* What the training's hook (train.h) records for attn_weights_steps: the
 * shown sentence's attn_weights of every head at the chosen steps, a
 * forward pass of the module as it is then, into a trace of its own. */
typedef struct {
    variant_id variant;
    const variant_row *row;
    const train_model *model; /* the model being trained */
    const attention_config *cfg;
    const size_t *ids; /* the shown sentence (T) */
    const sequence_labels *seq;
    size_t step[TRAIN_CHECKPOINTS]; /* the chosen steps, rising */
    size_t n, done;                 /* chosen, recorded */
    size_t heads, T, S;             /* known at the first checkpoint */
    float *values;                  /* (n·heads·T, S), owned */
} checkpoints;

/* K = min(N + 1, TRAIN_CHECKPOINTS) steps from 0 to N, evenly spaced:
 * step k is floor(k·N / (K - 1)). */
static void checkpoints_choose(checkpoints *c, size_t N)
{
    c->n = N + 1 < TRAIN_CHECKPOINTS ? N + 1 : TRAIN_CHECKPOINTS;
    for (size_t k = 0; k < c->n; k++)
        c->step[k] = c->n > 1 ? k * N / (c->n - 1) : 0;
}

/* The module's heads' weights now, as checkpoint c->done. */
static int checkpoint_record(checkpoints *c, mx_error *err)
{
    const size_t T = c->seq->tokens->n, D = c->model->embedding->cols;
    matrix x = {0};
    trace scratch;
    trace_init(&scratch);
    int rc = matrix_alloc(&x, T, D, N_("the training's working tables"), err);
    if (rc == 0) {
        inputs_of(&x, c->model, c->ids);
        const attention_input in = {&x, &x};
        rc = c->row->forward(&scratch, c->model->module, c->cfg, &in, c->seq,
                             err);
    }
    for (int h = 0; rc == 0; h++) {
        const table_key key = {c->variant, 0, h, TABLE_ATTN_WEIGHTS, false};
        const table *w = trace_find(&scratch, &key);
        if (w == NULL)
            break;
        if (c->values == NULL) { /* the first checkpoint: the shapes */
            if (h == 0) {
                c->T = w->values.rows;
                c->S = w->values.cols;
                while (trace_find(&scratch,
                                  &(table_key){c->variant, 0, (int)c->heads,
                                               TABLE_ATTN_WEIGHTS, false}))
                    c->heads++;
            }
            c->values = calloc(c->n * c->heads * c->T * c->S, sizeof(float));
            if (c->values == NULL)
                rc = err_nomem(err, _("the training's working tables"));
        }
        if (rc == 0 && (size_t)h < c->heads)
            memcpy(c->values + ((c->done * c->heads + (size_t)h) * c->T) * c->S,
                   w->values.v, c->T * c->S * sizeof(float));
    }
    trace_free(&scratch);
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
 * (or NULL) and the run's watch (or NULL). */
typedef struct {
    checkpoints *ck;
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
    return look->ck != NULL ? checkpoint_hook(look->ck, step, err) : 0;
}

/* attn_weights_steps (n·heads·T, S) of variant v, rows
 * "step<n>/head<h>/Q:<word>", columns the keys. */
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
    const table_key key = {c->variant, 0, NO_HEAD, TABLE_ATTN_WEIGHTS_STEPS,
                           false};
    table *t = trace_new(tr, &key, row_labels, c->seq->keys, err);
    if (t == NULL)
        return -1;
    memcpy(t->values.v, c->values, rows * c->S * sizeof(float));
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

static int record_grad(void *ctx, table_id id, int head, const matrix *g)
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
    const table_key key = {r->variant, 0, head, id, true};
    table *t = trace_new(r->tr, &key, rows, cols, r->err);
    if (t == NULL)
        return -1;
    memcpy(t->values.v, g->v, g->rows * g->cols * sizeof(float));
    return 0;
}

/* The loss table (N + 1, 1), labelled step0 .. step(N-1), final. */
static int record_losses(trace *tr, variant_id v, const float *losses,
                         size_t steps, float final, mx_error *err)
{
    const labels *rows = trace_index_labels(tr, "step", steps + 1, err);
    const labels *col = trace_literal_label(tr, "loss", err);
    if (rows == NULL || col == NULL)
        return -1;
    const table_key key = {v, 0, NO_HEAD, TABLE_LOSS, false};
    table *t = trace_new(tr, &key, rows, col, err);
    if (t == NULL)
        return -1;
    memcpy(t->values.v, losses, steps * sizeof(float));
    t->values.v[steps] = final;
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
        rc = record_average(tr, id, &sum, err);
    mean_stream_free(&sum);
    return rc;
}

/* The sizes of variant id's module in a run of mc (cfg the run's). */
typedef struct {
    model_dims run;  /* the run's sizes */
    model_dims dims; /* the variant's (variant_dims) */
    attention_config acfg;
} variant_sizes;

static variant_sizes sizes_of(variant_id id, const model_config *mc,
                              const attention_config *cfg)
{
    const variant_row *row = variant_row_of(id);
    variant_sizes s = {.run = {
                           .d_model = cfg->d_model,
                           .d_out = mc->d_out,
                           .heads = mc->heads,
                           .ff = mc->ff ? mc->ff : 4 * cfg->d_model,
                           .qkv_bias = mc->qkv_bias,
                       }};
    s.dims = variant_dims(row, &s.run);
    s.acfg = variant_attention(row, cfg);
    return s;
}

/* A variant's model as its training starts. */
typedef struct {
    matrix emb, pos; /* (V, D), (C, D) */
    module_room m;
    linear head; /* lm_head, (V, W) */
} start_model;

static void start_model_free(start_model *sm, variant_id id)
{
    variant_row_of(id)->free(&sm->m);
    linear_free(&sm->head);
    matrix_free(&sm->emb);
    matrix_free(&sm->pos);
}

/* *sm: copies of embedding (V, D) and positions (C, D, or NULL) as
 * drawn; the module, then lm_head = nn.Linear(W, V, bias=False), drawn
 * from a copy of start; then with --weights the folder's files read over
 * them (a trained run's files replace what was drawn). */
static int start_model_make(start_model *sm, variant_id id,
                            const model_config *mc, const variant_sizes *sz,
                            const torch_rng *start, const matrix *embedding,
                            const matrix *positions, const trained_labels *lab,
                            mx_error *err)
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
    if (variant_row_of(id)->init(&sm->m, &sz->acfg, &sz->dims, &g, err) != 0 ||
        linear_init(&sm->head, sz->dims.d_out, V, false, &g, err) != 0)
        return -1;
    if (mc->weights == NULL)
        return 0;
    const csv_style *style = &mc->weights_style;
    if (weights_load(variant_by_id(id)->bit, &sz->run, &sm->m, mc->weights,
                     style, err) != 0 ||
        weights_load_words(&sm->emb, words, mc->weights, id, TABLE_EMBEDDING,
                           style, err) != 0 ||
        (positions != NULL &&
         weights_load_table(&sm->pos, mc->weights, id, TABLE_POS_EMBEDDING,
                            style, err) != 0) ||
        weights_load_words(&sm->head.weight, words, mc->weights, id,
                           TABLE_LM_HEAD, style, err) != 0)
        return -1;
    return 0;
}

int trained_check_files(const model_config *mc, const attention_config *cfg,
                        const torch_rng *start, const matrix *embedding,
                        const matrix *positions, const trained_labels *lab,
                        mx_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS && rc == 0; i++) {
        const variant_id id = model_variants[i].id;
        if (!(mc->variants & model_variants[i].bit))
            continue;
        const variant_sizes sz = sizes_of(id, mc, cfg);
        start_model sm = {0};
        rc = start_model_make(&sm, id, mc, &sz, start, embedding, positions,
                              lab, err);
        start_model_free(&sm, id);
    }
    return rc;
}

int trained_variant(trace *tr, variant_id id, const model_config *mc,
                    const attention_config *cfg, const torch_rng *start,
                    const matrix *embedding, const matrix *positions,
                    const train_data *data, const size_t *ids,
                    const trained_labels *lab, mx_error *err)
{
    const variant_row *row = variant_row_of(id);
    const variant_sizes sz = sizes_of(id, mc, cfg);
    const model_dims dims = sz.dims;
    const attention_config acfg = sz.acfg;
    const size_t steps = mc->training.steps, V = embedding->rows;
    const size_t T = lab->seq->tokens->n;
    start_model sm = {0};
    matrix logits = {0};
    train_model model = {&sm.emb, positions != NULL ? &sm.pos : NULL, &sm.m,
                         &sm.head.weight, mc->training.qkv_order};
    train_model grads = {0};
    checkpoints ck = {0};
    float *losses = calloc(steps + 1, sizeof *losses);
    int rc = -1;
    if (losses == NULL) {
        err_nomem(err, _("the losses"));
        goto done;
    }
    if (start_model_make(&sm, id, mc, &sz, start, embedding, positions, lab,
                         err) != 0 ||
        matrix_alloc(&logits, T, V, N_("the logits"), err) != 0)
        goto done;

    // with checkpoints, the hook looks at the heads as the training goes
    train_options training = mc->training;
    ck = (checkpoints){.variant = id,
                       .row = row,
                       .model = &model,
                       .cfg = &acfg,
                       .ids = ids,
                       .seq = lab->seq};
    step_look look = {mc->checkpoints ? &ck : NULL, mc->watch, id, steps,
                      losses};
    const train_hook hook = {step_hook, &look};
    if (mc->checkpoints)
        checkpoints_choose(&ck, steps);
    if (mc->checkpoints || mc->watch != NULL)
        training.hook = &hook;
    if (train_run(losses, &model, id, &dims, &acfg, data->s, data->n, &training,
                  err) != 0 ||
        (mc->checkpoints && checkpoint_hook(&ck, steps, err) != 0))
        goto done;
    if (mc->watch != NULL)
        mc->watch->fn(mc->watch->ctx, id, steps, steps,
                      steps > 0 ? losses[steps - 1] : NAN);

    // the trained model's tables, and its forward pass on the sentence
    const matrix *x;
    if (record_model(tr, id, false, &model, &dims, lab, err) != 0 ||
        record_inputs(&x, tr, id, &model, ids, lab, err) != 0)
        goto done;
    const attention_input in = {x, x};
    if (shown_forward(tr, id, &sm.m, &acfg, &in, mc->average, lab->seq, err) !=
        0)
        goto done;

    // logits and the loss at the final parameters; with --grad, one more
    // backward pass
    const train_sentence shown = {ids, T};
    if (train_pass(&losses[steps], &logits, NULL, &model, id, &dims, &acfg,
                   &shown, NULL, err) != 0)
        goto done;
    const labels *words = lab->vocab;
    if (record_copy(tr, id, TABLE_LOGITS, false, lab->seq->tokens, words,
                    &logits, err) != 0)
        goto done;
    if (mc->grad) {
        // the same pass again, backward: every intermediate's gradient as
        // it is made, then every parameter's
        float again;
        grad_recorder rec = {tr, id, lab, err};
        const train_shown to = {record_grad, &rec};
        if (train_grad_model(&grads, &model, id, &dims, &acfg, err) != 0 ||
            train_pass(&again, NULL, &grads, &model, id, &dims, &acfg, &shown,
                       &to, err) != 0)
            goto done;
        if (steps > 0)
            grads_after_zero_grad(&grads, &dims, id);
        if (record_model(tr, id, true, &grads, &dims, lab, err) != 0)
            goto done;
    }
    // the loss last: --step and the page show the forward pass, the
    // backward pass, then the updates' losses (catalogue.h's steps)
    if (record_losses(tr, id, losses, steps, losses[steps], err) != 0 ||
        (mc->checkpoints && record_checkpoints(tr, &ck, err) != 0))
        goto done;
    rc = trace_flush(tr, err);
done:
    if (mc->grad && grads.module != NULL)
        train_grad_model_free(&grads, id);
    start_model_free(&sm, id);
    matrix_free(&logits);
    free(losses);
    free(ck.values);
    return rc;
}
