/* block.c: attention, residual and LayerNorm, feed-forward, residual and
 * LayerNorm. Legend: T tokens, D model width (= O), F feed-forward width. */
#include "model/block.h"

#include <string.h>

#include "cli/i18n.h"

static int norm_init(matrix *weight, matrix *bias, size_t D, mx_error *err)
{
    if (matrix_alloc(weight, 1, D, N_("a LayerNorm weight"), err) != 0 ||
        matrix_alloc(bias, 1, D, N_("a LayerNorm bias"), err) != 0)
        return -1;
    for (size_t d = 0; d < D; d++)
        weight->v[d] = 1.0f; /* nn.LayerNorm starts at ones and zeros */
    return 0;
}

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

int block_forward(trace *tr, const block_params *p, const attention_config *cfg,
                  const attention_input *in, const sequence_labels *lab,
                  mx_error *err)
{
    const size_t T = in->x->rows, D = cfg->d_model, F = p->ff0.weight.rows;
    const matrix *attn_out;
    // attn_out (T, D) = the fused module over x
    if (fused_attend(&attn_out, tr, VARIANT_ID_BLOCK, TABLE_ATTN_OUT,
                     &p->attention, cfg, in, lab, err) != 0)
        return -1;

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
    // sum (T, D): each residual connection, a working matrix the trace
    // does not keep
    matrix sum = {0};
    if (out == NULL || matrix_alloc(&sum, T, D, N_("a residual"), err) != 0)
        return -1;

    // add_norm1 (T, D) = LayerNorm(x + attn_out)
    add(&sum, in->x, attn_out);
    layer_norm(&add_norm1->values, &sum, p->norm1_weight.v, p->norm1_bias.v,
               LAYER_NORM_EPS);
    // ffn_hidden (T, F) = ReLU(add_norm1 @ ff.0.weight^T + ff.0.bias)
    linear_forward(&ffn_hidden->values, &add_norm1->values, &p->ff0.weight,
                   p->ff0.bias.v, cfg->pool);
    relu(&ffn_hidden->values);
    // ffn_out (T, D) = ffn_hidden @ ff.2.weight^T + ff.2.bias
    linear_forward(&ffn_out->values, &ffn_hidden->values, &p->ff2.weight,
                   p->ff2.bias.v, cfg->pool);
    // out (T, D) = LayerNorm(add_norm1 + ffn_out)
    add(&sum, &add_norm1->values, &ffn_out->values);
    layer_norm(&out->values, &sum, p->norm2_weight.v, p->norm2_bias.v,
               LAYER_NORM_EPS);
    matrix_free(&sum);
    return 0;
}
