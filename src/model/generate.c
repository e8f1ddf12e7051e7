/* generate.c: the generation loop over a family's step (generate.h). */
#include "model/generate.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/decoded_text.h"
#include "model/generate_ablate.h"
#include "model/generate_maps.h"

/* The GENERATE_VIEW_TOP likeliest of p (V): the larger probability
 * first, then the smaller id; only tokens that could be picked
 * (probability above 0: the ones --sample's warpers left), so there may
 * be fewer. */
static void top_tokens(generated_token *t, const float *p, size_t V)
{
    size_t n = 0;
    for (size_t v = 0; v < V; v++) {
        if (!(p[v] > 0))
            continue;
        size_t at = n;
        while (at > 0 && p[v] > t->top_p[at - 1])
            at--;
        if (at >= GENERATE_VIEW_TOP)
            continue;
        if (n < GENERATE_VIEW_TOP)
            n++;
        memmove(t->top + at + 1, t->top + at, (n - 1 - at) * sizeof *t->top);
        memmove(t->top_p + at + 1, t->top_p + at,
                (n - 1 - at) * sizeof *t->top_p);
        t->top[at] = (int32_t)v;
        t->top_p[at] = p[v];
    }
    t->n_view_top = n;
    t->n_top = n < GENERATE_TOP ? n : GENERATE_TOP;
}

/* Whether the generated text (text[0..len)) ends with --stop's text. */
static bool ends_with(const char *text, size_t len, const char *stop)
{
    const size_t n = strlen(stop);
    return n > 0 && len >= n && memcmp(text + len - n, stop, n) == 0;
}

/* The stop text is found when it lies in the text the last token added
 * or straddles it: any end from before the token to its last byte. */
static bool found_stop(const char *text, size_t before, size_t len,
                       const char *stop)
{
    for (size_t end = before + 1; end <= len; end++)
        if (ends_with(text, end, stop))
            return true;
    return false;
}

/* Adds token's bytes to the new text so far, decoded as it is shown (a
 * character the token ends inside of held until it is whole:
 * decoded_text.h); *stopped: the text now holds stop. */
static int add_token_text(decoded_text *text, const generate_model *gm,
                          int32_t token, const char *stop, bool *stopped,
                          mx_error *err)
{
    unsigned char piece[1024];
    const size_t n = gm->bytes(gm->ctx, piece, sizeof piece, token);
    const size_t before = text->len;
    if (decoded_text_add(text, piece, n) != 0)
        return err_nomem(err, _("tokens"));
    *stopped = found_stop(text->s, before, text->len, stop);
    return 0;
}

/* Whether token is one of the model's end-of-text tokens. */
static bool is_end(const generate_model *gm, int32_t token)
{
    for (size_t i = 0; i < gm->n_more_ends; i++)
        if (token == gm->more_ends[i])
            return true;
    return token == gm->end;
}

/* ---- the steps' tables (--kv-steps) ----------------------------------- */

/* What the hooks of a step record: the step's number and the labels of
 * its rows, into tr. */
typedef struct {
    trace *tr;
    const generate_options *o; /* the layers and heads kept */
    int step;
    const labels *q;     /* the fed token's query row: "Q:<token>" */
    const labels *k, *v; /* every cached position: "K:<token>", "V:<token>" */
} step_recorder;

/* Whether i is in the n ranges (none: every i is). */
static bool in_ranges(const index_range *r, size_t n, size_t i)
{
    for (size_t k = 0; k < n; k++)
        if (r[k].lo <= i && i <= r[k].hi)
            return true;
    return n == 0;
}

/* A head's activation at `at` (q, k, v, scores, weights, context, and the
 * rotary positions' q and k) as the step's table; the rest (the layers'
 * norms, MLP, ...) is not kept. */
