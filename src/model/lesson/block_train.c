/* block_train.c: the Transformer blocks' pass for --train (block.h,
 * stack.h), each block's forward as block_forward computes it with what
 * its backward reads kept, then the backward in the order PyTorch's
 * autograd runs it: the last block's first, each block's dx the dout of
 * the block before.
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
 * The attention-only block (--attn-only): out = x + attn_out; its
 * backward hands dout to the residual (x's gradient first) and to the
 * attention, whose parts x's gradient then adds.
 *
 * Shapes: T tokens, D = d_model, F the feed-forward width.
 */
#include "model/lesson/block.h"

#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/lesson/stack.h"
#include "model/lesson/train_parts.h"

/* What one block's forward keeps for its backward pass: the attention's
 * tape, the block's tables, its residual sums and its norms' means and
 * rstds (stats (4, T): norm1's, then norm2's). */
typedef struct {
    scratch s;
    fused_tape at;
    const block_params *p;
    const attention_config *cfg;
    const matrix *x; /* the block's input (T, D) */
    matrix sum1, norm1, hidden, ffn, sum2, out, stats;
} block_tape;

/* The attention sublayer: the fused module's forward, its tape kept. */
static int tape_attend(void *ctx, const matrix **out, const matrix *x,
                       mx_error *err)
{
    block_tape *t = ctx;
    if (fused_tape_forward(&t->at, &t->p->attention, t->cfg, x, err) != 0)
        return -1;
    *out = &t->at.out;
    return 0;
}

/* A grad_points function: the block's gradients to the top layer's
 * shown (ctx), as tables outside the heads. */
static void show_block_grad(void *ctx, table_id id, const matrix *g)
{
    show_grad(ctx, id, NO_HEAD, g);
}

/* Block p's forward over x (T, D) into t->out (T, D), as the block's
 * (transformer_block.h) without dropout, keeping what its backward reads:
 *   add_norm1 (T, D) = LayerNorm(x + attn_out)
 *   ffn_hidden (T, F) = ReLU(add_norm1 @ ff.0^T + b0), ffn_out (T, D)
 *   out (T, D) = LayerNorm(add_norm1 + ffn_out)
 * or, attention only, out (T, D) = x + attn_out. t must be zeroed. */
static int tape_forward(block_tape *t, const block_params *p,
                        const attention_config *cfg, const matrix *x,
                        mx_error *err)
{
    const size_t T = x->rows, D = x->cols;
    t->p = p;
    t->cfg = cfg;
    t->x = x;
    if (scratch_alloc(&t->s, &t->out, T, D, err) != 0)
        return -1;
    // attention only: out alone (t's other matrices stay empty)
    const size_t F = p->ff0.weight.rows;
    matrix *td[] = {&t->sum1, &t->norm1, &t->ffn, &t->sum2};
    for (size_t i = 0; !p->attn_only && i < sizeof td / sizeof *td; i++)
        if (scratch_alloc(&t->s, td[i], T, D, err) != 0)
            return -1;
    if (!p->attn_only && (scratch_alloc(&t->s, &t->hidden, T, F, err) ||
                          scratch_alloc(&t->s, &t->stats, 4, T, err)))
        return -1;
    block_layer b = block_layer_of(p, cfg);
    b.dropout = 0;
    const block_attention attn = {tape_attend, t};
    // where the block's tables lie: the tape's working matrices
    block_store store = {.sum1 = &t->sum1, .sum2 = &t->sum2};
    store.table[BLOCK_ADD_NORM1] = &t->norm1;
    store.table[BLOCK_FFN_HIDDEN] = &t->hidden;
    store.table[BLOCK_FFN_OUT] = &t->ffn;
    store.table[BLOCK_OUT] = &t->out;
    if (!p->attn_only) {
        store.mean1 = matrix_at(&t->stats, 0, 0);
        store.rstd1 = matrix_at(&t->stats, 1, 0);
        store.mean2 = matrix_at(&t->stats, 2, 0);
        store.rstd2 = matrix_at(&t->stats, 3, 0);
    }
    const matrix *y;
    return block_layer_forward(&y, &b, &attn, &store, x, NULL, NULL, cfg->pool,
                               err);
}

/* Block t's backward from dout (T, D) into g's gradients and dx (T, D),
 * its tables' gradients shown under top->layer. */
