/* dense.c: nn.Linear and Conv1D, one affine layer (dense.h). */
#include "model/layers/dense.h"

#include "numerics/matmul.h"

dense dense_of_linear(const linear *l)
{
    return (dense){.weight = l->weight.v,
                   .bias = l->bias.v,
                   .in = l->weight.cols,
                   .out = l->weight.rows,
                   .conv1d = false};
}

dense dense_linear(const float *weight, const float *bias, size_t in,
                   size_t out)
{
    return (dense){weight, bias, in, out, false};
}

void dense_forward(matrix *y, const matrix *x, const dense *l, workers *pool)
{
    // y (T, out) = x (T, in) @ W^T + b (nn.Linear: W is b^T, packed by
    // matmul_run into panels once) or addmm(b, x, W) (Conv1D)
    const matmul_problem p = {
        .M = x->rows,
        .N = l->out,
        .K = x->cols,
        .a = x->v,
        .lda = x->cols,
        .b = l->weight,
        .ldb = l->conv1d ? l->out : l->in,
        .b_transposed = !l->conv1d,
        .bias = l->bias,
        .bias_first = l->conv1d,
        .c = y->v,
        .ldc = y->cols,
        .shape = MATMUL_FULL,
    };
    matmul_run(&p, matmul_kernel_best(), pool);
}

void linear_layer_forward(matrix *y, const matrix *x, const linear *l,
                          workers *pool)
{
    const dense d = dense_of_linear(l);
    dense_forward(y, x, &d, pool);
}

void qkv_forward(matrix *q, matrix *k, matrix *v, const qkv *p, const matrix *x,
                 const matrix *kv, workers *pool)
{
    linear_layer_forward(q, x, &p->query, pool);
    linear_layer_forward(k, kv, &p->key, pool);
    linear_layer_forward(v, kv, &p->value, pool);
}
