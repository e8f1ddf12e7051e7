/* swiglu.c: LlamaMLP's gated feed-forward network (swiglu.h).
 *
 * Shapes: T tokens, D the model's width, F the network's.
 */
#include "model/layers/swiglu.h"

#include <math.h>

#include "numerics/vecmath.h"

void silu_row(float *x, size_t n)
{
    // cpu_kernel_vec: whole pairs of 8-lane vectors, then the rest scalar
    const size_t vectors = n / 16 * 16;
    for (size_t i = 0; i < vectors; i++)
        x[i] = x[i] / (1.0f + sleef_expf(-x[i]));
    for (size_t i = vectors; i < n; i++)
        x[i] = x[i] / (1.0f + expf(-x[i]));
}

/* The hook point of table id over m. */
static int point(const forward_hooks *hk, const table_key *at, table_id id,
                 matrix *m, mx_error *err)
{
    if (hk == NULL)
        return 0;
    const table_key key = hook_at(at, id);
    return hook_point(hk, &key, m, err);
}

int swiglu_forward(matrix *out, matrix *hidden, matrix *up, const matrix *x,
                   const swiglu *s, const forward_hooks *hk,
                   const table_key *at, workers *pool, mx_error *err)
{
    // ffn_hidden (T, F) = silu(gate_proj(x)) * up_proj(x)
    const size_t n = hidden->rows * hidden->cols;
    dense_forward(hidden, x, &s->gate, pool);
    silu_row(hidden->v, n);
    dense_forward(up, x, &s->up, pool);
    for (size_t i = 0; i < n; i++)
        hidden->v[i] *= up->v[i];
    if (point(hk, at, TABLE_FFN_HIDDEN, hidden, err) != 0)
        return -1;
    // ffn_out (T, D) = down_proj(ffn_hidden)
    dense_forward(out, hidden, &s->down, pool);
    return point(hk, at, TABLE_FFN_OUT, out, err);
}
