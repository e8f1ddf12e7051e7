/* next_tokens.c: the likeliest next tokens of a model's logits
 * (next_tokens.h). */
#include "model/next_tokens.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"

int next_tokens_top(size_t *best, float *prob, size_t *n, const matrix *logits,
                    mx_error *err)
{
    const size_t T = logits->rows, V = logits->cols;
    const size_t K = V < NEXT_TOKENS_K ? V : NEXT_TOKENS_K;
    matrix probs = {0};
    // one row of probabilities at a time: the softmax of each row is its own
    if (matrix_alloc(&probs, 1, V, N_("logits"), err) != 0)
        return -1;
    for (size_t t = 0; t < T; t++) {
        const matrix row = {1, V, logits->v + t * V};
        softmax_rows(&probs, &row, 1.0f);
        const float *p = probs.v;
        size_t *top = best + t * K, have = 0;
        // insertion into the k best so far: the larger probability, then
        // the smaller id
        for (size_t v = 0; v < V; v++) {
            size_t at = have;
            while (at > 0 && p[v] > p[top[at - 1]])
                at--;
            if (at >= K)
                continue;
            if (have < K)
                have++;
            memmove(top + at + 1, top + at, (have - 1 - at) * sizeof *top);
            top[at] = v;
        }
        for (size_t k = 0; k < K; k++)
            prob[t * K + k] = p[top[k]];
    }
    *n = K;
    matrix_free(&probs);
    return 0;
}

int next_tokens_record(trace *tr, const table_key *key, const matrix *logits,
                       const labels *tokens, const labels *words, mx_error *err)
{
    const size_t T = logits->rows;
    size_t *best = calloc(T * NEXT_TOKENS_K + 1, sizeof *best);
    float *prob = calloc(T * NEXT_TOKENS_K + 1, sizeof *prob);
    char **names = calloc(T * NEXT_TOKENS_K + 1, sizeof *names);
    size_t K = 0;
    int rc = -1;
    if (best == NULL || prob == NULL || names == NULL) {
        err_nomem(err, _("tokens"));
        goto out;
    }
    if (next_tokens_top(best, prob, &K, logits, err) != 0)
        goto out;
    for (size_t i = 0; i < T * K; i++) {
        const char *now = tokens->s[i / K], *next = words->s[best[i]];
        const size_t len = strlen(now) + strlen(next) + sizeof " \u2192 ";
        if ((names[i] = malloc(len)) == NULL) {
            err_nomem(err, _("tokens"));
            goto out;
        }
        snprintf(names[i], len, "%s \u2192 %s", now, next);
    }
    const labels *rows =
        trace_word_labels(tr, "", (const char *const *)names, T * K, err);
    const labels *col = trace_literal_label(tr, "probability", err);
    table *t =
        rows != NULL && col != NULL ? trace_new(tr, key, rows, col, err) : NULL;
    if (t != NULL) {
        memcpy(t->values.v, prob, T * K * sizeof *prob);
        rc = 0;
    }
out:
    for (size_t i = 0; names != NULL && i < T * K; i++)
        free(names[i]);
    free(names);
    free(best);
    free(prob);
    return rc;
}
