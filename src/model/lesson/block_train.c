/* block_train.c: the Transformer block's pass for --train (block.h),
 * its forward as block_forward computes it with what the backward reads
 * kept, then its backward in the order PyTorch's autograd runs it.
 *
 *   attn_out = attention(x)                  (the fused module)
 *   sum1 = x + attn_out,  add_norm1 = norm1(sum1)
 *   ffn_hidden = relu(add_norm1 @ ff.0^T + b0),  ffn_out = ffn_hidden @
 *   ff.2^T + b2
 *   sum2 = add_norm1 + ffn_out,  out = norm2(sum2)
 *
 * Backward: the block's (transformer_block.h: norm2, then ff.2, the ReLU
 * and ff.0; add_norm1's gradient is the residual's plus ff.0's; norm1);
 * then x's gradient is the residual's, plus the attention's W_value part
 * and its other two in the order its class computes them (dense.h).
 * Shapes: T tokens, D = d_model, F the feed-forward width.
 */
#include "model/lesson/block.h"

#include <stdlib.h>
#include <string.h>

#include "model/lesson/stack.h"
#include "model/lesson/train_parts.h"

/* What the block's forward keeps for its backward pass: the attention's
 * tape and the block's tables. */
typedef struct {
    fused_tape at;
    const fused_params *attention;
    const attention_config *cfg;
    matrix *norm1, *hidden, *ffn, *out;
} block_tape;

/* The attention sublayer: the fused module's forward, its tape kept. */
static int tape_attend(void *ctx, const matrix **out, const matrix *x,
                       mx_error *err)
{
    block_tape *t = ctx;
    if (fused_tape_forward(&t->at, t->attention, t->cfg, x, err) != 0)
        return -1;
    *out = &t->at.out;
    return 0;
}

/* Where the block's tables lie: the pass's working matrices. */
static matrix *tape_table(void *ctx, table_id id, mx_error *err)
{
    (void)err;
    const block_tape *t = ctx;
    return id == TABLE_ADD_NORM1    ? t->norm1
           : id == TABLE_FFN_HIDDEN ? t->hidden
           : id == TABLE_FFN_OUT    ? t->ffn
                                    : t->out;
}

/* A grad_points function: the block's gradients to the top layer's
 * shown (ctx), as tables outside the heads. */
static void show_block_grad(void *ctx, table_id id, const matrix *g)
{
    show_grad(ctx, id, NO_HEAD, g);
}

int block_pass(matrix *dx, void *grad, const void *module,
               const attention_config *cfg, const matrix *x, top_layer *top,
               mx_error *err)
{
    // a trained block is a stack of one (training refuses --layers)
    const block_params *p = &((const block_stack *)module)->blocks[0];
    const size_t T = x->rows, D = x->cols, F = p->ff0.weight.rows;
    scratch s = {0};
    matrix sum1 = {0}, norm1 = {0}, hidden = {0}, ffn = {0}, sum2 = {0},
           out = {0}, dout = {0}, dsum2 = {0}, dhidden = {0}, dnorm1 = {0},
           dsum1 = {0}, dyt_d = {0}, dyt_f = {0}, stats = {0};
    block_tape tape = {.attention = &p->attention,
                       .cfg = cfg,
                       .norm1 = &norm1,
                       .hidden = &hidden,
                       .ffn = &ffn,
                       .out = &out};
    fused_tape *at = &tape.at;
    int rc = -1;
    matrix *td[] = {&sum1, &norm1, &ffn,    &sum2, &out,
                    &dout, &dsum2, &dnorm1, &dsum1};
    for (size_t i = 0; i < sizeof td / sizeof *td; i++)
        if (scratch_alloc(&s, td[i], T, D, err) != 0)
            goto done;
    // stats (4, T): mean and rstd of norm1, then of norm2
    if (scratch_alloc(&s, &hidden, T, F, err) ||
        scratch_alloc(&s, &dhidden, T, F, err) ||
        scratch_alloc(&s, &dyt_d, D, T, err) ||
        scratch_alloc(&s, &dyt_f, F, T, err) ||
        scratch_alloc(&s, &stats, 4, T, err))
        goto done;
    float *mean1 = matrix_at(&stats, 0, 0), *rstd1 = matrix_at(&stats, 1, 0);
    float *mean2 = matrix_at(&stats, 2, 0), *rstd2 = matrix_at(&stats, 3, 0);

    // the forward pass, as the block's (transformer_block.h) without
    // dropout, keeping the attention's tape, both residual sums and the
    // norms' means and rstds:
    //   add_norm1 (T, D) = LayerNorm(x + attn_out)
    //   ffn_hidden (T, F) = ReLU(add_norm1 @ ff.0^T + b0), ffn_out (T, D)
    //   out (T, D) = LayerNorm(add_norm1 + ffn_out)
    block_layer b = block_layer_of(p, cfg);
    b.dropout = 0;
    const block_attention attn = {tape_attend, &tape};
    const block_store store = {.get = tape_table,
                               .ctx = &tape,
                               .sum1 = &sum1,
                               .sum2 = &sum2,
                               .mean1 = mean1,
                               .rstd1 = rstd1,
                               .mean2 = mean2,
                               .rstd2 = rstd2};
    const matrix *y;
    if (block_layer_forward(&y, &b, &attn, &store, x, NULL, NULL, cfg->pool,
                            err) != 0)
        goto done;
    if (top_pass(&dout, top, &out, cfg->pool, err) != 0)
        goto done;
    if (top->dlm_head == NULL) {
        rc = 0;
        goto done;
    }

    block_params *g = &((block_stack *)grad)->blocks[0];
    show_grad(top, TABLE_OUT, NO_HEAD, &dout);
    // the block's backward (transformer_block.h): norm2, the feed-forward
    // network, norm1, into dsum1 (T, D), the gradient of x + attn_out
    const block_grads bg = {
        .norm1_weight = p->norm1_weight.v,
        .norm2_weight = p->norm2_weight.v,
        .dnorm1_weight = g->norm1_weight.v,
        .dnorm1_bias = g->norm1_bias.v,
        .dnorm2_weight = g->norm2_weight.v,
        .dnorm2_bias = g->norm2_bias.v,
        .ffn = {
            .fc = &p->ff0, .proj = &p->ff2, .dfc = &g->ff0, .dproj = &g->ff2}};
    const block_room room = {.dsum2 = &dsum2,
                             .dnorm1 = &dnorm1,
                             .dhidden = &dhidden,
                             .dyt_d = &dyt_d,
                             .dyt_f = &dyt_f};
    const block_saved saved = {.sum1 = &sum1,
                               .norm1 = &norm1,
                               .hidden = &hidden,
                               .sum2 = &sum2,
                               .mean1 = mean1,
                               .rstd1 = rstd1,
                               .mean2 = mean2,
                               .rstd2 = rstd2};
    const grad_points gp = {show_block_grad, top};
    block_layer_backward(&dsum1, &bg, &room, &saved, &dout, &gp, cfg->pool);
    // x's gradient: the residual's, then the attention's
    memcpy(dx->v, dsum1.v, T * D * sizeof(float));
    fused_tape_backward(dx, false, &g->attention, at, &p->attention, &dsum1,
                        cfg, x, top);
    rc = 0;
done:
    fused_tape_free(at);
    scratch_free(&s);
    return rc;
}
