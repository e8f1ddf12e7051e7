/* llama_forward.c: the forward pass of a Llama-style checkpoint
 * (llama.h), over the layers of model/layers/: each layer the one
 * Transformer block with its RMSNorms before and the gated feed-forward
 * network, and the one attention sublayer (attention_sublayer.h), its
 * query heads sharing key/value heads, with their rotary positions. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "base/i18n.h"
#include "model/checkpoint_lm.h"
#include "model/layers/attention_sublayer.h"
#include "model/layers/dense.h"
#include "model/layers/layer_work.h"
#include "model/layers/rotary.h"
#include "model/layers/transformer_block.h"
#include "model/llama/llama.h"
#include "numerics/matmul.h"
#include "numerics/rms_norm.h"

/* Layer li's attention sublayer (attention_sublayer.h): q_proj, k_proj,
 * v_proj, each query head over its key/value head with its rotary
 * positions, o_proj. With a cache the keys come rotated from it. Its
 * heads' eager_attention_forward: matmul(q, k^T) * scaling + the causal
 * mask of the prompt (finfo.min above the diagonal, +0 elsewhere); a
 * single row's mask is min * False, -0, which changes no score. */
static attention_layer layer_attention(const llama_model *m, size_t li,
                                       const rotary_table *rope, size_t past,
                                       size_t T, bool cached)
{
    const llama_config *c = &m->cfg;
    const llama_layer *l = &m->layers[li];
    const size_t D = c->hidden, hd = D / c->n_head, KV = c->n_kv_head * hd;
    return (attention_layer){
        .q = dense_linear(l->q_w, l->q_b, D, D),
        .k = dense_linear(l->k_w, l->k_b, D, KV),
        .v = dense_linear(l->v_w, l->v_b, D, KV),
        .out = dense_linear(l->o_w, l->o_b, D, D),
        .n_head = c->n_head,
        .n_kv_head = c->n_kv_head,
        .hd = hd,
        .spec = {.causal = past == 0,
                 .divisor = 1.0f,
                 .scale = SCALE_SCORES_TIMES,
                 .factor = (float)pow((double)hd, -0.5),
                 .mask_added = past == 0 && T > 1,
                 .rope = rope,
                 .keys_rotated = cached},
    };
}

/* LlamaDecoderLayer li as the one Transformer block (transformer_block.h):
 * its RMSNorms before, the gated network, residual + the sublayer as the
 * layer adds them. */
static block_layer layer_block(const llama_model *m, size_t li)
{
    const llama_config *c = &m->cfg;
    const llama_layer *l = &m->layers[li];
    const size_t D = c->hidden, F = c->inter;
    return (block_layer){
        .norm = NORM_BEFORE,
        .norm_kind = NORM_RMS_NORM,
        .norm1 = {l->ln_1, NULL, c->eps},
        .norm2 = {l->ln_2, NULL, c->eps},
        .ffn_kind = FFN_SWIGLU,
        .gated = {dense_linear(l->gate_w, NULL, D, F),
                  dense_linear(l->up_w, NULL, D, F),
                  dense_linear(l->down_w, NULL, F, D)},
    };
}

/* The work of every layer, allocated once for a pass over rows = n T
 * rows (n stacked texts of T new tokens, llama_layers; one text
 * elsewhere) over S keys (S = T without a cache). */
static int work_alloc(layer_work *w, const llama_model *m,
                      const rotary_table *rope, size_t rows, size_t T, size_t S,
                      mx_error *err)
{
    const attention_layer a = layer_attention(m, 0, rope, S - T, T, S > T);
    const block_layer b = layer_block(m, 0);
    return layer_work_alloc(w, &a, &b, rows, T, S, err);
}

/* One LlamaDecoderLayer over h (rows, D), in place (layer_work.h;
 * layer_block), its attention the one attention sublayer
 * (attention_sublayer.h) as pass gives it: one text with the run's hooks
 * and cache, or stacked texts each with its own heads' hooks. */
static int layer_forward(matrix *h, layer_work *w, const llama_model *m,
                         size_t li, const rotary_table *rope,
                         attention_pass *pass, mx_error *err)
{
    const block_layer b = layer_block(m, li);
    const size_t past = pass->cache != NULL ? pass->cache->len : 0;
    const size_t T = pass->texts > 1 ? h->rows / pass->texts : h->rows;
    const attention_layer a =
        layer_attention(m, li, rope, past, T, pass->cache != NULL);
    pass->layer = (int)li;
    const table_key at = layer_table_key((int)li, NO_HEAD, TABLE_HIDDEN);
    return layer_work_run(h, w, &b, &a, pass, &at, err);
}

/* logits (T, V) = out @ lm_head^T, nn.Linear without a bias, a slice of
 * the vocabulary at a time (each cell is its own sum); a generated
 * token's one row packs nothing, and takes the whole vocabulary at once. */
void llama_logits(matrix *logits, const llama_model *m, const matrix *out,
                  workers *pool)
{
    const size_t V = m->cfg.vocab_size, D = m->cfg.hidden;
    const size_t slice = out->rows == 1 ? V : 4096;
    for (size_t v0 = 0; v0 < V; v0 += slice) {
        const size_t n = V - v0 < slice ? V - v0 : slice;
        const matmul_problem p = {
            .M = out->rows,
            .N = n,
            .K = D,
            .a = out->v,
            .lda = D,
            .b = m->lm_head + v0 * D,
            .ldb = D,
            .b_transposed = true,
            .c = logits->v + v0,
            .ldc = V,
            .shape = MATMUL_FULL,
        };
        matmul_run(&p, matmul_kernel_best(), pool);
    }
}

