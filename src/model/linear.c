/* linear.c: nn.Linear and the query, key and value projections. */
#include "model/linear.h"

#include <string.h>

#include "base/i18n.h"

void linear_free(linear *l)
{
    matrix_free(&l->weight);
    matrix_free(&l->bias);
}

int linear_init(linear *l, size_t in, size_t out, bool bias, torch_rng *g,
                mx_error *err)
{
    memset(l, 0, sizeof *l);
    if (matrix_alloc(&l->weight, out, in, N_("a weight"), err) != 0)
        return -1;
    if (bias && matrix_alloc(&l->bias, 1, out, N_("a bias"), err) != 0) {
        linear_free(l);
        return -1;
    }
    rng_linear_init(l->weight.v, l->bias.v, in, out, g);
    return 0;
}

void qkv_free(qkv *p)
{
    linear_free(&p->query);
    linear_free(&p->key);
    linear_free(&p->value);
}

int qkv_init(qkv *p, size_t d_model, size_t width, bool bias, torch_rng *g,
             mx_error *err)
{
    memset(p, 0, sizeof *p);
    if (linear_init(&p->query, d_model, width, bias, g, err) != 0 ||
        linear_init(&p->key, d_model, width, bias, g, err) != 0 ||
        linear_init(&p->value, d_model, width, bias, g, err) != 0) {
        qkv_free(p);
        return -1;
    }
    return 0;
}