static int tape_backward(matrix *dx, block_params *g, block_tape *t,
                         const matrix *dout, top_layer *top, mx_error *err)
{
    const block_params *p = t->p;
    const attention_config *cfg = t->cfg;
    const size_t T = dout->rows, D = dout->cols;
    show_grad(top, TABLE_OUT, NO_HEAD, dout);
    if (p->attn_only) {
        // x + attn_out: the residual's part first, then the attention's
        show_grad(top, TABLE_ATTN_OUT, NO_HEAD, dout);
        memcpy(dx->v, dout->v, T * D * sizeof(float));
        fused_tape_backward(dx, false, &g->attention, &t->at, &p->attention,
                            dout, cfg, t->x, top);
        return 0;
    }
    const size_t F = p->ff0.weight.rows;
    scratch s = {0};
    matrix dsum2 = {0}, dhidden = {0}, dnorm1 = {0}, dsum1 = {0}, dyt_d = {0},
           dyt_f = {0};
    if (scratch_alloc(&s, &dsum2, T, D, err) ||
        scratch_alloc(&s, &dnorm1, T, D, err) ||
        scratch_alloc(&s, &dsum1, T, D, err) ||
        scratch_alloc(&s, &dhidden, T, F, err) ||
        scratch_alloc(&s, &dyt_d, D, T, err) ||
        scratch_alloc(&s, &dyt_f, F, T, err)) {
        scratch_free(&s);
        return -1;
    }
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
    const block_saved saved = {.sum1 = &t->sum1,
                               .norm1 = &t->norm1,
                               .hidden = &t->hidden,
                               .sum2 = &t->sum2,
                               .mean1 = matrix_at(&t->stats, 0, 0),
                               .rstd1 = matrix_at(&t->stats, 1, 0),
                               .mean2 = matrix_at(&t->stats, 2, 0),
                               .rstd2 = matrix_at(&t->stats, 3, 0)};
    const grad_points gp = {show_block_grad, top};
    block_layer_backward(&dsum1, &bg, &room, &saved, dout, &gp, cfg->pool);
    // x's gradient: the residual's, then the attention's
    memcpy(dx->v, dsum1.v, T * D * sizeof(float));
    fused_tape_backward(dx, false, &g->attention, &t->at, &p->attention, &dsum1,
                        cfg, t->x, top);
    scratch_free(&s);
    return 0;
}

static void tape_free(block_tape *t)
{
    fused_tape_free(&t->at);
    scratch_free(&t->s);
}

int block_pass(matrix *dx, void *grad, const void *module,
               const attention_config *cfg, const matrix *x, top_layer *top,
               mx_error *err)
{
    const block_stack *st = module;
    const size_t n = st->n, T = x->rows, D = x->cols;
    block_tape *tapes = calloc(n, sizeof *tapes);
    scratch s = {0};
    matrix d[2] = {{0}, {0}};
    int rc = -1;
    if (tapes == NULL) {
        err_nomem(err, _("the training's working tables"));
        goto done;
    }
    // x_(i+1) = block i (x_i), each block's tape kept
    const matrix *in = x;
    for (size_t i = 0; i < n; i++) {
        if (tape_forward(&tapes[i], &st->blocks[i], cfg, in, err) != 0)
            goto done;
        in = &tapes[i].out;
    }
    if (scratch_alloc(&s, &d[0], T, D, err) ||
        scratch_alloc(&s, &d[1], T, D, err) ||
        top_pass(&d[0], top, in, cfg->pool, err) != 0)
        goto done;
    if (top->dlm_head == NULL) {
        rc = 0;
        goto done;
    }
    // the last block's backward first: dout of block i is d[(n-1-i) % 2],
    // its dx the other (x's own, dx, for block 0)
    block_stack *g = grad;
    for (size_t i = n; i-- > 0;) {
        const matrix *dout = &d[(n - 1 - i) % 2];
        matrix *dxi = i == 0 ? dx : &d[(n - i) % 2];
        top->layer = (int)i;
        if (tape_backward(dxi, &g->blocks[i], &tapes[i], dout, top, err) != 0)
            goto done;
    }
    top->layer = 0;
    rc = 0;
done:
    for (size_t i = 0; tapes != NULL && i < n; i++)
        tape_free(&tapes[i]);
    free(tapes);
    scratch_free(&s);
    return rc;
}
