/* block.c: the Transformer block of the Cantonese lesson (block.h): its
 * constructor, its layers and its forward method.
 *
 * Shapes: T tokens, D = d_model (the attention's width O too), F the
 * feed-forward width.
 */
#include "model/lesson/block.h"

#include <string.h>

#include "base/i18n.h"

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
 * nn.Linear(F, D)), norm2 = nn.LayerNorm(D); with ff 0 the
 * attention-only block, its attention alone. */
int block_init(block_params *p, const attention_config *cfg, size_t ff,
               torch_rng *g, mx_error *err)
{
    const size_t D = cfg->d_model;
    memset(p, 0, sizeof *p);
    p->attn_only = ff == 0;
    if (fused_init(&p->attention, cfg, g, err) != 0)
        return -1;
    if (p->attn_only)
        return 0;
    if (norm_init(&p->norm1_weight, &p->norm1_bias, D, err) != 0 ||
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

/* ---- the forward method ----------------------------------------------- */

/* The block's parameters as the one Transformer block computes them
 * (transformer_block.h): post-norm, ReLU, with the run's --dropout. */
block_layer block_layer_of(const block_params *p, const attention_config *cfg)
{
    return (block_layer){
        .norm = p->attn_only ? NORM_NONE : NORM_AFTER,
        .norm1 = {p->norm1_weight.v, p->norm1_bias.v, LAYER_NORM_EPS},
        .norm2 = {p->norm2_weight.v, p->norm2_bias.v, LAYER_NORM_EPS},
        .ffn = {dense_of_linear(&p->ff0), dense_of_linear(&p->ff2), ACT_RELU},
        .dropout = cfg->dropout,
        .dropout_rng = cfg->dropout_rng,
        .batch = cfg->batch,
    };
}

/* What the block's forward pass reads and where it writes. */
typedef struct {
    trace *tr;
    variant_id variant; /* the running variant, its tables' key */
    const block_params *p;
    const attention_config *cfg;
    const attention_input *in;
    const sequence_labels *lab;
    size_t F; /* the feed-forward width */
} block_run;

/* The attention sublayer: the fused module over x, its tables under the
 * block, its output the table attn_out. */
static int block_attend(const matrix **out, const block_run *r, const matrix *x,
                        mx_error *err)
{
    const attention_input in = {x, r->in->kv};
    return fused_attend(out, r->tr, r->variant, TABLE_ATTN_OUT,
                        &r->p->attention, r->cfg, &in, r->lab, err);
}

/* The block's attention as the block asks for it: its output, which
 * block_forward has made already (ctx: where it lies). */
static int attention_made(void *ctx, const matrix **out, const matrix *x,
                          mx_error *err)
{
    (void)x;
    (void)err;
    *out = *(const matrix *const *)ctx;
    return 0;
}

/* The block's own tables, the store's, made in the trace under cfg's
 * layer in the order block b fills them (block_slots_filled), as the
 * fused module's are (attention.c): one row per token, F columns for
 * ffn_hidden, D for the others. */
static int block_tables(block_store *s, const block_run *r,
                        const block_layer *b, mx_error *err)
{
    block_slot order[BLOCK_SLOTS];
    const size_t n = block_slots_filled(order, b);
    for (size_t i = 0; i < n; i++) {
        const table_id id = block_slot_id(order[i]);
        table *t = module_table(r->tr, r->variant, id,
                                id == TABLE_FFN_HIDDEN ? r->F : r->cfg->d_model,
                                r->cfg, r->lab, err);
        if (t == NULL)
            return -1;
        s->table[order[i]] = &t->values;
    }
    return 0;
}

/* TransformerBlock.forward over x (T, D) (post-norm; with --dropout P
 * in training mode, nn.Dropout(P) on the attention's and the
 * feed-forward's outputs, their masks drawn over the (B, T, D) batch one
 * after the other), as transformer_block.h computes it:
 *   attn_out (T, D)   = attention(x)
 *   attn_out_dropout_mask (T, D)  (--dropout)
 *   add_norm1 (T, D)  = norm1(x + dropout(attn_out))
 *   ffn_hidden (T, F), ffn_out (T, D) = ff(add_norm1)
 *   ffn_out_dropout_mask (T, D)   (--dropout)
 *   out (T, D)        = norm2(add_norm1 + dropout(ffn_out))
 * or, attention only (--attn-only, without dropout):
 *   out (T, D)        = x + attn_out */
int block_forward(trace *tr, variant_id variant, const block_params *p,
                  const attention_config *cfg, const attention_input *in,
                  const sequence_labels *lab, mx_error *err)
{
    const size_t T = in->x->rows, D = cfg->d_model;
    const size_t F = p->attn_only ? D : p->ff0.weight.rows;
    const block_run r = {tr, variant, p, cfg, in, lab, F};
    const table_key at = {variant, cfg->layer, NO_HEAD, TABLE_OUT, false};
    // sum (T, D): each residual connection; dropped (T, D): an output
    // after its dropout; working matrices the trace does not keep
    matrix sum = {0}, dropped = {0};
    const bool dropout = cfg->dropout > 0;
    if (matrix_alloc(&sum, T, D, N_("a residual"), err) != 0 ||
        (dropout && matrix_alloc(&dropped, T, D, N_("a residual"), err) != 0)) {
        matrix_free(&sum);
        return -1;
    }
    const block_layer b = block_layer_of(p, cfg);
    block_store store = {.sum1 = &sum, .sum2 = &sum, .dropped = &dropped};
    // the attention first, as the block (norm after, or attention only)
    // runs it first: the trace keeps its tables before the block's
    const matrix *attn_out;
    const block_attention attn = {attention_made, &attn_out};
    const matrix *out;
    int rc = block_attend(&attn_out, &r, in->x, err);
    if (rc == 0)
        rc = block_tables(&store, &r, &b, err);
    if (rc == 0)
        rc = block_layer_forward(&out, &b, &attn, &store, in->x, cfg->hooks,
                                 &at, cfg->pool, err);
    matrix_free(&sum);
    matrix_free(&dropped);
    return rc;
}
