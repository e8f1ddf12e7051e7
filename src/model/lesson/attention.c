/* attention.c: what the notebooks' attention modules share (attention.h):
 * the fused module's constructor and its one forward pass, which the
 * fused variant and the block run, and how a module's heads are run in
 * the trace, over the scheduling of heads.c. Each
 * module's own constructor, forward and training pass are in its
 * variant's file (variants/NAME.c).
 *
 * Shapes: T query tokens, S key/value tokens (T for self-attention), D =
 * d_model, O = d_out, H heads, hd = O / H the width of a head (O in the
 * single head).
 */
#include "model/lesson/attention.h"

#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/heads.h"
#include "model/layers/dense.h"
#include "model/hooks.h"

/* ---- the constructors: which nn.Linear are drawn, in which order ------- */

/* MultiHeadAttention(D, O, H): W_query, W_key, W_value, each nn.Linear(D,
 * O), then out_proj, nn.Linear(O, O) with a bias. */
int fused_init(fused_params *p, const attention_config *cfg, torch_rng *g,
               mx_error *err)
{
    memset(p, 0, sizeof *p);
    if (qkv_init(&p->attn, cfg->d_model, cfg->d_out, cfg->qkv_bias, g, err) !=
        0)
        return -1;
    if (linear_init(&p->out_proj, cfg->d_out, cfg->d_out, true, g, err) != 0) {
        fused_free(p);
        return -1;
    }
    return 0;
}

void fused_free(fused_params *p)
{
    qkv_free(&p->attn);
    linear_free(&p->out_proj);
}

/* ---- the layers ------------------------------------------------------- */

/* The lessons' head: masked -inf, then softmax(attn_scores / sqrt(hd))
 * (attention_head.h). */
static head_spec lesson_head(const attention_config *cfg, size_t hd)
{
    return (head_spec){.causal = cfg->causal,
                       .divisor = score_divisor(hd, cfg->scale),
                       .scale = SCALE_IN_SOFTMAX,
                       .dropout = cfg->attn_dropout};
}

head_source fused_head_source(const fused_store *s, size_t h, size_t hd)
{
    return (head_source){.from = {s->Q, s->K, s->V},
                         .first = {h * hd, h * hd, h * hd}};
}

int module_head(const head_tables *t, const void *ctx, mx_error *err)
{
    const module_heads *src = ctx;
    const size_t hd = t->q->cols;
    head_source from = {.x = src->in->x, .kv = src->in->kv};
    if (src->own != NULL)
        from.own = &src->own[t->h];
    else
        from = fused_head_source(src->fused, t->h, hd);
    const head_spec spec = lesson_head(src->cfg, hd);
    const table_key at = {src->variant, src->cfg->layer, (int)t->h,
                          TABLE_QUERIES, false};
    return attention_head_forward(t, &from, &spec, src->cfg->hooks, &at,
                                  src->cfg->pool, err);
}

int module_point(const forward_hooks *hk, const attention_config *cfg,
                 variant_id variant, table_id id, matrix *m, mx_error *err)
{
    const table_key at = {variant, cfg->layer, NO_HEAD, id, false};
    return hook_point(hk, &at, m, err);
}

table *module_table(trace *tr, variant_id variant, table_id id, size_t width,
                    const attention_config *cfg, const sequence_labels *lab,
                    mx_error *err)
{
    const table_key key = {variant, cfg->layer, NO_HEAD, id, false};
    const labels *dims = trace_index_labels(tr, "dim", width, err);
    return dims == NULL ? NULL : trace_new(tr, &key, lab->tokens, dims, err);
}

/* ---- the fused module, written once --------------------------------- */

table_id fused_slot_id(const fused_store *s, fused_slot slot)
{
    return slot == FUSED_OUT ? s->out_id : TABLE_CONCAT_CONTEXT;
}

int fused_module_heads(const fused_store *s, const fused_heads *heads,
                       const fused_params *p, const attention_config *cfg,
                       const matrix *x, const matrix *kv, mx_error *err)
{
    // Q (T, O), K and V (S, O) = W_query(x), W_key(kv), W_value(kv): one
    // projection for all heads
    qkv_forward(s->Q, s->K, s->V, &p->attn, x, kv, cfg->pool);
    // the heads: each split off Q, K and V, then its attention
    return heads->run(heads->ctx, err);
}

int fused_module_out(const matrix **out, const fused_store *s,
                     const fused_heads *heads, const fused_params *p,
                     const attention_config *cfg, const forward_hooks *hk,
                     variant_id variant, mx_error *err)
{
    const size_t H = cfg->heads, hd = cfg->d_out / H;
    // concat_context (T, O): transpose back (T, H, hd) and view (T, O),
    // head h in columns [h*hd, (h+1)*hd)
    matrix *concat = s->table[FUSED_CONCAT_CONTEXT];
    for (size_t h = 0; h < H; h++)
        put_columns(concat, heads->context(heads->ctx, h), h * hd);
    if (module_point(hk, cfg, variant, fused_slot_id(s, FUSED_CONCAT_CONTEXT),
                     concat, err) != 0)
        return -1;
    // out (T, O) = out_proj(concat_context) = concat_context (T, O) @
    // out_proj.weight^T + out_proj.bias
    matrix *o = s->table[FUSED_OUT];
    linear_layer_forward(o, concat, &p->out_proj, cfg->pool);
    *out = o;
    return module_point(hk, cfg, variant, fused_slot_id(s, FUSED_OUT), o, err);
}

