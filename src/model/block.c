/* block.c: the Transformer block of the Cantonese lesson (block.h): its
 * constructor, its layers and its forward method.
 *
 * Shapes: T tokens, D = d_model (the attention's width O too), F the
 * feed-forward width.
 */
#include "model/block.h"

#include <string.h>

#include "cli/i18n.h"

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
    matrix *add_norm1;  /* (T, D) */
    matrix *ffn_hidden; /* (T, F) */
    matrix *ffn_out;    /* (T, D) */
    matrix *out;        /* (T, D) */
} block_tables;

/* Makes add_norm1, ffn_hidden, ffn_out and out under variant block, one
 * row per token, D or F wide. */
static int new_block_tables(block_tables *t, trace *tr, size_t D, size_t F,
                            const sequence_labels *lab, mx_error *err)
{
    const labels *dims = trace_index_labels(tr, "dim", D, err);
    const labels *wide = trace_index_labels(tr, "dim", F, err);
    if (dims == NULL || wide == NULL)
        return -1;
    const table_key k_norm1 = {VARIANT_ID_BLOCK, 0, NO_HEAD, TABLE_ADD_NORM1,
                               false},
                    k_hidden = {VARIANT_ID_BLOCK, 0, NO_HEAD, TABLE_FFN_HIDDEN,
                                false},
                    k_ffn = {VARIANT_ID_BLOCK, 0, NO_HEAD, TABLE_FFN_OUT,
                             false},
                    k_out = {VARIANT_ID_BLOCK, 0, NO_HEAD, TABLE_OUT, false};
    table *add_norm1 = trace_new(tr, &k_norm1, lab->tokens, dims, err);
    table *ffn_hidden = add_norm1 == NULL
                            ? NULL
                            : trace_new(tr, &k_hidden, lab->tokens, wide, err);
    table *ffn_out = ffn_hidden == NULL
                         ? NULL
                         : trace_new(tr, &k_ffn, lab->tokens, dims, err);
    table *out =
        ffn_out == NULL ? NULL : trace_new(tr, &k_out, lab->tokens, dims, err);
    if (out == NULL)
        return -1;
    t->add_norm1 = &add_norm1->values;
    t->ffn_hidden = &ffn_hidden->values;
    t->ffn_out = &ffn_out->values;
    t->out = &out->values;
    return 0;
}

/* ---- the forward method ----------------------------------------------- */

/* TransformerBlock.forward over x (T, D) (post-norm, no dropout):
 *   attn_out (T, D)   = attention(x)
 *   add_norm1 (T, D)  = norm1(x + attn_out)
 *   ffn_hidden (T, F), ffn_out (T, D) = ff(add_norm1)
 *   out (T, D)        = norm2(add_norm1 + ffn_out) */
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
    // sum (T, D): each residual connection, a working matrix the trace
    // does not keep
    matrix sum = {0};
    if (new_block_tables(&t, tr, D, F, lab, err) != 0 ||
        matrix_alloc(&sum, T, D, N_("a residual"), err) != 0)
        return -1;

    // add_norm1 (T, D) = LayerNorm(x + attn_out)
    add_norm(t.add_norm1, &sum, in->x, attn_out, &p->norm1_weight,
             &p->norm1_bias);
    // ffn_hidden (T, F) = ReLU(add_norm1 @ ff.0.weight^T + ff.0.bias),
    // ffn_out (T, D) = ffn_hidden @ ff.2.weight^T + ff.2.bias
    feed_forward(t.ffn_out, t.ffn_hidden, t.add_norm1, &p->ff0, &p->ff2,
                 cfg->pool);
    // out (T, D) = LayerNorm(add_norm1 + ffn_out)
    add_norm(t.out, &sum, t.add_norm1, t.ffn_out, &p->norm2_weight,
             &p->norm2_bias);
    matrix_free(&sum);
    return 0;
}