int llama_window_check(const llama_config *c, size_t T, mx_error *err)
{
    // transformers' sliding window keeps the keys kv_idx > q_idx - window:
    // over a text of T <= window tokens every earlier key is kept
    if (c->window == 0 || T <= c->window)
        return 0;
    return err_input(
        err,
        _("the text is %zu tokens, longer than the model's sliding_window %zu: this program attends to the whole text and does not slide the window"),
        T, c->window);
}

/* The ids checked against the model's sizes. */
static int check_ids(const llama_config *c, const int32_t *ids, size_t T,
                     size_t past, mx_error *err)
{
    if (T == 0)
        return err_input(err, _("the text has no tokens"));
    if (T > c->n_positions - past)
        return checkpoint_lm_too_long(err, past + T, c->n_positions,
                                      LLAMA_POSITIONS_KEY);
    if (llama_window_check(c, past + T, err) != 0)
        return -1;
    for (size_t t = 0; t < T; t++)
        if (ids[t] < 0 || (size_t)ids[t] >= c->vocab_size)
            return err_input(
                err, _("token id %ld is outside the vocabulary (%zu words)"),
                (long)ids[t], c->vocab_size);
    return 0;
}

int llama_forward(matrix *out, const llama_model *m, const int32_t *ids,
                  size_t T, const llama_run *run, mx_error *err)
{
    const llama_config *c = &m->cfg;
    const size_t D = c->hidden;
    const size_t past = run->cache != NULL ? run->cache->len : 0;
    if (check_ids(c, ids, T, past, err) != 0)
        return -1;
    matrix h = {0};
    layer_work w;
    rotary_table rope;
    if (matrix_alloc(&h, T, D, N_("hidden states"), err) != 0)
        return -1;
    // position_embeddings of position_ids = cache_position (past ..)
    if (rotary_table_init_from(&rope, past, T, D / c->n_head, c->theta, err) !=
        0) {
        matrix_free(&h);
        return -1;
    }
    if (work_alloc(&w, m, &rope, T, T, past + T, err) != 0) {
        rotary_table_free(&rope);
        matrix_free(&h);
        return -1;
    }
    int rc = -1;
    for (size_t t = 0; t < T; t++)
        for (size_t d = 0; d < D; d++)
            h.v[t * D + d] = m->embed[(size_t)ids[t] * D + d];
    if (hook_outer_point(run->hooks, VARIANT_INPUT, TABLE_INPUTS, &h, err) != 0)
        goto out;
    attention_pass pass = {
        .hooks = run->hooks, .cache = run->cache, .pool = run->pool};
    for (size_t li = 0; li < c->n_layer; li++)
        if (layer_forward(&h, &w, m, li, &rope, &pass, err) != 0)
            goto out;
    if (run->cache != NULL)
        kv_cache_advance(run->cache, T);
    if (matrix_alloc(out, T, D, N_("hidden states"), err) != 0)
        goto out;
    rms_norm(out, &h, m->norm, c->eps);
    if (hook_outer_point(run->hooks, VARIANT_MODEL, TABLE_OUT, out, err) != 0)
        goto fail_out;
    if (run->logits) {
        matrix logits = {0};
        if (matrix_alloc(&logits, T, c->vocab_size, N_("logits"), err) != 0)
            goto fail_out;
        llama_logits(&logits, m, out, run->pool);
        rc = hook_outer_point(run->hooks, VARIANT_MODEL, TABLE_LOGITS, &logits,
                              err);
        matrix_free(&logits);
        if (rc != 0)
            goto fail_out;
    }
    rc = 0;
    goto out;
fail_out:
    matrix_free(out);
out:
    rotary_table_free(&rope);
    layer_work_free(&w);
    matrix_free(&h);
    return rc;
}

int llama_layers(matrix *h, const llama_model *m, size_t n, size_t first,
                 size_t count, const forward_hooks *hooks, workers *pool,
                 mx_error *err)
{
    const llama_config *c = &m->cfg;
    assert(n > 0 && h->rows % n == 0 && h->cols == c->hidden &&
           first + count <= c->n_layer);
    const size_t T = h->rows / n;
    layer_work w;
    rotary_table rope;
    // position_embeddings of positions 0 .. T - 1, each text's
    if (rotary_table_init_from(&rope, 0, T, c->hidden / c->n_head, c->theta,
                               err) != 0)
        return -1;
    if (work_alloc(&w, m, &rope, h->rows, T, T, err) != 0) {
        rotary_table_free(&rope);
        return -1;
    }
    // text i's heads through hooks[i]; the block's own points unhooked
    attention_pass pass = {.texts = n, .each_text = hooks, .pool = pool};
    int rc = 0;
    for (size_t li = first; rc == 0 && li < first + count; li++)
        rc = layer_forward(h, &w, m, li, &rope, &pass, err);
    layer_work_free(&w);
    rotary_table_free(&rope);
    return rc;
}
