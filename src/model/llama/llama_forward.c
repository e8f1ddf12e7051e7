/* llama_forward.c: the forward pass of a Llama-style checkpoint
 * (llama.h), over the layers of model/layers/: each layer the one
 * Transformer block with its RMSNorms before and the gated feed-forward
 * network, the heads with their rotary positions. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/layers/attention_head.h"
#include "model/layers/dense.h"
#include "model/layers/rotary.h"
#include "model/layers/transformer_block.h"
#include "model/llama/llama.h"
#include "numerics/matmul.h"
#include "numerics/rms_norm.h"

/* The work of one layer, allocated once for the pass, for T new tokens
 * over S keys (S = T without a cache). */
typedef struct {
    matrix a, q_all, k_all, v_all; /* (T, D), (T, H hd), (T, KV hd) */
    matrix k_new;                  /* (T, KV hd): with a cache, the new
                                      keys rotated */
    matrix q, k, v, q_rot, k_rot, scores, weights, ctx; /* one head's: q
                                      (T, hd), k, v (S, hd), scores (T,
                                      S) */
    matrix concat, attn, hidden, up, ffn; /* (T, D), (T, D), (T, F) x 2,
                                               (T, D) */
} layer_work;

static void work_free(layer_work *w)
{
    matrix *all[] = {&w->a,      &w->q_all,   &w->k_all, &w->v_all,  &w->k_new,
                     &w->q,      &w->k,       &w->v,     &w->q_rot,  &w->k_rot,
                     &w->scores, &w->weights, &w->ctx,   &w->concat, &w->attn,
                     &w->hidden, &w->up,      &w->ffn};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        matrix_free(all[i]);
}

static int work_alloc(layer_work *w, const llama_config *c, size_t T, size_t S,
                      mx_error *err)
{
    const size_t D = c->hidden, hd = D / c->n_head, KV = c->n_kv_head * hd;
    const char *hs = N_("hidden states");
    *w = (layer_work){0};
    if (matrix_alloc(&w->a, T, D, hs, err) != 0 ||
        matrix_alloc(&w->q_all, T, D, N_("queries"), err) != 0 ||
        matrix_alloc(&w->k_all, T, KV, N_("keys"), err) != 0 ||
        matrix_alloc(&w->v_all, T, KV, N_("values"), err) != 0 ||
        matrix_alloc(&w->k_new, T, KV, N_("keys"), err) != 0 ||
        matrix_alloc(&w->q, T, hd, N_("queries"), err) != 0 ||
        matrix_alloc(&w->k, S, hd, N_("keys"), err) != 0 ||
        matrix_alloc(&w->v, S, hd, N_("values"), err) != 0 ||
        matrix_alloc(&w->q_rot, T, hd, N_("queries"), err) != 0 ||
        matrix_alloc(&w->k_rot, S, hd, N_("keys"), err) != 0 ||
        matrix_alloc(&w->scores, T, S, N_("attention scores"), err) != 0 ||
        matrix_alloc(&w->weights, T, S, N_("attention weights"), err) != 0 ||
        matrix_alloc(&w->ctx, T, hd, N_("context"), err) != 0 ||
        matrix_alloc(&w->concat, T, D, N_("context"), err) != 0 ||
        matrix_alloc(&w->attn, T, D, hs, err) != 0 ||
        matrix_alloc(&w->hidden, T, c->inter, hs, err) != 0 ||
        matrix_alloc(&w->up, T, c->inter, hs, err) != 0 ||
        matrix_alloc(&w->ffn, T, D, hs, err) != 0) {
        work_free(w);
        return -1;
    }
    return 0;
}

/* The attention of layer li over x = input_layernorm(h) (T, D): q_proj,
 * k_proj, v_proj, each query head over its key/value head, concat (T,
 * D), then attn_out = o_proj(concat) in w->attn. */
