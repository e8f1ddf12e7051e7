/* train_parts.c: the pieces of the training's passes (train_parts.h):
 * working matrices, a head's forward with what its backward pass needs
 * kept and its backward, the top layer (lm_head and the loss), and the
 * fused module's tape, its one pass (attention.h) and its backward.
 *
 * Shapes: T tokens, D = d_model, O = d_out, H heads, hd = O / H, V words
 * in the vocabulary, W the module's output width.
 *
 * Where one tensor feeds several layers (x feeds W_query, W_key and
 * W_value), its gradient is the sum of theirs, added in the order the
 * engine runs their backward nodes: the ready node made last first.
 * That depends on the order the class's forward computes the three
 * projections (train.h, --qkv-order): W_value's part first, then W_query's
 * and W_key's when the keys come first (the book's classes), W_key's and
 * W_query's when the queries do; in the wrapper each head in turn, the
 * last head first.
 *
 * A bias's gradient sums dy (T, O) over the tokens in the order
 * PyTorch's sum kernel reads it, which depends on how autograd lays dy
 * out (dense.h): by columns where the class's view and transpose
 * make it so (the keys of a batched module, every projection of a fused
 * module with heads one column wide), and as one contiguous run whenever
 * dy has one column.
 */
#include "model/lesson/train_parts.h"

#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/layers/attention_head.h"
#include "model/layers/dense.h"
#include "model/loss.h"

/* ---- working matrices ------------------------------------------------- */

int scratch_alloc(scratch *s, matrix *m, size_t rows, size_t cols,
                  mx_error *err)
{
    if (s->n == s->cap) {
        const size_t cap = s->cap ? 2 * s->cap : 16;
        matrix **grown = realloc(s->m, cap * sizeof *grown);
        if (grown == NULL)
            return err_nomem(err, _("the training's working tables"));
        s->m = grown;
        s->cap = cap;
    }
    if (matrix_alloc(m, rows, cols, N_("the training's working tables"), err) !=
        0)
        return -1;
    s->m[s->n++] = m;
    return 0;
}

void scratch_free(scratch *s)
{
    for (size_t i = 0; i < s->n; i++)
        matrix_free(s->m[i]);
    free(s->m);
    *s = (scratch){0};
}

/* ---- one head -------------------------------------------------------- */

int head_tape_alloc(head_tape *h, scratch *s, size_t T, size_t hd,
                    mx_error *err)
{
    matrix *wide[] = {&h->q, &h->k, &h->v, &h->context, &h->dq, &h->dk, &h->dv};
    for (size_t i = 0; i < sizeof wide / sizeof *wide; i++)
        if (scratch_alloc(s, wide[i], T, hd, err) != 0)
            return -1;
    if (scratch_alloc(s, &h->scores, T, T, err) != 0 ||
        scratch_alloc(s, &h->weights, T, T, err) != 0)
        return -1;
    return 0;
}

/* The lessons' head as training runs it: no dropout, no hooks
 * (attention_head.h). */
static head_spec train_head(const attention_config *cfg, size_t hd)
{
    return (head_spec){.causal = cfg->causal,
                       .divisor = score_divisor(hd, cfg->scale),
                       .scale = SCALE_IN_SOFTMAX};
}

void head_tape_forward(head_tape *h, const head_source *src,
                       const attention_config *cfg)
{
    const head_tables t = {.q = &h->q,
                           .k = &h->k,
                           .v = &h->v,
                           .scores = &h->scores,
                           .weights = &h->weights,
                           .context = &h->context};
    const head_spec spec = train_head(cfg, h->q.cols);
    // without hooks the head cannot fail
    (void)attention_head_forward(&t, src, &spec, NULL, NULL, cfg->pool, NULL);
}

