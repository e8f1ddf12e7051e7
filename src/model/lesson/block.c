/* block.c: the Transformer block of the Cantonese lesson (block.h): its
 * constructor, its layers and its forward method.
 *
 * Shapes: T tokens, D = d_model (the attention's width O too), F the
 * feed-forward width.
 */
#include "model/lesson/block.h"

#include <string.h>

#include "base/i18n.h"
#include "model/dropout.h"

/* ---- the constructor: attention, norm1, ff, norm2 ----------------------- */

/* nn.LayerNorm(D): weight (1, D) of ones, bias (1, D) of zeros; draws
 * nothing. */
static int norm_init(matrix *weight, matrix *bias, size_t D, mx_error *err)
{
    if (matrix_alloc(weight, 1, D, N_("a LayerNorm weight"), err) != 0 ||
        matrix_alloc(bias, 1, D, N_("a LayerNorm bias"), err) != 0)
        return -1;
    for (size_t d = 0; d < D; d++)
        weight->v[d] = 1.0f; /* nn.LayerNorm starts at ones and zeros */
    return 0;
}

/* TransformerBlock(D, H, F): attention = MultiHeadAttention(D, D, H),
 * norm1 = nn.LayerNorm(D), ff = nn.Sequential(nn.Linear(D, F), nn.ReLU(),
 * nn.Linear(F, D)), norm2 = nn.LayerNorm(D). */
int block_init(block_params *p, const attention_config *cfg, size_t ff,
               torch_rng *g, mx_error *err)
{
    const size_t D = cfg->d_model;
    memset(p, 0, sizeof *p);
    if (fused_init(&p->attention, cfg, g, err) != 0 ||
        norm_init(&p->norm1_weight, &p->norm1_bias, D, err) != 0 ||
        linear_init(&p->ff0, D, ff, true, g, err) != 0 ||
        linear_init(&p->ff2, ff, D, true, g, err) != 0 ||
        norm_init(&p->norm2_weight, &p->norm2_bias, D, err) != 0) {
        block_free(p);
        return -1;
    }
    return 0;
}

void block_free(block_params *p)
{
    fused_free(&p->attention);
    matrix_free(&p->norm1_weight);
    matrix_free(&p->norm1_bias);
    linear_free(&p->ff0);
    linear_free(&p->ff2);
    matrix_free(&p->norm2_weight);
    matrix_free(&p->norm2_bias);
}

/* ---- the layers ------------------------------------------------------- */

/* A residual connection and its LayerNorm: out (T, D) = LayerNorm(a + b)
 * with weight and bias (1, D); sum (T, D) holds a + b. */
static void add_norm(matrix *out, matrix *sum, const matrix *a, const matrix *b,
                     const matrix *weight, const matrix *bias)
{
    add(sum, a, b);
    layer_norm(out, sum, weight->v, bias->v, LAYER_NORM_EPS);
}

/* The feed-forward network ff over x (T, D):
 *   hidden (T, F) = ReLU(x @ ff.0.weight^T + ff.0.bias)
 *   out (T, D)    = hidden @ ff.2.weight^T + ff.2.bias */
static void feed_forward(matrix *out, matrix *hidden, const matrix *x,
                         const linear *ff0, const linear *ff2, workers *pool)
{
    linear_forward(hidden, x, &ff0->weight, ff0->bias.v, pool);
    relu(hidden);
    linear_forward(out, hidden, &ff2->weight, ff2->bias.v, pool);
}

/* The block's tables after the attention, made in the trace. */
typedef struct {
    matrix *attn_mask;  /* attn_out_dropout_mask (T, D), or NULL */
    matrix *add_norm1;  /* (T, D) */
    matrix *ffn_hidden; /* (T, F) */
    matrix *ffn_out;    /* (T, D) */
    matrix *ffn_mask;   /* ffn_out_dropout_mask (T, D), or NULL */
    matrix *out;        /* (T, D) */
} block_tables;

/* A new table id (T, width) of the block in cfg's layer, one row per
 * token. */
static matrix *new_block_table(trace *tr, table_id id, const labels *cols,
                               const attention_config *cfg,
                               const sequence_labels *lab, mx_error *err)
{
    const table_key key = {VARIANT_ID_BLOCK, cfg->layer, NO_HEAD, id, false};
    table *t = trace_new(tr, &key, lab->tokens, cols, err);
    return t == NULL ? NULL : &t->values;
}

/* Makes (with dropout) attn_out_dropout_mask, add_norm1, ffn_hidden,
 * ffn_out, (with dropout) ffn_out_dropout_mask and out under variant
 * block, one row per token, D or F wide. */
