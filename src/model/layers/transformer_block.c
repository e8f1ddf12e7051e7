/* transformer_block.c: the Transformer block of every model
 * (transformer_block.h).
 *
 * Shapes: T tokens, D the model's width, F the network's.
 */
#include "model/layers/transformer_block.h"

#include <assert.h>

#include "model/dropout.h"
#include "numerics/rms_norm.h"

/* The tables of one residual sublayer, slots of the store. */
typedef struct {
    block_slot normed;   /* norm before: the sublayer's normed input */
    block_slot mask;     /* its output's dropout mask */
    block_slot out_post; /* norm after: norm(x + sublayer) */
    block_slot out_pre;  /* norm before: x + sublayer */
} sublayer_tables;

static const sublayer_tables ATTENTION = {BLOCK_LN_1, BLOCK_ATTN_MASK,
                                          BLOCK_ADD_NORM1, BLOCK_RESIDUAL};
static const sublayer_tables FEED_FORWARD = {BLOCK_LN_2, BLOCK_FFN_MASK,
                                             BLOCK_OUT, BLOCK_HIDDEN};

/* Each slot's catalogue row. */
static const table_id SLOT_IDS[BLOCK_SLOTS] = {
    [BLOCK_LN_1] = TABLE_LN_1,
    [BLOCK_ATTN_MASK] = TABLE_ATTN_OUT_DROPOUT_MASK,
    [BLOCK_ADD_NORM1] = TABLE_ADD_NORM1,
    [BLOCK_RESIDUAL] = TABLE_RESIDUAL,
    [BLOCK_LN_2] = TABLE_LN_2,
    [BLOCK_FFN_HIDDEN] = TABLE_FFN_HIDDEN,
    [BLOCK_FFN_OUT] = TABLE_FFN_OUT,
    [BLOCK_FFN_MASK] = TABLE_FFN_OUT_DROPOUT_MASK,
    [BLOCK_OUT] = TABLE_OUT,
    [BLOCK_HIDDEN] = TABLE_HIDDEN,
};

table_id block_slot_id(block_slot s)
{
    return SLOT_IDS[s];
}

size_t block_slots_filled(block_slot *order, const block_layer *b)
{
    size_t n = 0;
    if (b->norm == NORM_NONE) {
        order[n++] = BLOCK_OUT;
        return n;
    }
    for (int i = 0; i < 2; i++) {
        const sublayer_tables *ids = i == 0 ? &ATTENTION : &FEED_FORWARD;
        if (b->norm == NORM_BEFORE)
            order[n++] = ids->normed;
        if (i == 1) {
            order[n++] = BLOCK_FFN_HIDDEN;
            order[n++] = BLOCK_FFN_OUT;
        }
        if (b->dropout > 0)
            order[n++] = ids->mask;
        order[n++] = b->norm == NORM_BEFORE ? ids->out_pre : ids->out_post;
    }
    return n;
}

/* What one pass of the block works with. */
typedef struct {
    const block_layer *b;
    const block_attention *attn;
    const block_store *s;
    const forward_hooks *hk;
    const table_key *at;
    workers *pool;
    torch_rng drop; /* the dropout masks' generator */
} block_pass;

/* The store's matrix of slot s, passed through its hook point once
 * computed. */
static matrix *get(const block_pass *p, block_slot s)
{
    assert(p->s->table[s] != NULL);
    return p->s->table[s];
}

static int point(const block_pass *p, block_slot s, matrix *m, mx_error *err)
{
    if (p->hk == NULL)
        return 0;
    const table_key key = hook_at(p->at, SLOT_IDS[s]);
    return hook_point(p->hk, &key, m, err);
}

/* The sublayer itself over in (T, D): *f (T, D), the attention's output
 * or the feed-forward network's, of its kind (ffn_hidden and ffn_out from
 * the store). */
static int sublayer_run(const matrix **f, block_pass *p, bool attention,
                        const matrix *in, mx_error *err)
{
    if (attention)
        return p->attn->run(p->attn->ctx, f, in, err);
    matrix *hidden = get(p, BLOCK_FFN_HIDDEN), *out = get(p, BLOCK_FFN_OUT);
    const block_layer *b = p->b;
    if ((b->ffn_kind == FFN_SWIGLU
             ? swiglu_forward(out, hidden, p->s->up, in, &b->gated, p->hk,
                              p->at, p->pool, err)
             : mlp_forward(out, hidden, in, &b->ffn, p->hk, p->at, p->pool,
                           err)) != 0)
        return -1;
    *f = out;
    return 0;
}