int head_room_alloc(head_room *r, scratch *s, size_t T, mx_error *err)
{
    return scratch_alloc(s, &r->dweights, T, T, err) ||
                   scratch_alloc(s, &r->dscores, T, T, err) ||
                   scratch_alloc(s, &r->t_tt, T, T, err) ||
                   scratch_alloc(s, &r->shown, T, T, err)
               ? -1
               : 0;
}

void show_grad(top_layer *t, table_id id, int head, const matrix *g)
{
    if (t->shown != NULL && t->shown_rc == 0)
        t->shown_rc = t->shown->fn(t->shown->ctx, id, t->layer, head, g);
}

void head_back(head_tape *h, head_room *r, const matrix *dcontext,
               const attention_config *cfg, top_layer *top, int head)
{
    const head_saved saved = {
        .q = &h->q, .k = &h->k, .v = &h->v, .weights = &h->weights};
    const head_spec spec = train_head(cfg, h->q.cols);
    attention_head_backward(&h->dq, &h->dk, &h->dv, &r->dweights, &r->dscores,
                            &r->t_tt, top->shown != NULL ? &r->shown : NULL,
                            &saved, &spec, dcontext, cfg->pool);
    // the head's tables' gradients, in the order it makes them
    show_grad(top, TABLE_QUERIES, head, &h->dq);
    show_grad(top, TABLE_KEYS, head, &h->dk);
    show_grad(top, TABLE_VALUES, head, &h->dv);
    show_grad(top, TABLE_ATTN_SCORES, head, &r->shown);
    show_grad(top, TABLE_ATTN_WEIGHTS, head, &r->dweights);
    show_grad(top, TABLE_HEAD_CONTEXT, head, dcontext);
}

/* ---- the layer on top: lm_head and the loss ------------------------- */

/* out (T, W) -> *loss; with t->dlm_head, dout (T, W). */
int top_pass(matrix *dout, top_layer *t, const matrix *out, workers *pool,
             mx_error *err)
{
    const size_t T = out->rows, V = t->lm_head->rows, W = out->cols;
    scratch s = {0};
    matrix logits = {0}, logp = {0}, dlogits = {0}, dt = {0};
    int rc = -1;
    if (scratch_alloc(&s, &logits, T, V, err) ||
        scratch_alloc(&s, &logp, T - 1, V, err) ||
        (t->dlm_head != NULL && (scratch_alloc(&s, &dlogits, T, V, err) ||
                                 scratch_alloc(&s, &dt, V, T, err))))
        goto done;
    // logits (T, V) = out (T, W) @ lm_head.weight (V, W)^T
    linear_forward(&logits, out, t->lm_head, NULL, pool);
    table_key at = {t->variant, 0, NO_HEAD, TABLE_LOGITS, false};
    if (hook_point(t->hooks, &at, &logits, err) != 0)
        goto done;
    t->loss = cross_entropy(t->dlm_head != NULL ? &dlogits : NULL, &logp,
                            &logits, t->ids);
    matrix loss = {.rows = 1, .cols = 1, .v = &t->loss};
    at.id = TABLE_LOSS;
    if (hook_point(t->hooks, &at, &loss, err) != 0)
        goto done;
    if (t->logits != NULL)
        memcpy(t->logits->v, logits.v, T * V * sizeof(float));
    // dlm_head (V, W) = dlogits^T @ out, dout (T, W) = dlogits @ lm_head
    if (t->dlm_head != NULL) {
        show_grad(t, TABLE_LOGITS, NO_HEAD, &dlogits);
        linear_backward(dout, t->dlm_head, NULL, &dt, NULL, &dlogits, out,
                        t->lm_head, false, pool);
    }
    (void)W;
    rc = 0;
done:
    scratch_free(&s);
    return rc;
}

/* ---- the fused module ------------------------------------------------- */

/* MultiHeadAttention: W_query, W_key, W_value O wide, split into heads
 * (view, transpose), contexts side by side, then out_proj: the fused
 * module's one pass (attention.h), which keeps in a fused_tape what its
 * backward reads. */