static int attention(layer_work *w, const matrix *x, const llama_model *m,
                     size_t li, const rotary_table *rope, const llama_run *run,
                     mx_error *err)
{
    const llama_config *c = &m->cfg;
    const llama_layer *l = &m->layers[li];
    const size_t D = c->hidden, hd = D / c->n_head, KV = c->n_kv_head * hd;
    const size_t groups = c->n_head / c->n_kv_head;
    const int L = (int)li;
    const dense q_proj = dense_linear(l->q_w, l->q_b, D, D);
    const dense k_proj = dense_linear(l->k_w, l->k_b, D, KV);
    const dense v_proj = dense_linear(l->v_w, l->v_b, D, KV);
    dense_forward(&w->q_all, x, &q_proj, run->pool);
    dense_forward(&w->k_all, x, &k_proj, run->pool);
    dense_forward(&w->v_all, x, &v_proj, run->pool);
    // with a cache: past_key_value.update(key_states, value_states), the
    // keys rotated by their positions first (apply_rotary_pos_emb comes
    // before the update); keys (S, KV hd), values likewise, S = past + T
    kv_cache *cache = run->cache;
    const size_t T = x->rows, past = cache != NULL ? cache->len : 0;
    matrix keys = w->k_all, values = w->v_all;
    if (cache != NULL) {
        // the new keys of key/value head j: (T, hd) in the first rows of
        // the head's working matrices (S >= T)
        matrix k = {T, hd, w->k.v}, k_rot = {T, hd, w->k_rot.v};
        for (size_t j = 0; j < c->n_kv_head; j++) {
            take_columns(&k, &w->k_all, j * hd);
            rotary_apply(&k_rot, &k, rope);
            put_columns(&w->k_new, &k_rot, j * hd);
        }
        kv_cache_put_kv(cache, li, &w->k_new, &w->v_all);
        keys = kv_cache_keys(cache, li, past + T);
        values = kv_cache_values(cache, li, past + T);
    }
    // eager_attention_forward: matmul(q, k^T) * scaling + the causal mask
    // of the prompt (finfo.min above the diagonal, +0 elsewhere); a
    // single row's mask is min * False, -0, which changes no score
    const head_spec spec = {.causal = past == 0,
                            .divisor = 1.0f,
                            .scale = SCALE_SCORES_TIMES,
                            .factor = (float)pow((double)hd, -0.5),
                            .mask_added = past == 0 && T > 1,
                            .rope = rope,
                            .keys_rotated = cache != NULL};
    const head_tables t = {.q = &w->q,
                           .k = &w->k,
                           .v = &w->v,
                           .q_rot = &w->q_rot,
                           .k_rot = &w->k_rot,
                           .scores = &w->scores,
                           .weights = &w->weights,
                           .context = &w->ctx};
    for (size_t hh = 0; hh < c->n_head; hh++) {
        // query head hh reads key/value head hh / groups (repeat_kv)
        const size_t kv = hh / groups;
        const head_source src = {.from = {&w->q_all, &keys, &values},
                                 .first = {hh * hd, kv * hd, kv * hd}};
        const table_key at = {VARIANT_ID_BLOCK, L, (int)hh, TABLE_QUERIES,
                              false};
        if (attention_head_forward(&t, &src, &spec, run->hooks, &at, run->pool,
                                   err) != 0)
            return -1;
        put_columns(&w->concat, &w->ctx, hh * hd);
    }
    if (hook_layer_point(run->hooks, L, NO_HEAD, TABLE_CONCAT_CONTEXT,
                         &w->concat, err) != 0)
        return -1;
    const dense o_proj = dense_linear(l->o_w, l->o_b, D, D);
    dense_forward(&w->attn, &w->concat, &o_proj, run->pool);
    return hook_layer_point(run->hooks, L, NO_HEAD, TABLE_ATTN_OUT, &w->attn,
                            err);
}

/* What a layer's block works with: the checkpoint's layer, the pass's
 * working matrices and h, the hidden states it updates in place. */
typedef struct {
    layer_work *w;
    matrix *h;
    const llama_model *m;
    size_t li;
    const rotary_table *rope;
    const llama_run *run;
} layer_pass;

/* The block's attention over input_layernorm(h) (w->a): attn_out in
 * w->attn. */
static int layer_attend(void *ctx, const matrix **out, const matrix *x,
                        mx_error *err)
{
    const layer_pass *p = ctx;
    *out = &p->w->attn;
    return attention(p->w, x, p->m, p->li, p->rope, p->run, err);
}

/* Where the block's tables lie: the two RMSNorms' in a, the residual and
 * the layer's output in h, in place; the gated network's in hidden and
 * ffn. */
