/* layer_work.c: one layer of a checkpoint family (layer_work.h).
 *
 * Shapes: rows = n T (n stacked texts of T new tokens), D the model's
 * width, F the feed-forward network's.
 */
#include "model/layers/layer_work.h"

#include "base/i18n.h"

void layer_work_free(layer_work *w)
{
    attention_work_free(&w->attn);
    matrix *all[] = {&w->normed, &w->sum, &w->hidden, &w->up, &w->ffn};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        matrix_free(all[i]);
}

int layer_work_alloc(layer_work *w, const attention_layer *a,
                     const block_layer *b, size_t rows, size_t T, size_t S,
                     mx_error *err)
{
    const bool gated = b->ffn_kind == FFN_SWIGLU;
    const size_t D = a->out.out, F = gated ? b->gated.up.out : b->ffn.fc.out;
    const char *hs = N_("hidden states");
    *w = (layer_work){0};
    if (attention_work_alloc(&w->attn, a, rows, T, S, err) != 0 ||
        matrix_alloc(&w->normed, rows, D, hs, err) != 0 ||
        (b->norm == NORM_AFTER &&
         matrix_alloc(&w->sum, rows, D, hs, err) != 0) ||
        matrix_alloc(&w->hidden, rows, F, hs, err) != 0 ||
        (gated && matrix_alloc(&w->up, rows, F, hs, err) != 0) ||
        matrix_alloc(&w->ffn, rows, D, hs, err) != 0) {
        layer_work_free(w);
        return -1;
    }
    return 0;
}

/* Where the block's tables lie (layer_work.h): in w, and in h in place. */
static block_store layer_store(layer_work *w, matrix *h, norm_place norm)
{
    block_store s = {.up = &w->up};
    s.table[BLOCK_FFN_HIDDEN] = &w->hidden;
    s.table[BLOCK_FFN_OUT] = &w->ffn;
    if (norm == NORM_BEFORE) {
        s.table[BLOCK_LN_1] = s.table[BLOCK_LN_2] = &w->normed;
        s.table[BLOCK_RESIDUAL] = s.table[BLOCK_HIDDEN] = h;
    } else {
        s.table[BLOCK_ADD_NORM1] = &w->normed;
        s.table[BLOCK_OUT] = h;
        s.sum1 = s.sum2 = &w->sum;
    }
    return s;
}

int layer_work_run(matrix *h, layer_work *w, const block_layer *b,
                   const attention_layer *a, const attention_pass *pass,
                   const table_key *at, mx_error *err)
{
    attention_call call = {&w->attn, a, pass};
    const block_attention attn = {attention_sublayer_run, &call};
    const block_store store = layer_store(w, h, b->norm);
    const matrix *out;
    return block_layer_forward(&out, b, &attn, &store, h, pass->hooks, at,
                               pass->pool, err);
}