static int record_step(void *ctx, const table_key *at, const matrix *m,
                       mx_error *err)
{
    step_recorder *r = ctx;
    if (at->head == NO_HEAD || at->grad ||
        (r->o->weights_only && at->id != TABLE_ATTN_WEIGHTS) ||
        !in_ranges(r->o->layers, r->o->n_layers, (size_t)at->layer) ||
        !in_ranges(r->o->heads, r->o->n_heads, (size_t)at->head))
        return 0;
    const labels *dims = trace_index_labels(r->tr, "dim", m->cols, err);
    const labels *rows = NULL, *cols = dims;
    switch (at->id) {
    case TABLE_QUERIES:
    case TABLE_QUERIES_ROTATED:
    case TABLE_HEAD_CONTEXT:
        rows = r->q;
        break;
    case TABLE_KEYS:
    case TABLE_KEYS_ROTATED:
        rows = r->k;
        break;
    case TABLE_VALUES:
        rows = r->v;
        break;
    case TABLE_ATTN_SCORES:
    case TABLE_ATTN_WEIGHTS:
        rows = r->q;
        cols = r->k;
        break;
    default: // no dropout in generation
        return 0;
    }
    if (dims == NULL)
        return -1;
    // one token fed over the positions cached: (1 or S) x (hd or S)
    assert(rows->n == m->rows && cols->n == m->cols);
    table *t = trace_new_at(r->tr, at, r->step, rows, cols, err);
    if (t == NULL)
        return -1;
    // the fed token is the newest of the k->n positions cached
    t->first_query = r->k->n - 1;
    memcpy(t->values.v, m->v, m->rows * m->cols * sizeof *m->v);
    trace_release(r->tr, t);
    return 0;
}

/* The recorder's labels for a step that feeds seq[n - 1] over the n
 * positions seq (n). */
static int step_labels(step_recorder *r, const generate_model *gm,
                       const int32_t *seq, size_t n, mx_error *err)
{
    char **words = calloc(n, sizeof *words);
    int rc = words == NULL ? err_nomem(err, _("tokens")) : 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char piece[256];
        generate_token_label(piece, sizeof piece, gm, seq[i]);
        if ((words[i] = strdup(piece)) == NULL)
            rc = err_nomem(err, _("tokens"));
    }
    if (rc == 0) {
        const char *const *w = (const char *const *)words;
        r->q = trace_new_word_labels(r->tr, "Q:", w + n - 1, 1, err);
        r->k = r->q ? trace_new_word_labels(r->tr, "K:", w, n, err) : NULL;
        r->v = r->k ? trace_new_word_labels(r->tr, "V:", w, n, err) : NULL;
        rc = r->v != NULL ? 0 : -1;
    }
    for (size_t i = 0; words != NULL && i < n; i++)
        free(words[i]);
    free(words);
    return rc;
}

/* kv_cache_size (steps x 3) of a cache of L layers of width columns,
 * after each step: the positions it held (positions[s]), the keys' and
 * values' floats, their bytes. */
static int put_cache_size(trace *tr, variant_id v, const kv_cache *c,
                          const size_t *positions, size_t steps, mx_error *err)
{
    static const char *const columns[] = {"positions", "values", "bytes"};
    const labels *rows = trace_index_labels(tr, "step", steps, err);
    const labels *cols =
        rows ? trace_word_labels(tr, "", columns, 3, err) : NULL;
    const table_key key = {v, 0, NO_HEAD, TABLE_KV_CACHE_SIZE, false};
    table *t = cols != NULL ? trace_new(tr, &key, rows, cols, err) : NULL;
    if (t == NULL)
        return -1;
    t->stacked = false; /* the whole model's, not a block's (stack.h) */
    t->integral = true;
    for (size_t s = 0; s < steps; s++) {
        // keys and values, (L, positions, width) each
        const double values =
            2.0 * (double)c->n_layer * (double)positions[s] * (double)c->width;
        t->values.v[3 * s] = (float)positions[s];
        t->values.v[3 * s + 1] = (float)values;
        t->values.v[3 * s + 2] = (float)(values * sizeof(float));
    }
    trace_release(tr, t);
    return trace_flush(tr, err);
}

/* *t: step's token from logits (V) as o says, its probabilities and the
 * likeliest; an error naming the step when it cannot be drawn. */
