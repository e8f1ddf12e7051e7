/* transformer_block_backward.c: the Transformer block's backward pass
 * beside its forward (transformer_block.h).
 *
 *   forward (norm after)                 backward, in autograd's order
 *   sum1 = x + attn_out                  norm2: dsum2
 *   add_norm1 = norm1(sum1)              ffn: ff.2, the ReLU, ff.0
 *   ffn_hidden, ffn_out = ffn(add_norm1) add_norm1's: residual + ff.0's
 *   sum2 = add_norm1 + ffn_out           norm1: dattn (= dsum1)
 *   out = norm2(sum2)
 *
 * Shapes: T tokens, D the model's width, F the network's.
 */
#include "model/layers/transformer_block.h"

#include "model/layers/layer_norm.h"

void block_layer_backward(matrix *dattn, const block_grads *g,
                          const block_room *r, const block_saved *s,
                          const matrix *dout, const grad_points *gp,
                          workers *pool)
{
    const size_t n = s->norm1->rows * s->norm1->cols;
    // norm2: dsum2 (T, D)
    layer_norm_backward(r->dsum2, g->dnorm2_weight, g->dnorm2_bias, dout,
                        s->sum2, s->mean2, s->rstd2, g->norm2_weight);
    // the feed-forward network: its part of add_norm1's gradient, added
    // to the residual's
    mlp_backward(r->dnorm1, r->dhidden, &g->ffn, r->dyt_d, r->dyt_f, r->dsum2,
                 s->norm1, s->hidden, gp, pool);
    for (size_t i = 0; i < n; i++)
        r->dnorm1->v[i] = r->dsum2->v[i] + r->dnorm1->v[i];
    grad_point(gp, TABLE_ADD_NORM1, r->dnorm1);
    // norm1: dattn (T, D), the residual's part of x's gradient and the
    // attention's output's
    layer_norm_backward(dattn, g->dnorm1_weight, g->dnorm1_bias, r->dnorm1,
                        s->sum1, s->mean1, s->rstd1, g->norm1_weight);
    grad_point(gp, TABLE_ATTN_OUT, dattn);
}