static int new_block_tables(block_tables *t, trace *tr, size_t D, size_t F,
                            const attention_config *cfg,
                            const sequence_labels *lab, mx_error *err)
{
    const bool dropout = cfg->dropout > 0;
    const labels *dims = trace_index_labels(tr, "dim", D, err);
    const labels *wide = trace_index_labels(tr, "dim", F, err);
    if (dims == NULL || wide == NULL)
        return -1;
    *t = (block_tables){0};
    if (dropout &&
        (t->attn_mask = new_block_table(tr, TABLE_ATTN_OUT_DROPOUT_MASK, dims,
                                        cfg, lab, err)) == NULL)
        return -1;
    if ((t->add_norm1 = new_block_table(tr, TABLE_ADD_NORM1, dims, cfg, lab,
                                        err)) == NULL ||
        (t->ffn_hidden = new_block_table(tr, TABLE_FFN_HIDDEN, wide, cfg, lab,
                                         err)) == NULL ||
        (t->ffn_out =
             new_block_table(tr, TABLE_FFN_OUT, dims, cfg, lab, err)) == NULL)
        return -1;
    if (dropout &&
        (t->ffn_mask = new_block_table(tr, TABLE_FFN_OUT_DROPOUT_MASK, dims,
                                       cfg, lab, err)) == NULL)
        return -1;
    t->out = new_block_table(tr, TABLE_OUT, dims, cfg, lab, err);
    return t->out == NULL ? -1 : 0;
}

/* ---- the forward method ----------------------------------------------- */

/* TransformerBlock.forward over x (T, D) (post-norm; with --dropout P
 * in training mode, nn.Dropout(P) on the attention's and the
 * feed-forward's outputs, their masks drawn over the (B, T, D) batch one
 * after the other):
 *   attn_out (T, D)   = attention(x)
 *   attn_out_dropout_mask (T, D)  (--dropout)
 *   add_norm1 (T, D)  = norm1(x + dropout(attn_out))
 *   ffn_hidden (T, F), ffn_out (T, D) = ff(add_norm1)
 *   ffn_out_dropout_mask (T, D)   (--dropout)
 *   out (T, D)        = norm2(add_norm1 + dropout(ffn_out)) */
int block_forward(trace *tr, const block_params *p, const attention_config *cfg,
                  const attention_input *in, const sequence_labels *lab,
                  mx_error *err)
{
    const size_t T = in->x->rows, D = cfg->d_model, F = p->ff0.weight.rows;
    // attn_out (T, D) = the fused module over x
    const matrix *attn_out;
    if (fused_attend(&attn_out, tr, VARIANT_ID_BLOCK, TABLE_ATTN_OUT,
                     &p->attention, cfg, in, lab, err) != 0)
        return -1;

    block_tables t;
    const bool dropout = cfg->dropout > 0;
    // sum (T, D): each residual connection; dropped (T, D): an output
    // after its dropout; working matrices the trace does not keep
    matrix sum = {0}, dropped = {0};
    if (new_block_tables(&t, tr, D, F, cfg, lab, err) != 0 ||
        matrix_alloc(&sum, T, D, N_("a residual"), err) != 0 ||
        (dropout && matrix_alloc(&dropped, T, D, N_("a residual"), err) != 0)) {
        matrix_free(&sum);
        return -1;
    }
    torch_rng g;
    if (dropout)
        g = *cfg->dropout_rng;

    // add_norm1 (T, D) = LayerNorm(x + dropout(attn_out))
    const matrix *attn = attn_out;
    if (dropout) {
        dropout_noise(t.attn_mask->v, T * D, cfg->dropout, &g);
        // the rest of the batch's mask, then the feed-forward's
        rng_bernoulli_skip((cfg->batch - 1) * T * D, &g);
        dropout_apply(dropped.v, attn_out->v, t.attn_mask->v, T * D);
        attn = &dropped;
    }
    add_norm(t.add_norm1, &sum, in->x, attn, &p->norm1_weight, &p->norm1_bias);
    // ffn_hidden (T, F) = ReLU(add_norm1 @ ff.0.weight^T + ff.0.bias),
    // ffn_out (T, D) = ffn_hidden @ ff.2.weight^T + ff.2.bias
    feed_forward(t.ffn_out, t.ffn_hidden, t.add_norm1, &p->ff0, &p->ff2,
                 cfg->pool);
    // out (T, D) = LayerNorm(add_norm1 + dropout(ffn_out))
    const matrix *ffn = t.ffn_out;
    if (dropout) {
        dropout_noise(t.ffn_mask->v, T * D, cfg->dropout, &g);
        dropout_apply(dropped.v, t.ffn_out->v, t.ffn_mask->v, T * D);
        ffn = &dropped;
    }
    add_norm(t.out, &sum, t.add_norm1, ffn, &p->norm2_weight, &p->norm2_bias);
    matrix_free(&sum);
    matrix_free(&dropped);
    return 0;
}