static int pick(generated_token *t, sampling_room *room, const float *logits,
                const generate_options *o, torch_rng *g, size_t step,
                mx_error *err)
{
    if (!sampling_pick(&t->token, &t->effect, room, logits, &o->how, g)) {
        // finite logits turn infinite only divided by the temperature
        bool finite = true;
        for (size_t i = 0; i < room->V && finite; i++)
            finite = isfinite(logits[i]);
        if (finite)
            return err_input(
                err,
                _("--sample: at step %zu the logits divided by --temperature "
                  "%g overflow float32, so no token can be drawn (give a "
                  "larger temperature)"),
                step + 1, o->how.temperature);
        return err_input(err,
                         _("--sample: at step %zu the probabilities hold NaN "
                           "or infinity (the model's logits do), so no token "
                           "can be drawn"),
                         step + 1);
    }
    t->p = room->probs[t->token];
    t->p_logits = room->model_probs[t->token];
    top_tokens(t, room->probs, room->V);
    return 0;
}

int generate_run(generation *out, const generate_model *gm,
                 const generate_options *o, const int32_t *prompt, size_t T,
                 mx_error *err)
{
    *out = (generation){0};
    const size_t V = gm->vocab;
    float *logits = malloc(V * sizeof *logits);
    decoded_text text = {0};
    sampling_room room;
    if (logits == NULL || sampling_room_init(&room, V, err) != 0) {
        free(logits);
        return logits == NULL ? err_nomem(err, _("logits")) : -1;
    }
    out->tokens = calloc(o->n > 0 ? o->n : 1, sizeof *out->tokens);
    // the steps' tables: the sequence so far (its labels) and the
    // positions the cache held after each step
    const bool record = o->steps != NULL && gm->listen != NULL;
    int32_t *seq = record ? malloc((T + o->n) * sizeof *seq) : NULL;
    size_t *held = record ? malloc((o->n + 1) * sizeof *held) : NULL;
    size_t steps = 0;
    step_recorder rec = {.tr = o->steps, .o = o};
    // the heads switched off: the prompt's hooks, then every later step's
    generate_ablation ablation = {0};
    const bool ablated = o->n_replace > 0;
    const bool listens = (record || ablated) && gm->listen != NULL;
    int rc = -1;
    if (out->tokens == NULL || (record && (seq == NULL || held == NULL))) {
        err_nomem(err, _("tokens"));
        goto done;
    }
    if (generate_ablation_init(&ablation, o->replace, o->n_replace, err) != 0)
        goto done;
    const forward_hooks prompt_hooks = generate_ablation_prompt(&ablation);
    forward_hooks hooks = generate_ablation_later(&ablation);
    hooks.record = record ? record_step : NULL;
    hooks.ctx = &rec;
    assert(!ablated || gm->listen != NULL);
    if (ablated)
        gm->listen(gm->ctx, &prompt_hooks);
    if (record)
        memcpy(seq, prompt, T * sizeof *seq);
    // torch.manual_seed(seed), then model.generate(...)
    torch_rng g;
    rng_seed(&g, o->seed);
    if (gm->step(gm->ctx, logits, prompt, T, err) != 0)
        goto done;
    size_t positions = T;
    if (record)
        held[steps++] = positions;
    if (listens)
        gm->listen(gm->ctx, &hooks);
    out->end = GENERATE_END_LENGTH;
    for (size_t i = 0; i < o->n; i++) {
        generated_token *t = &out->tokens[out->n++];
        if (pick(t, &room, logits, o, &g, i, err) != 0) {
            out->n--;
            goto done;
        }
        t->positions = positions;
        if (is_end(gm, t->token)) {
            out->end = GENERATE_END_TOKEN;
            break;
        }
        if (o->stop != NULL) {
            bool stopped = false;
            if (add_token_text(&text, gm, t->token, o->stop, &stopped, err) !=
                0)
                goto done;
            if (stopped) {
                out->end = GENERATE_END_STOP;
                break;
            }
        }
        if (i + 1 == o->n)
            break;
        if (positions >= gm->context) {
            out->end = GENERATE_END_CONTEXT;
            break;
        }
        // the next step: one token over the kept cache
        if (record) {
            seq[positions] = t->token;
            rec.step = (int)(i + 1);
            if (step_labels(&rec, gm, seq, positions + 1, err) != 0)
                goto done;
        }
        if (gm->step(gm->ctx, logits, &t->token, 1, err) != 0)
            goto done;
        positions++;
        if (record) {
            held[steps++] = positions;
            if (trace_flush(o->steps, err) != 0)
                goto done;
        }
    }
    rc = record && gm->cache != NULL && !o->weights_only
             ? put_cache_size(o->steps,
                              o->variant != VARIANT_INPUT ? o->variant
                                                          : VARIANT_MODEL,
                              gm->cache, held, steps, err)
             : 0;
    // the pictures' tables: the heads' weights step by step, and each
    // chosen token's probability
    if (rc == 0 && record)
        rc = generation_put_maps(o->steps, gm, seq, T, steps - 1, out,
                                 o->variant, err);
done:
    if (listens)
        gm->listen(gm->ctx, NULL);
    generate_ablation_free(&ablation);
    free(seq);
    free(held);
    if (rc != 0)
        generation_free(out);
    decoded_text_free(&text);
    free(logits);
    sampling_room_free(&room);
    return rc;
}

