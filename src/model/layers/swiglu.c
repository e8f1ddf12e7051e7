/* swiglu.c: LlamaMLP's gated feed-forward network (swiglu.h). */
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

void swiglu_forward(matrix *hidden, matrix *out, matrix *up, const matrix *x,
                    const swiglu *s, workers *pool)
{
    const size_t n = hidden->rows * hidden->cols;
    dense_forward(hidden, x, &s->gate, pool);
    silu_row(hidden->v, n);
    dense_forward(up, x, &s->up, pool);
    for (size_t i = 0; i < n; i++)
        hidden->v[i] *= up->v[i];
    dense_forward(out, hidden, &s->down, pool);
}
