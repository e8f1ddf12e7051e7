/* generate.c: the generation loop over a family's step (generate.h). */
#include "model/generate.h"

#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"

void generation_free(generation *g)
{
    free(g->tokens);
    *g = (generation){0};
}

/* The GENERATE_TOP likeliest of p (V): the larger probability first, then
 * the smaller id. */
static void top_tokens(generated_token *t, const float *p, size_t V)
{
    size_t n = 0;
    for (size_t v = 0; v < V; v++) {
        size_t at = n;
        while (at > 0 && p[v] > t->top_p[at - 1])
            at--;
        if (at >= GENERATE_TOP)
            continue;
        if (n < GENERATE_TOP)
            n++;
        memmove(t->top + at + 1, t->top + at, (n - 1 - at) * sizeof *t->top);
        memmove(t->top_p + at + 1, t->top_p + at,
                (n - 1 - at) * sizeof *t->top_p);
        t->top[at] = (int32_t)v;
        t->top_p[at] = p[v];
    }
    t->n_top = n;
}

/* Whether the generated text (its bytes so far, text[0..len)) ends with
 * --stop's text. */
static bool ends_with(const unsigned char *text, size_t len, const char *stop)
{
    const size_t n = strlen(stop);
    return n > 0 && len >= n && memcmp(text + len - n, stop, n) == 0;
}

/* The stop text is found when it lies in the bytes the last token added
 * or straddles them: any end from before the token to its last byte. */
static bool found_stop(const unsigned char *text, size_t before, size_t len,
                       const char *stop)
{
    for (size_t end = before + 1; end <= len; end++)
        if (ends_with(text, end, stop))
            return true;
    return false;
}

int generate_run(generation *out, const generate_model *gm,
                 const generate_options *o, const int32_t *prompt, size_t T,
                 mx_error *err)
{
    *out = (generation){0};
    const size_t V = gm->vocab;
    float *logits = malloc(V * sizeof *logits);
    unsigned char *text = NULL;
    size_t text_len = 0, text_cap = 0;
    sampling_room room;
    if (logits == NULL || sampling_room_init(&room, V, err) != 0) {
        free(logits);
        return logits == NULL ? err_nomem(err, _("logits")) : -1;
    }
    out->tokens = calloc(o->n > 0 ? o->n : 1, sizeof *out->tokens);
    int rc = -1;
    if (out->tokens == NULL) {
        err_nomem(err, _("tokens"));
        goto done;
    }
    // torch.manual_seed(seed), then model.generate(...)
    torch_rng g;
    rng_seed(&g, o->seed);
    if (gm->step(gm->ctx, logits, prompt, T, err) != 0)
        goto done;
    size_t positions = T;
    out->end = GENERATE_END_LENGTH;
    for (size_t i = 0; i < o->n; i++) {
        generated_token *t = &out->tokens[out->n++];
        sampling_pick(&t->token, &t->effect, &room, logits, &o->how, &g);
        t->p = room.probs[t->token];
        t->p_logits = room.model_probs[t->token];
        t->positions = positions;
        top_tokens(t, room.probs, V);
        if (t->token == gm->end) {
            out->end = GENERATE_END_TOKEN;
            break;
        }
        if (o->stop != NULL) {
            unsigned char piece[1024];
            const size_t n = gm->bytes(gm->ctx, piece, sizeof piece, t->token);
            if (text_len + n > text_cap) {
                const size_t cap = 2 * (text_len + n) + 64;
                unsigned char *grown = realloc(text, cap);
                if (grown == NULL) {
                    err_nomem(err, _("tokens"));
                    goto done;
                }
                text = grown;
                text_cap = cap;
            }
            memcpy(text + text_len, piece, n);
            const size_t before = text_len;
            text_len += n;
            if (found_stop(text, before, text_len, o->stop)) {
                out->end = GENERATE_END_STOP;
                break;
            }
        }
        if (i + 1 == o->n)
            break;
        if (positions == gm->context) {
            out->end = GENERATE_END_CONTEXT;
            break;
        }
        // the next step: one token over the kept cache
        if (gm->step(gm->ctx, logits, &t->token, 1, err) != 0)
            goto done;
        positions++;
    }
    rc = 0;
done:
    if (rc != 0)
        generation_free(out);
    free(text);
    free(logits);
    sampling_room_free(&room);
    return rc;
}

int generation_put_table(trace *tr, variant_id v, const generation *g,
                         const char *const *names, mx_error *err)
{
    static const char *const columns[] = {
        "id",   "probability", "p_logits", "top_k_kept", "top_p_kept",
        "top1", "p1",          "top2",     "p2",         "top3",
        "p3",   "top4",        "p4",       "top5",       "p5"};
    _Static_assert(sizeof columns / sizeof *columns == 5 + 2 * GENERATE_TOP,
                   "a column per alternative and its probability");
    const size_t N = g->n, W = sizeof columns / sizeof *columns;
    // the names are the caller's, freed after the call: a set of their own
    const labels *rows = trace_new_word_labels(tr, "", names, N, err);
    const labels *cols =
        rows != NULL ? trace_word_labels(tr, "", columns, W, err) : NULL;
    const table_key key = {v, 0, NO_HEAD, TABLE_GENERATED, false};
    table *t = cols != NULL ? trace_new(tr, &key, rows, cols, err) : NULL;
    if (t == NULL)
        return -1;
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