/* With dropout: the mask of f (T, D) drawn, *f the dropped output (the
 * store's dropped); after the attention's, the rest of the batch's mask
 * is skipped, then the feed-forward's follows. */
static int sublayer_dropout(const matrix **f, block_pass *p, bool attention,
                            block_slot slot, mx_error *err)
{
    const size_t n = (*f)->rows * (*f)->cols;
    matrix *mask = get(p, slot);
    dropout_noise(mask->v, n, p->b->dropout, &p->drop);
    if (attention)
        rng_bernoulli_skip((p->b->batch - 1) * n, &p->drop);
    dropout_apply(p->s->dropped->v, (*f)->v, mask->v, n);
    *f = p->s->dropped;
    return point(p, slot, mask, err);
}

/* y (T, D) = the block's norm n over the rows of x (T, D): nn.LayerNorm,
 * each row's mean and rstd into mean and rstd (T each) when not NULL, or
 * RMSNorm. */
static void norm(matrix *y, float *mean, float *rstd, const matrix *x,
                 const block_layer *b, const layer_norm_params *n)
{
    if (b->norm_kind == NORM_RMS_NORM)
        rms_norm(y, x, n->weight, n->eps);
    else
        layer_norm_forward(y, mean, rstd, x, n);
}

/* One residual sublayer over x (T, D) into *y (T, D): norm(x +
 * sublayer(x)) after, x + sublayer(norm(x)) before. */
static int sublayer(const matrix **y, block_pass *p, bool attention,
                    const matrix *x, mx_error *err)
{
    const block_layer *b = p->b;
    const sublayer_tables *ids = attention ? &ATTENTION : &FEED_FORWARD;
    const layer_norm_params *n = attention ? &b->norm1 : &b->norm2;
    // norm before: ln_1 (T, D) or ln_2 (T, D) = norm(x)
    const matrix *in = x;
    if (b->norm == NORM_BEFORE) {
        matrix *normed = get(p, ids->normed);
        norm(normed, NULL, NULL, x, b, n);
        if (point(p, ids->normed, normed, err) != 0)
            return -1;
        in = normed;
    }
    const matrix *f;
    if (sublayer_run(&f, p, attention, in, err) != 0 ||
        (b->dropout > 0 &&
         sublayer_dropout(&f, p, attention, ids->mask, err) != 0))
        return -1;
    matrix *out = get(p, b->norm == NORM_BEFORE ? ids->out_pre : ids->out_post);
    if (b->norm == NORM_BEFORE) {
        // residual or hidden (T, D) = x + f, in PyTorch's order
        if (attention && b->attn_out_first)
            add(out, f, x);
        else
            add(out, x, f);
        *y = out;
        return point(p, ids->out_pre, out, err);
    }
    // add_norm1 or out (T, D) = norm(x + f), the sum kept for training
    matrix *sum = attention ? p->s->sum1 : p->s->sum2;
    add(sum, x, f);
    norm(out, attention ? p->s->mean1 : p->s->mean2,
         attention ? p->s->rstd1 : p->s->rstd2, sum, b, n);
    *y = out;
    return point(p, ids->out_post, out, err);
}

int block_layer_forward(const matrix **out, const block_layer *b,
                        const block_attention *attn, const block_store *s,
                        const matrix *x, const forward_hooks *hk,
                        const table_key *at, workers *pool, mx_error *err)
{
    block_pass p = {
        .b = b, .attn = attn, .s = s, .hk = hk, .at = at, .pool = pool};
    if (b->norm == NORM_NONE) {
        // attention only: out (T, D) = x + attn_out
        const matrix *f;
        if (attn->run(attn->ctx, &f, x, err) != 0)
            return -1;
        matrix *y = get(&p, BLOCK_OUT);
        add(y, x, f);
        *out = y;
        return point(&p, BLOCK_OUT, y, err);
    }
    if (b->dropout > 0)
        p.drop = *b->dropout_rng;
    const matrix *mid;
    if (sublayer(&mid, &p, true, x, err) != 0)
        return -1;
    return sublayer(out, &p, false, mid, err);
}
