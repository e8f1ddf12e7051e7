/* attention_head.c: one attention head forward and backward, for every
 * family (attention_head.h).
 *
 * Shapes: T query tokens, S key/value tokens (T for self-attention), D
 * the input width, hd the head's width.
 */
#include "model/layers/attention_head.h"

#include <string.h>

#include "model/dropout.h"
#include "model/layers/dense.h"

/* q (T, hd) = W_query(x), k and v (S, hd) = W_key(kv), W_value(kv): the
 * head's own projections (nn.Linear: x @ W^T + b), or its columns of the
 * module's (the view + transpose into heads). */
static void project(const head_tables *t, const head_source *src, workers *pool)
{
    if (src->own != NULL) {
        qkv_forward(t->q, t->k, t->v, src->own, src->x, src->kv, pool);
        return;
    }
    take_columns(t->q, src->from[0], src->first[0]);
    take_columns(t->k, src->from[1], src->first[1]);
    take_columns(t->v, src->from[2], src->first[2]);
}

/* attn_scores (T, S) = q @ k^T, later keys -inf when causal; with
 * SCALE_SCORES divided by the divisor, with SCALE_SCORES_TIMES multiplied
 * by the factor (the masked cells stay -inf). */
static void scores(const head_tables *t, const matrix *q, const matrix *k,
                   const head_spec *spec, workers *pool)
{
    if (spec->causal)
        causal_scores(t->scores, q, k, pool);
    else
        matmul_transposed(t->scores, q, k, pool);
    if (spec->scale == SCALE_IN_SOFTMAX)
        return;
    // GPT-2: attn_weights / torch.full([], hd ** 0.5), then the mask;
    // Llama-style: attn_weights * scaling, then + the mask's 0
    for (size_t i = 0; i < t->scores->rows; i++) {
        const size_t live = spec->causal ? i + 1 : t->scores->cols;
        for (size_t j = 0; j < live; j++) {
            float *s = matrix_at(t->scores, i, j);
            if (spec->scale == SCALE_SCORES)
                *s /= spec->divisor;
            else
                *s *= spec->factor;
            if (spec->mask_added)
                *s += 0.0f;
        }
    }
}

/* With dropout: dropout_mask (T, S) drawn from the head's generator,
 * attn_weights_dropped (T, S) = attn_weights * dropout_mask. */
static void drop(const head_tables *t, const head_spec *spec)
{
    torch_rng g = *t->drop;
    const size_t n = t->weights->rows * t->weights->cols;
    dropout_noise(t->mask->v, n, spec->dropout, &g);
    dropout_apply(t->dropped->v, t->weights->v, t->mask->v, n);
}

/* The hook point of table id over m. */
static int point(const forward_hooks *hk, const table_key *at, table_id id,
                 matrix *m, mx_error *err)
{
    if (hk == NULL)
        return 0;
    const table_key key = hook_at(at, id);
    return hook_point(hk, &key, m, err);
}