/* The heads one after another, each over its columns of Q, K and V. */
static int tape_heads(void *ctx, mx_error *err)
{
    (void)err;
    fused_tape *t = ctx;
    for (size_t i = 0; i < t->H; i++) {
        const head_source src = fused_head_source(&t->store, i, t->hd);
        head_tape_forward(&t->h[i], &src, t->cfg);
    }
    return 0;
}

static const matrix *tape_context(void *ctx, size_t h)
{
    const fused_tape *t = ctx;
    return &t->h[h].context;
}

int fused_tape_forward(fused_tape *t, const fused_params *p,
                       const attention_config *cfg, const matrix *x,
                       mx_error *err)
{
    const size_t T = x->rows, O = cfg->d_out, D = x->cols, H = cfg->heads;
    const size_t hd = O / H;
    *t = (fused_tape){.H = H, .hd = hd};
    t->h = calloc(H, sizeof *t->h);
    if (t->h == NULL)
        return err_nomem(err, _("the training's working tables"));
    matrix *wide[] = {&t->Q,       &t->K,  &t->V,  &t->concat, &t->out,
                      &t->dconcat, &t->dQ, &t->dK, &t->dV};
    for (size_t i = 0; i < sizeof wide / sizeof *wide; i++)
        if (scratch_alloc(&t->s, wide[i], T, O, err) != 0)
            return -1;
    if (head_room_alloc(&t->r, &t->s, T, err) ||
        scratch_alloc(&t->s, &t->dctx, T, hd, err) ||
        scratch_alloc(&t->s, &t->part, T, D, err) ||
        scratch_alloc(&t->s, &t->dyt, O, T, err))
        return -1;
    for (size_t i = 0; i < H; i++)
        if (head_tape_alloc(&t->h[i], &t->s, T, hd, err) != 0)
            return -1;
    // the fused module's pass (attention.h), its tables in the tape
    t->cfg = cfg;
    t->store = (fused_store){
        .Q = &t->Q,
        .K = &t->K,
        .V = &t->V,
        .table = {[FUSED_CONCAT_CONTEXT] = &t->concat, [FUSED_OUT] = &t->out},
        .out_id = TABLE_OUT};
    const fused_heads heads = {tape_heads, tape_context, t};
    const matrix *out;
    return fused_module_forward(&out, &t->store, &heads, p, cfg, NULL,
                                VARIANT_ID_FUSED, x, x, err);
}

void fused_tape_backward(matrix *dx, bool dx_first, fused_params *g,
                         fused_tape *t, const fused_params *p,
                         const matrix *dout, const attention_config *cfg,
                         const matrix *x, top_layer *top)
{
    linear_layer_backward(&t->dconcat, &g->out_proj, &p->out_proj, &t->dyt,
                          dout, &t->concat, false, cfg->pool);
    show_grad(top, TABLE_CONCAT_CONTEXT, NO_HEAD, &t->dconcat);
    for (size_t i = 0; i < t->H; i++) {
        take_columns(&t->dctx, &t->dconcat, i * t->hd);
        head_back(&t->h[i], &t->r, &t->dctx, cfg, top, (int)i);
        put_columns(&t->dQ, &t->h[i].dq, i * t->hd);
        put_columns(&t->dK, &t->h[i].dk, i * t->hd);
        put_columns(&t->dV, &t->h[i].dv, i * t->hd);
    }
    // view(b, T, H, hd).transpose(1, 2): the keys' gradient comes back by
    // columns; the queries' and values' too when a head is one column
    // wide (else reshape copies them into rows)
    const bool by_columns[3] = {t->hd == 1, true, t->hd == 1};
    qkv_backward(dx, dx_first, &g->attn, &p->attn, &t->dQ, &t->dK, &t->dV,
                 top->qkv_order, by_columns, &t->part, &t->dyt, x, cfg->pool);
}

void fused_tape_free(fused_tape *t)
{
    scratch_free(&t->s);
    free(t->h);
    t->h = NULL;
}
