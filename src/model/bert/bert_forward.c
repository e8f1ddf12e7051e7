/* bert_forward.c: BERT's forward pass (bert.h), over the layers every
 * family shares (model/layers/): the attention sublayer of
 * attention_sublayer.h (three nn.Linear projections, its heads
 * attention_head.h's with no mask, the scores scaled), nn.Linear's dense,
 * the post-norm block with the exact GELU.
 *
 * Shapes: T tokens, D = hidden_size, H heads of hd = D / H, F =
 * intermediate_size, V words.
 */
#include "model/bert/bert.h"

#include "base/i18n.h"
#include "model/layers/attention_sublayer.h"
#include "model/layers/dense.h"
#include "model/layers/layer_work.h"
#include "model/layers/mlp.h"
#include "model/layers/transformer_block.h"
#include "numerics/gelu.h"
#include "numerics/gelu_erf.h"
#include "numerics/matmul.h"

/* Layer li's attention sublayer (attention_sublayer.h): BertAttention's
 * self part, query, key, value (nn.Linear), each head over its columns
 * (transpose_for_scores), and the output dense. Its heads:
 * attention_scores / math.sqrt(hd), then + the extended mask, which for
 * one text without padding is (1.0 - 1) * -10000.0 = -0.0 everywhere and
 * changes no score. */
static attention_layer layer_attention(const bert_model *m, size_t li)
{
    const bert_config *c = &m->cfg;
    const bert_layer *l = &m->layers[li];
    const size_t D = c->d, hd = D / c->n_head;
    return (attention_layer){
        .q = dense_linear(l->q_w, l->q_b, D, D),
        .k = dense_linear(l->k_w, l->k_b, D, D),
        .v = dense_linear(l->v_w, l->v_b, D, D),
        .out = dense_linear(l->attn_out_w, l->attn_out_b, D, D),
        .n_head = c->n_head,
        .n_kv_head = c->n_head,
        .hd = hd,
        .spec = {.causal = false,
                 .divisor = score_divisor(hd, true),
                 .scale = SCALE_SCORES},
    };
}

/* BertLayer li as the one Transformer block (transformer_block.h): its
 * norms after, the exact GELU. */
static block_layer layer_block(const bert_model *m, size_t li)
{
    const bert_config *c = &m->cfg;
    const bert_layer *l = &m->layers[li];
    const size_t D = c->d, F = c->n_inner;
    return (block_layer){
        .norm = NORM_AFTER,
        .norm1 = {l->ln1_w, l->ln1_b, c->eps},
        .norm2 = {l->ln2_w, l->ln2_b, c->eps},
        .ffn = {dense_linear(l->inter_w, l->inter_b, D, F),
                dense_linear(l->out_w, l->out_b, F, D), ACT_GELU_ERF},
    };
}

/* The work of every layer, allocated once for a pass over T tokens. */
static int work_alloc(layer_work *w, const bert_model *m, size_t T,
                      mx_error *err)
{
    const attention_layer a = layer_attention(m, 0);
    const block_layer b = layer_block(m, 0);
    return layer_work_alloc(w, &a, &b, T, T, T, err);
}

/* One BertLayer over h (T, D), in place (layer_work.h; layer_block),
 * its attention the one attention sublayer (attention_sublayer.h). */
static int layer_forward(matrix *h, layer_work *w, const bert_model *m,
                         size_t li, attention_pass *pass, mx_error *err)
{
    const block_layer b = layer_block(m, li);
    const attention_layer a = layer_attention(m, li);
    pass->layer = (int)li;
    const table_key at = layer_table_key((int)li, NO_HEAD, TABLE_OUT);
    return layer_work_run(h, w, &b, &a, pass, &at, err);
}

/* BertEmbeddings: h (T, D) = LayerNorm((word[ids] + token_type[types]) +
 * position[0..T)), dropout off. */
static void embed(matrix *h, matrix *sum, const bert_model *m,
                  const int32_t *ids, const int32_t *types, size_t T)
{
    const size_t D = m->cfg.d;
    for (size_t t = 0; t < T; t++)
        for (size_t d = 0; d < D; d++) {
            const float word = m->word[(size_t)ids[t] * D + d];
            const float type = m->types[(size_t)types[t] * D + d];
            sum->v[t * D + d] = (word + type) + m->pos[t * D + d];
        }
    layer_norm(h, sum, m->emb_ln_w, m->emb_ln_b, m->cfg.eps);
}

/* BertOnlyMLMHead over out (T, D): logits (T, V) = decoder(LayerNorm(
 * gelu(dense(out)))) + bias, the decoder a slice of the vocabulary at a
 * time (each cell its own sum, its bias added last as nn.Linear adds
 * it). */