/* Whether --tables (rq) keeps the steps' table id: it names it, or
 * names no table. */
static bool steps_keep(const run_request *rq, table_id id)
{
    for (size_t k = 0; k < rq->n_tables; k++)
        if (table_pick_row(&rq->tables[k]) == id)
            return true;
    return rq->n_tables == 0;
}

double generate_steps_values(const generate_steps_size *z,
                             const run_request *rq)
{
    if (!rq->kv_steps || z->n < 2 || z->T >= z->context)
        return 0;
    // step s = 1 .. S feeds the token picked before it over T + s
    // positions; the last token picked is not fed
    const double S =
        (double)(z->n - 1 < z->context - z->T ? z->n - 1 : z->context - z->T);
    const double P = S * (double)z->T + S * (S + 1) / 2; /* all the steps' */
    const double hd = (double)z->hd;
    // each table's values over every step: one row, or a row per position
    const struct {
        table_id id;
        double values;
        bool rotary;
    } parts[] = {
        {TABLE_QUERIES, S * hd, false},
        {TABLE_KEYS, P * hd, false},
        {TABLE_VALUES, P * hd, false},
        {TABLE_ATTN_SCORES, P, false},
        {TABLE_ATTN_WEIGHTS, P, false},
        {TABLE_HEAD_CONTEXT, S * hd, false},
        {TABLE_QUERIES_ROTATED, S * hd, true},
        {TABLE_KEYS_ROTATED, P * hd, true},
    };
    double per_head = 0;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if ((!parts[i].rotary || z->rotary) && steps_keep(rq, parts[i].id))
            per_head += parts[i].values;
    return per_head * (double)z->layers * (double)z->heads;
}

int generate_steps_fit(const generate_steps_size *z, const run_request *rq,
                       mx_error *err)
{
    const double values = generate_steps_values(z, rq);
    if (values <= (double)MAX_STEP_VALUES)
        return 0;
    return err_input(err,
                     _("--kv-steps: the steps' tables would hold about %.0f "
                       "million values, some %.1f GB as CSV (at most %zu "
                       "million): narrow them with --tables (attn_weights "
                       "alone), --layers, --show-heads or a smaller "
                       "--generate"),
                     values / 1e6, values * STEP_CSV_BYTES / 1e9,
                     MAX_STEP_VALUES / 1000000);
}

int generation_put_table(trace *tr, variant_id v, const generation *g,
                         const char *const *names, mx_error *err)
{
    return generation_put_as(tr, v, TABLE_GENERATED, g, names, err);
}