int attention_head_forward(const head_tables *t, const head_source *src,
                           const head_spec *spec, const forward_hooks *hk,
                           const table_key *at, workers *pool, mx_error *err)
{
    // queries, keys, values: the projections
    project(t, src, pool);
    // keys that come rotated (a cache's) are shown once, as keys_rotated:
    // the keys before rotation are not kept
    if (point(hk, at, TABLE_QUERIES, t->q, err) != 0 ||
        (!spec->keys_rotated && point(hk, at, TABLE_KEYS, t->k, err) != 0) ||
        point(hk, at, TABLE_VALUES, t->v, err) != 0)
        return -1;

    // positions: a rotary family's q and k rotated by their positions
    const matrix *q = t->q, *k = t->k;
    if (spec->rope != NULL) {
        rotary_apply(t->q_rot, t->q, spec->rope);
        if (spec->keys_rotated)
            memcpy(t->k_rot->v, t->k->v,
                   t->k->rows * t->k->cols * sizeof *t->k->v);
        else
            rotary_apply(t->k_rot, t->k, spec->rope);
        if (point(hk, at, TABLE_QUERIES_ROTATED, t->q_rot, err) != 0 ||
            point(hk, at, TABLE_KEYS_ROTATED, t->k_rot, err) != 0)
            return -1;
        q = t->q_rot;
        k = t->k_rot;
    }

    // attn_scores (T, S) = q (T, hd) @ k (S, hd)^T, later keys masked
    scores(t, q, k, spec, pool);
    if (point(hk, at, TABLE_ATTN_SCORES, t->scores, err) != 0)
        return -1;

    // attn_weights (T, S) = softmax(attn_scores / sqrt(hd)), or of the
    // scores already scaled
    const float divisor = spec->scale == SCALE_IN_SOFTMAX ? spec->divisor : 1;
    softmax_rows(t->weights, t->scores, divisor);
    if (point(hk, at, TABLE_ATTN_WEIGHTS, t->weights, err) != 0)
        return -1;

    // dropout (training mode): attn_weights = self.dropout(attn_weights)
    const matrix *weights = t->weights;
    if (t->mask != NULL) {
        drop(t, spec);
        if (point(hk, at, TABLE_DROPOUT_MASK, t->mask, err) != 0 ||
            point(hk, at, TABLE_ATTN_WEIGHTS_DROPPED, t->dropped, err) != 0)
            return -1;
        weights = t->dropped;
    }

    // head_context (T, hd) = attn_weights (T, S) @ v (S, hd)
    matmul(t->context, weights, t->v, pool);
    return point(hk, at, TABLE_HEAD_CONTEXT, t->context, err);
}

/* softmax's backward over each row: dscores (T, S) = weights *
 * (dweights - rowsum(dweights * weights)), the row sum in the order of
 * vec::map2_reduce_all. */
static void softmax_backward(matrix *dscores, const matrix *dweights,
                             const matrix *weights)
{
    // dscores, dweights, weights (T, S)
    const size_t S = weights->cols;
    for (size_t t = 0; t < weights->rows; t++) {
        const float *dp = matrix_at(dweights, t, 0);
        const float *p = matrix_at(weights, t, 0);
        float *ds = matrix_at(dscores, t, 0);
        const float sum = products_sum(dp, p, NULL, S);
        for (size_t s = 0; s < S; s++)
            ds[s] = (dp[s] - sum) * p[s];
    }
}

void attention_head_backward(matrix *dq, matrix *dk, matrix *dv,
                             matrix *dweights, matrix *dscores, matrix *t_st,
                             matrix *shown, const head_saved *h,
                             const head_spec *spec, const matrix *dcontext,
                             workers *pool)
{
    // context = weights @ v: dweights (T, S) = dcontext (T, hd) @ v^T,
    // dv (S, hd) = weights^T (S, T) @ dcontext
    matmul_transposed(dweights, dcontext, h->v, pool);
    transpose(t_st, h->weights);
    matmul_full(dv, t_st, dcontext, pool);

    // weights = softmax(scores / divisor): the softmax's backward, then
    // the division's (dscores / divisor), then the mask's (masked cells
    // get no gradient)
    softmax_backward(dscores, dweights, h->weights);
    const size_t n = dscores->rows * dscores->cols;
    // d loss / d attn_scores: the scaled scores' before the division
    // when the table holds them scaled, else the raw scores'
    if (shown != NULL && spec->scale != SCALE_IN_SOFTMAX)
        memcpy(shown->v, dscores->v, n * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        if (spec->scale == SCALE_SCORES_TIMES)
            dscores->v[i] *= spec->factor;
        else
            dscores->v[i] /= spec->divisor;
    }
    if (shown != NULL && spec->scale == SCALE_IN_SOFTMAX)
        memcpy(shown->v, dscores->v, n * sizeof(float));
    for (size_t t = 0; t < dscores->rows; t++)
        for (size_t s = t + 1; spec->causal && s < dscores->cols; s++)
            *matrix_at(dscores, t, s) = 0.0f;

    // scores = q @ k^T: dq (T, hd) = dscores @ k, dk (S, hd) = dscores^T
    // @ q
    matmul_full(dq, dscores, h->k, pool);
    transpose(t_st, dscores);
    matmul_full(dk, t_st, h->q, pool);
}