static int mlm_logits(matrix *logits, const matrix *out, const bert_model *m,
                      workers *pool, mx_error *err)
{
    const bert_config *c = &m->cfg;
    const size_t D = c->d, T = out->rows;
    matrix x = {0}, y = {0};
    if (matrix_alloc(&x, T, D, N_("hidden states"), err) != 0 ||
        matrix_alloc(&y, T, D, N_("hidden states"), err) != 0) {
        matrix_free(&x);
        return -1;
    }
    const dense transform = dense_linear(m->mlm.dense_w, m->mlm.dense_b, D, D);
    dense_forward(&x, out, &transform, pool);
    gelu_erf(x.v, T * D);
    layer_norm(&y, &x, m->mlm.ln_w, m->mlm.ln_b, c->eps);
    const size_t slice = 4096;
    for (size_t v0 = 0; v0 < c->vocab_size; v0 += slice) {
        const size_t n =
            c->vocab_size - v0 < slice ? c->vocab_size - v0 : slice;
        const matmul_problem p = {
            .M = T,
            .N = n,
            .K = D,
            .a = y.v,
            .lda = D,
            .b = m->mlm.decoder + v0 * D,
            .ldb = D,
            .b_transposed = true,
            .bias = m->mlm.bias + v0,
            .bias_first = false,
            .c = logits->v + v0,
            .ldc = c->vocab_size,
            .shape = MATMUL_FULL,
        };
        matmul_run(&p, matmul_kernel_best(), pool);
    }
    matrix_free(&x);
    matrix_free(&y);
    return 0;
}

/* BertPooler over out (T, D): pooled (1, D) = tanh(dense(out[0])), the
 * first token's row alone (hidden_states[:, 0]); nn.Tanh is torch.tanh,
 * SLEEF's tanhf on every value (gelu.h). */
static int pooler_output(const matrix *out, const bert_model *m,
                         const bert_run *run, mx_error *err)
{
    const size_t D = m->cfg.d;
    matrix pooled = {0};
    if (matrix_alloc(&pooled, 1, D, N_("hidden states"), err) != 0)
        return -1;
    // the first token's row, a view of out: (1, D)
    const matrix first = {.rows = 1, .cols = D, .v = out->v};
    const dense pool_dense =
        dense_linear(m->pooler.dense_w, m->pooler.dense_b, D, D);
    dense_forward(&pooled, &first, &pool_dense, run->pool);
    for (size_t d = 0; d < D; d++)
        pooled.v[d] = sleef_tanhf(pooled.v[d]);
    const int rc =
        hook_outer_point(run->hooks, VARIANT_MODEL, TABLE_POOLER, &pooled, err);
    matrix_free(&pooled);
    return rc;
}

/* The input's checks: T tokens that fit, ids and types in range. */
static int check_input(const bert_config *c, const int32_t *ids,
                       const int32_t *types, size_t T, mx_error *err)
{
    if (T == 0)
        return err_input(err, _("the text has no tokens"));
    if (T > c->n_positions)
        return err_input(
            err, _("the text is %zu tokens; the model takes at most %zu (%s)"),
            T, c->n_positions, BERT_POSITIONS_KEY);
    for (size_t t = 0; t < T; t++) {
        if (ids[t] < 0 || (size_t)ids[t] >= c->vocab_size)
            return err_input(
                err, _("token id %ld is outside the vocabulary (%zu words)"),
                (long)ids[t], c->vocab_size);
        if (types[t] < 0 || (size_t)types[t] >= c->n_types)
            return err_input(
                err,
                _("token type %ld is outside the model's type_vocab_size (%zu)"),
                (long)types[t], c->n_types);
    }
    return 0;
}

int bert_forward(matrix *out, const bert_model *m, const int32_t *ids,
                 const int32_t *types, size_t T, const bert_run *run,
                 mx_error *err)
{
    const bert_config *c = &m->cfg;
    const size_t D = c->d;
    if (check_input(c, ids, types, T, err) != 0)
        return -1;
    matrix h = {0};
    layer_work w;
    if (matrix_alloc(&h, T, D, N_("hidden states"), err) != 0)
        return -1;
    if (work_alloc(&w, m, T, err) != 0) {
        matrix_free(&h);
        return -1;
    }
    int rc = -1;
    embed(&h, &w.sum, m, ids, types, T);
    if (hook_outer_point(run->hooks, VARIANT_INPUT, TABLE_INPUTS, &h, err) != 0)
        goto done;
    attention_pass pass = {.hooks = run->hooks, .pool = run->pool};
    for (size_t li = 0; li < c->n_layer; li++)
        if (layer_forward(&h, &w, m, li, &pass, err) != 0)
            goto done;
    if (hook_outer_point(run->hooks, VARIANT_MODEL, TABLE_OUT, &h, err) != 0)
        goto done;
    if (m->has_pooler && pooler_output(&h, m, run, err) != 0)
        goto done;
    if (run->logits && m->has_mlm) {
        matrix logits = {0};
        if (matrix_alloc(&logits, T, c->vocab_size, N_("logits"), err) != 0)
            goto done;
        rc = mlm_logits(&logits, &h, m, run->pool, err);
        if (rc == 0)
            rc = hook_outer_point(run->hooks, VARIANT_MODEL, TABLE_LOGITS,
                                  &logits, err);
        matrix_free(&logits);
        if (rc != 0)
            goto done;
    }
    *out = h; // the last layer's output, the caller's now
    h = (matrix){0};
    rc = 0;
done:
    layer_work_free(&w);
    matrix_free(&h);
    return rc;
}