int generation_put_as(trace *tr, variant_id v, table_id id, const generation *g,
                      const char *const *names, mx_error *err)
{
    static const char *const columns[] = {
        "id",   "probability", "p_logits", "top_k_kept", "top_p_kept",
        "top1", "p1",          "top2",     "p2",         "top3",
        "p3",   "top4",        "p4",       "top5",       "p5"};
    _Static_assert(sizeof columns / sizeof *columns == 5 + 2 * GENERATE_TOP,
                   "a column per alternative and its probability");
    const size_t N = g->n, W = sizeof columns / sizeof *columns;
    for (size_t i = 0; i < N && tr->model.not_finite_at == 0; i++)
        if (!isfinite(g->tokens[i].p_logits))
            tr->model.not_finite_at = i + 1;
    // the names are the caller's, freed after the call: a set of their own
    const labels *rows = trace_new_word_labels(tr, "", names, N, err);
    const labels *cols =
        rows != NULL ? trace_word_labels(tr, "", columns, W, err) : NULL;
    const table_key key = {v, 0, NO_HEAD, id, false};
    table *t = cols != NULL ? trace_new(tr, &key, rows, cols, err) : NULL;
    if (t == NULL)
        return -1;
    t->stacked = false; /* the whole model's, not a block's (stack.h) */
    // the ids and the counts: id, top_k_kept, top_p_kept, top1 .. top5
    t->integral_cols = table_bit_col(0) | table_bit_col(3) | table_bit_col(4);
    for (size_t k = 0; k < GENERATE_TOP; k++)
        t->integral_cols |= table_bit_col(5 + 2 * k);
    for (size_t i = 0; i < N; i++) {
        const generated_token *gt = &g->tokens[i];
        float *row = t->values.v + i * W;
        row[0] = (float)gt->token;
        row[1] = gt->p;
        row[2] = gt->p_logits;
        row[3] = (float)gt->effect.after_top_k;
        row[4] = (float)gt->effect.after_top_p;
        for (size_t k = 0; k < GENERATE_TOP; k++) {
            row[5 + 2 * k] = k < gt->n_top ? (float)gt->top[k] : -1.0f;
            row[6 + 2 * k] = k < gt->n_top ? gt->top_p[k] : 0.0f;
        }
    }
    trace_release(tr, t);
    return 0;
}

int generation_put_top(trace *tr, variant_id v, const generation *g,
                       token_labeller label, const void *ctx, mx_error *err)
{
    static const char *const columns[] = {"id", "probability"};
    // as many rows at every step: the most tokens a step could pick
    // from, at most GENERATE_VIEW_TOP; a step with fewer (--sample's
    // warpers left fewer) fills the rest with "-", id -1, probability 0
    size_t k = 0;
    const size_t N = g->n;
    for (size_t i = 0; i < N; i++)
        if (g->tokens[i].n_view_top > k)
            k = g->tokens[i].n_view_top;
    char **names = calloc(N * k + 1, sizeof *names);
    int rc = names == NULL ? err_nomem(err, _("tokens")) : 0;
    for (size_t i = 0; rc == 0 && i < N * k; i++) {
        char piece[256] = "-";
        if (i % k < g->tokens[i / k].n_view_top)
            label(ctx, piece, sizeof piece, g->tokens[i / k].top[i % k]);
        if ((names[i] = strdup(piece)) == NULL)
            rc = err_nomem(err, _("tokens"));
    }
    const labels *rows =
        rc == 0 ? trace_new_word_labels(tr, "", (const char *const *)names,
                                        N * k, err)
                : NULL;
    const labels *cols =
        rows != NULL ? trace_word_labels(tr, "", columns, 2, err) : NULL;
    const table_key key = {v, 0, NO_HEAD, TABLE_GENERATED_TOP, false};
    table *t = cols != NULL ? trace_new(tr, &key, rows, cols, err) : NULL;
    if (t != NULL) {
        t->stacked = false; /* the whole model's, not a block's */
        t->integral_cols = table_bit_col(0);
        for (size_t i = 0; i < N * k; i++) {
            const generated_token *gt = &g->tokens[i / k];
            const bool there = i % k < gt->n_view_top;
            t->values.v[2 * i] = there ? (float)gt->top[i % k] : -1.0f;
            t->values.v[2 * i + 1] = there ? gt->top_p[i % k] : 0.0f;
        }
        trace_release(tr, t);
    }
    for (size_t i = 0; names != NULL && i < N * k; i++)
        free(names[i]);
    free(names);
    return t != NULL ? 0 : -1;
}
