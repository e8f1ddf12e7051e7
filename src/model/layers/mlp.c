/* mlp.c: the feed-forward network of a block (mlp.h).
 *
 * Shapes: T tokens, D the model's width, F the network's.
 */
#include "model/layers/mlp.h"

#include "numerics/gelu.h"
#include "numerics/gelu_erf.h"

int mlp_forward(matrix *out, matrix *hidden, const matrix *x, const mlp *f,
                const forward_hooks *hk, const table_key *at, workers *pool,
                mx_error *err)
{
    // ffn_hidden (T, F) = act(x (T, D) @ fc + b)
    dense_forward(hidden, x, &f->fc, pool);
    if (f->act == ACT_RELU)
        relu(hidden);
    else if (f->act == ACT_GELU_NEW)
        gelu_new(hidden->v, hidden->rows * hidden->cols);
    else
        gelu_erf(hidden->v, hidden->rows * hidden->cols);
    if (hk != NULL) {
        const table_key key = hook_at(at, TABLE_FFN_HIDDEN);
        if (hook_point(hk, &key, hidden, err) != 0)
            return -1;
    }
    // ffn_out (T, D) = ffn_hidden (T, F) @ proj + b
    dense_forward(out, hidden, &f->proj, pool);
    if (hk != NULL) {
        const table_key key = hook_at(at, TABLE_FFN_OUT);
        return hook_point(hk, &key, out, err);
    }
    return 0;
}
