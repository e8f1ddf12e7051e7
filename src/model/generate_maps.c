/* generate_maps.c: the tables --plot draws of a generation (generate.h):
 * each head's attention growing a row per step, and each chosen token's
 * probability. */
#include "model/generate_maps.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"

/* The labels of the n positions seq (n), with prefix: the first T the
 * prompt's tokens as they are, the later ones (generated) between the
 * marks of the new text, "⟦token⟧". */
static const labels *position_labels(trace *tr, const generate_model *gm,
                                     const char *prefix, const int32_t *seq,
                                     size_t n, size_t T, mx_error *err)
{
    char **words = calloc(n > 0 ? n : 1, sizeof *words);
    int rc = words == NULL ? err_nomem(err, _("tokens")) : 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char piece[256], word[300];
        generate_token_label(piece, sizeof piece, gm, seq[i]);
        snprintf(word, sizeof word, i < T ? "%s" : "\u27e6%s\u27e7", piece);
        if ((words[i] = strdup(word)) == NULL)
            rc = err_nomem(err, _("tokens"));
    }
    const labels *l =
        rc == 0 ? trace_new_word_labels(tr, prefix, (const char *const *)words,
                                        n, err)
                : NULL;
    for (size_t i = 0; words != NULL && i < n; i++)
        free(words[i]);
    free(words);
    return l;
}

/* attn_weights_generated of layer L, head h (R x R, R = T + S): row i < T
 * the prompt's attn_weights row i, row T + s - 1 step s's weights (1 x T
 * + s); the later keys a row cannot see are NaN, the masked cells of the
 * catalogue's MASK_LATER (the picture draws them masked; text and CSV
 * print the weight 0 of a masked key, trace_cell). Nothing when a part
 * is not in the trace (the layer or head not kept). */
static int put_head(trace *tr, const table *prompt, size_t T, size_t S,
                    const labels *rows, const labels *cols, mx_error *err)
{
    const size_t R = T + S;
    const table **step = malloc((S > 0 ? S : 1) * sizeof *step);
    if (step == NULL)
        return err_nomem(err, _("the trace"));
    bool all = true;
    for (size_t s = 1; all && s <= S; s++) {
        const table_key at = {prompt->variant, prompt->layer, prompt->head,
                              TABLE_ATTN_WEIGHTS, false};
        step[s - 1] = trace_find_step(tr, &at, (int)s);
        all = step[s - 1] != NULL && step[s - 1]->values.v != NULL &&
              step[s - 1]->values.cols == T + s;
    }
    const table_key key = {prompt->variant, prompt->layer, prompt->head,
                           TABLE_ATTN_WEIGHTS_GENERATED, false};
    table *t = all ? trace_new(tr, &key, rows, cols, err) : NULL;
    if (t == NULL) {
        free(step);
        return all ? -1 : 0;
    }
    t->stacked = prompt->stacked;
    for (size_t i = 0; i < R * R; i++)
        t->values.v[i] = NAN;
    // a causal prompt's weights are 0 above the diagonal: masked here
    for (size_t i = 0; i < T; i++)
        memcpy(t->values.v + i * R, prompt->values.v + i * T,
               (i + 1) * sizeof *t->values.v);
    for (size_t s = 1; s <= S; s++)
        memcpy(t->values.v + (T + s - 1) * R, step[s - 1]->values.v,
               (T + s) * sizeof *t->values.v);
    free(step);
    trace_release(tr, t);
    return 0;
}

/* generated_p (1 x N): each chosen token's probability where it was
 * picked, the columns labelled with the tokens. */
static int put_probabilities(trace *tr, variant_id v, const generate_model *gm,
                             const generation *g, mx_error *err)
{
    int32_t *ids = malloc((g->n > 0 ? g->n : 1) * sizeof *ids);
    if (ids == NULL)
        return err_nomem(err, _("tokens"));
    for (size_t i = 0; i < g->n; i++)
        ids[i] = g->tokens[i].token;
    const labels *cols = position_labels(tr, gm, "", ids, g->n, 0, err);
    free(ids);
    const labels *row =
        cols != NULL ? trace_literal_label(tr, "probability", err) : NULL;
    const table_key key = {v, 0, NO_HEAD, TABLE_GENERATED_P, false};
    table *t = row != NULL ? trace_new(tr, &key, row, cols, err) : NULL;
    if (t == NULL)
        return -1;
    t->stacked = false; /* the whole model's, not a block's (stack.h) */
    for (size_t i = 0; i < g->n; i++)
        t->values.v[i] = g->tokens[i].p;
    trace_release(tr, t);
    return 0;
}

int generation_put_maps(trace *tr, const generate_model *gm, const int32_t *seq,
                        size_t T, size_t S, const generation *g, variant_id v,
                        mx_error *err)
{
    if (g->n == 0)
        return 0;
    const size_t R = T + S;
    const labels *rows = position_labels(tr, gm, "Q:", seq, R, T, err);
    const labels *cols =
        rows != NULL ? position_labels(tr, gm, "K:", seq, R, T, err) : NULL;
    if (cols == NULL)
        return -1;
    // every head whose prompt's weights the trace kept, in its order
    const size_t n = trace_count(tr);
    for (size_t i = 0; i < n; i++) {
        const table *t = trace_at(tr, i);
        if (t->id != TABLE_ATTN_WEIGHTS || t->grad || t->step != 0 ||
            t->head == NO_HEAD || t->values.v == NULL || t->values.rows != T ||
            t->values.cols != T || (v != VARIANT_INPUT && t->variant != v))
            continue;
        if (put_head(tr, t, T, S, rows, cols, err) != 0)
            return -1;
    }
    if (put_probabilities(tr, v != VARIANT_INPUT ? v : VARIANT_MODEL, gm, g,
                          err) != 0)
        return -1;
    return trace_flush(tr, err);
}