static matrix *layer_table(void *ctx, table_id id, mx_error *err)
{
    (void)err;
    const layer_pass *p = ctx;
    switch (id) {
    case TABLE_RESIDUAL:
    case TABLE_HIDDEN:
        return p->h;
    case TABLE_FFN_HIDDEN:
        return &p->w->hidden;
    case TABLE_FFN_OUT:
        return &p->w->ffn;
    default: // ln_1, ln_2
        return &p->w->a;
    }
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

/* One LlamaDecoderLayer over h (T, D), in place (layer_block). */
static int layer_forward(matrix *h, layer_work *w, const llama_model *m,
                         size_t li, const rotary_table *rope,
                         const llama_run *run, mx_error *err)
{
    const block_layer b = layer_block(m, li);
    layer_pass p = {w, h, m, li, rope, run};
    const block_attention attn = {layer_attend, &p};
    const block_store store = {.get = layer_table, .ctx = &p, .up = &w->up};
    const table_key at = {VARIANT_ID_BLOCK, (int)li, NO_HEAD, TABLE_HIDDEN,
                          false};
    const matrix *out;
    return block_layer_forward(&out, &b, &attn, &store, h, run->hooks, &at,
                               run->pool, err);
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
        return err_input(
            err,
            _("the text is %zu tokens; the model takes at most %zu (max_position_embeddings)"),
            past + T, c->n_positions);
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
    if (work_alloc(&w, c, T, past + T, err) != 0) {
        matrix_free(&h);
        return -1;
    }
    // position_embeddings of position_ids = cache_position (past ..)
    if (rotary_table_init_from(&rope, past, T, D / c->n_head, c->theta, err) !=
        0) {
        work_free(&w);
        matrix_free(&h);
        return -1;
    }
    int rc = -1;
    for (size_t t = 0; t < T; t++)
        for (size_t d = 0; d < D; d++)
            h.v[t * D + d] = m->embed[(size_t)ids[t] * D + d];
    if (hook_outer_point(run->hooks, VARIANT_INPUT, TABLE_INPUTS, &h, err) != 0)
        goto out;
    for (size_t li = 0; li < c->n_layer; li++)
        if (layer_forward(&h, &w, m, li, &rope, run, err) != 0)
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
    work_free(&w);
    matrix_free(&h);
    return rc;
}

/* ---- the layers over stacked texts (llama_layers) ------------------------ */

/* The block's matrices for rows (n texts of T tokens, stacked): a, attn,
 * hidden, up, ffn; the heads' work is one text's (work_alloc). */
static int stack_alloc(layer_work *w, const llama_config *c, size_t rows,
                       mx_error *err)
{
    const size_t D = c->hidden;
    const char *hs = N_("hidden states");
    *w = (layer_work){0};
    if (matrix_alloc(&w->a, rows, D, hs, err) != 0 ||
        matrix_alloc(&w->attn, rows, D, hs, err) != 0 ||
        matrix_alloc(&w->hidden, rows, c->inter, hs, err) != 0 ||
        matrix_alloc(&w->up, rows, c->inter, hs, err) != 0 ||
        matrix_alloc(&w->ffn, rows, D, hs, err) != 0) {
        work_free(w);
        return -1;
    }
    return 0;
}

/* A layer over stacked texts: the block's products over all their rows
 * (p.w), each text's attention over its own rows (one, T rows), its
 * tables passing each[i] (each NULL: no hook point). */
typedef struct {
    layer_pass p;
    layer_work *one;
    size_t texts;
    const forward_hooks *each;
} stacked_pass;

/* The block's attention over input_layernorm(h) (texts x T rows): each
 * text's attn_out, as its own pass computes it, into its rows of
 * p.w->attn. */
static int stacked_attend(void *ctx, const matrix **out, const matrix *x,
                          mx_error *err)
{
    const stacked_pass *sp = ctx;
    const size_t T = x->rows / sp->texts, D = x->cols;
    *out = &sp->p.w->attn;
    for (size_t i = 0; i < sp->texts; i++) {
        const matrix rows = {T, D, x->v + i * T * D};
        llama_run run = *sp->p.run;
        run.hooks = sp->each != NULL ? &sp->each[i] : NULL;
        if (attention(sp->one, &rows, sp->p.m, sp->p.li, sp->p.rope, &run,
                      err) != 0)
            return -1;
        memcpy(sp->p.w->attn.v + i * T * D, sp->one->attn.v,
               T * D * sizeof *sp->one->attn.v);
    }
    return 0;
}

int llama_layers(matrix *h, const llama_model *m, size_t n, size_t first,
                 size_t count, const forward_hooks *hooks, workers *pool,
                 mx_error *err)
{
    const llama_config *c = &m->cfg;
    assert(n > 0 && h->rows % n == 0 && h->cols == c->hidden &&
           first + count <= c->n_layer);
    const size_t T = h->rows / n;
    layer_work w, one;
    rotary_table rope;
    if (stack_alloc(&w, c, h->rows, err) != 0)
        return -1;
    if (work_alloc(&one, c, T, T, err) != 0) {
        work_free(&w);
        return -1;
    }
    // position_embeddings of positions 0 .. T - 1, each text's
    if (rotary_table_init_from(&rope, 0, T, c->hidden / c->n_head, c->theta,
                               err) != 0) {
        work_free(&one);
        work_free(&w);
        return -1;
    }
    const llama_run run = {NULL, false, pool, NULL};
    int rc = 0;
    for (size_t li = first; rc == 0 && li < first + count; li++) {
        const block_layer b = layer_block(m, li);
        stacked_pass sp = {{&w, h, m, li, &rope, &run}, &one, n, hooks};
        const block_attention attn = {stacked_attend, &sp};
        const block_store store = {
            .get = layer_table, .ctx = &sp.p, .up = &w.up};
        const table_key at = {VARIANT_ID_BLOCK, (int)li, NO_HEAD, TABLE_HIDDEN,
                              false};
        const matrix *out;
        rc = block_layer_forward(&out, &b, &attn, &store, h, NULL, &at, pool,
                                 err);
    }
    rotary_table_free(&rope);
    work_free(&one);
    work_free(&w);
    return rc;
}
