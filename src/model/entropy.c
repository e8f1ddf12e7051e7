/* entropy.c: the model view, attn_entropy (entropy.h).
 *
 * Shapes: T queries, S keys, L layers, H heads.
 */
#include "model/entropy.h"

#include <math.h>
#include <string.h>

float attn_mean_entropy(const matrix *weights)
{
    double total = 0;
    for (size_t i = 0; i < weights->rows; i++) {
        // -sum p ln p over the row's p > 0 (a masked cell is 0)
        double h = 0;
        for (size_t j = 0; j < weights->cols; j++) {
            const double p = *matrix_at(weights, i, j);
            if (p > 0)
                h -= p * log(p);
        }
        total += h;
    }
    return (float)(total / (double)weights->rows);
}

table *attn_entropy_record(trace *tr, const table_key *key,
                           const char *layer_prefix, const matrix *entropy,
                           mx_error *err)
{
    // (L, H): a row per layer, a column per head
    const labels *rows =
        trace_index_labels(tr, layer_prefix, entropy->rows, err);
    const labels *cols = trace_index_labels(tr, "", entropy->cols, err);
    table *t = rows == NULL || cols == NULL
                   ? NULL
                   : trace_new(tr, key, rows, cols, err);
    if (t == NULL)
        return NULL;
    memcpy(t->values.v, entropy->v,
           entropy->rows * entropy->cols * sizeof *entropy->v);
    t->summary = 2;
    trace_release(tr, t);
    return t;
}