int fused_module_forward(const matrix **out, const fused_store *s,
                         const fused_heads *heads, const fused_params *p,
                         const attention_config *cfg, const forward_hooks *hk,
                         variant_id variant, const matrix *x, const matrix *kv,
                         mx_error *err)
{
    if (fused_module_heads(s, heads, p, cfg, x, kv, err) != 0)
        return -1;
    return fused_module_out(out, s, heads, p, cfg, hk, variant, err);
}

/* The lessons' fused module: its tables in the trace, its projections
 * working matrices the trace does not keep (the store's Q, K and V). */
typedef struct {
    trace *tr;
    variant_id variant;
    const attention_config *cfg;
    const attention_input *in;
    const sequence_labels *lab;
    fused_store store;
    head_set heads;
    matrix Q, K, V;
    table *made[FUSED_SLOTS]; /* the slots' tables, once made */
} lesson_fused;

/* The heads in batches (heads.c); then Q, K and V freed. */
static int lesson_fused_heads(void *ctx, mx_error *err)
{
    lesson_fused *f = ctx;
    const size_t T = f->in->x->rows, S = f->in->kv->rows, O = f->cfg->d_out;
    const module_heads src = {
        .variant = f->variant, .cfg = f->cfg, .in = f->in, .fused = &f->store};
    const head_plan plan = {.variant = f->variant,
                            .heads = f->cfg->heads,
                            .width = O / f->cfg->heads,
                            .attend = module_head,
                            .ctx = &src,
                            .what = N_("the heads"),
                            // one (B, H, T, S) tensor: element 0's heads
                            // first
                            .dropout_stride = T * S};
    const int rc =
        heads_run(&f->heads, f->tr, &plan, f->cfg, f->in, f->lab, err);
    matrix_free(&f->Q);
    matrix_free(&f->K);
    matrix_free(&f->V);
    return rc;
}

static const matrix *lesson_fused_context(void *ctx, size_t h)
{
    const lesson_fused *f = ctx;
    return heads_context(&f->heads, h);
}

/* The slots' tables, concat_context then the output, made in the trace
 * after the heads' own as the module fills them: new tables of the
 * variant, their matrices the store's. */
static int lesson_fused_tables(lesson_fused *f, mx_error *err)
{
    for (fused_slot s = 0; s < FUSED_SLOTS; s++) {
        f->made[s] =
            module_table(f->tr, f->variant, fused_slot_id(&f->store, s),
                         f->cfg->d_out, f->cfg, f->lab, err);
        if (f->made[s] == NULL)
            return -1;
        f->store.table[s] = &f->made[s]->values;
    }
    return 0;
}

/* MultiHeadAttention.forward over x (T, D) (keys and values over kv (S,
 * D)):
 *   Q (T, O), K and V (S, O)   = W_query(x), W_key(kv), W_value(kv)
 *   per head (view, transpose)  q (T, hd), k and v (S, hd): attention
 *   concat_context (T, O)      = the heads' contexts, transposed back
 *   out (T, O)                 = out_proj(concat_context)
 * out is made as the table out_id. */
int fused_attend(const matrix **out, trace *tr, variant_id variant,
                 table_id out_id, const fused_params *p,
                 const attention_config *cfg, const attention_input *in,
                 const sequence_labels *lab, mx_error *err)
{
    const size_t T = in->x->rows, S = in->kv->rows, O = cfg->d_out;
    lesson_fused f = {
        .tr = tr, .variant = variant, .cfg = cfg, .in = in, .lab = lab};
    f.store = (fused_store){.Q = &f.Q, .K = &f.K, .V = &f.V, .out_id = out_id};
    const fused_heads heads = {lesson_fused_heads, lesson_fused_context, &f};
    int rc = -1;
    // Q (T, O), K and V (S, O): working matrices the trace does not keep
    if (matrix_alloc(&f.Q, T, O, N_("the queries"), err) == 0 &&
        matrix_alloc(&f.K, S, O, N_("the keys"), err) == 0 &&
        matrix_alloc(&f.V, S, O, N_("the values"), err) == 0 &&
        fused_module_heads(&f.store, &heads, p, cfg, in->x, in->kv, err) == 0 &&
        lesson_fused_tables(&f, err) == 0)
        rc = fused_module_out(out, &f.store, &heads, p, cfg, cfg->hooks,
                              variant, err);
    matrix_free(&f.Q);
    matrix_free(&f.K);
    matrix_free(&f.V);
    // the contexts and concat_context are released once read
    table *concat = f.made[FUSED_CONCAT_CONTEXT];
    for (size_t h = 0; h < f.heads.n && concat != NULL; h++)
        heads_release_context(tr, &f.heads, h);
    if (concat != NULL && rc == 0)
        trace_release(tr, concat);
    heads_free(&f.heads);
    return rc;
}
