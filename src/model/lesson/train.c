/* train.c: the training loop (train.h): each variant's forward pass with
 * what its backward pass needs kept, the backward pass in the order
 * PyTorch's autograd engine runs it, and the optimizer's step.
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
#include "model/lesson/train.h"
#include "model/lesson/train_parts.h"

#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/layers/attention_head.h"
#include "model/layers/dense.h"
#include "model/loss.h"
#include "model/tokenize.h"
#include "model/lesson/variants.h"
#include "numerics/rng.h"

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

/* concat_context and out: the tape's. */
static matrix *tape_table(void *ctx, table_id id, mx_error *err)
{
    (void)err;
    fused_tape *t = ctx;
    return id == TABLE_CONCAT_CONTEXT ? &t->concat : &t->out;
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
    t->store = (fused_store){.Q = &t->Q,
                             .K = &t->K,
                             .V = &t->V,
                             .heads = tape_heads,
                             .context = tape_context,
                             .get = tape_table,
                             .ctx = t,
                             .out_id = TABLE_OUT};
    const matrix *out;
    return fused_module_forward(&out, &t->store, p, cfg, NULL, VARIANT_ID_FUSED,
                                x, x, err);
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

/* ---- the whole pass ---------------------------------------------------- */

void train_inputs(matrix *x, const train_model *m, const size_t *ids)
{
    const size_t D = x->cols;
    for (size_t t = 0; t < x->rows; t++) {
        float *row = matrix_at(x, t, 0);
        memcpy(row, matrix_at(m->embedding, ids[t], 0), D * sizeof(float));
        if (m->positions != NULL)
            for (size_t d = 0; d < D; d++)
                row[d] += *matrix_at(m->positions, t, d);
    }
}

int train_pass(float *loss, matrix *logits, const train_model *grad,
               const train_model *m, variant_id v, const model_dims *dims,
               const attention_config *cfg, const train_sentence *s,
               const train_shown *shown, mx_error *err)
{
    (void)dims;
    const size_t T = s->n, D = m->embedding->cols;
    scratch sc = {0};
    matrix x = {0}, dx = {0};
    int rc = -1;
    if (scratch_alloc(&sc, &x, T, D, err) || scratch_alloc(&sc, &dx, T, D, err))
        goto done;
    // x (T, D) = emb(ids) + pos(arange(T))
    train_inputs(&x, m, s->ids);
    top_layer top = {
        .lm_head = m->lm_head,
        .dlm_head = grad != NULL ? grad->lm_head : NULL,
        .logits = logits,
        .ids = s->ids,
        .shown = grad != NULL ? shown : NULL,
        .qkv_order = m->qkv_order,
        .hooks = cfg->hooks,
        .variant = v,
    };
    // the module's pass, as its variant's row names it (variants.h)
    if (variant_row_of(v)->train(&dx, grad != NULL ? grad->module : NULL,
                                 m->module, cfg, &x, &top, err) != 0)
        goto done;
    *loss = top.loss;
    show_grad(&top, TABLE_INPUTS, NO_HEAD, &dx);
    if (top.shown_rc != 0)
        goto done;
    if (grad != NULL) {
        // the embedding's backward: row ids[t] adds dx[t], in token order
        matrix *de = grad->embedding;
        memset(de->v, 0, de->rows * de->cols * sizeof(float));
        for (size_t t = 0; t < T; t++)
            for (size_t d = 0; d < D; d++)
                *matrix_at(de, s->ids[t], d) += *matrix_at(&dx, t, d);
        if (grad->positions != NULL) {
            matrix *dp = grad->positions;
            memset(dp->v, 0, dp->rows * dp->cols * sizeof(float));
            for (size_t t = 0; t < T; t++)
                for (size_t d = 0; d < D; d++)
                    *matrix_at(dp, t, d) += *matrix_at(&dx, t, d);
        }
    }
    rc = 0;
done:
    scratch_free(&sc);
    return rc;
}

/* ---- the parameters, listed in the order of params ------------------ */

/* A parameter and its gradient. */
typedef struct {
    matrix *value, *grad;
} param_pair;

/* Where list_matrix appends: m has room for every parameter. */
typedef struct {
    matrix **m;
    size_t n;
} matrix_list;

/* A param_fn: appends a present parameter's matrix (ctx: matrix_list),
 * or with m NULL counts it. */
static int list_matrix(const param_info *p, void *ctx)
{
    matrix_list *l = ctx;
    if (p->present && p->value != NULL) {
        if (l->m != NULL)
            l->m[l->n] = p->value;
        l->n++;
    }
    return 0;
}

/* Every parameter of m with its gradient in g, in params' order: [emb,
 * pos, *module, lm_head], into *pairs (allocated; *n of them). */
static int list_pairs(param_pair **pairs, size_t *n, const train_model *m,
                      const train_model *g, variant_id v,
                      const model_dims *dims, mx_error *err)
{
    const unsigned bit = variant_by_id(v)->bit;
    matrix_list count = {NULL, 0};
    model_params_each(bit, dims, m->module, list_matrix, &count);
    const size_t total = count.n + 3;
    matrix **mv = calloc(count.n + 1, sizeof *mv);
    matrix **gv = calloc(count.n + 1, sizeof *gv);
    *pairs = calloc(total, sizeof **pairs);
    *n = 0;
    if (mv == NULL || gv == NULL || *pairs == NULL) {
        free(mv);
        free(gv);
        free(*pairs);
        *pairs = NULL;
        return err_nomem(err, _("the gradients"));
    }
    param_pair *p = *pairs;
    p[(*n)++] = (param_pair){m->embedding, g->embedding};
    if (m->positions != NULL)
        p[(*n)++] = (param_pair){m->positions, g->positions};
    matrix_list lm = {mv, 0}, lg = {gv, 0};
    model_params_each(bit, dims, m->module, list_matrix, &lm);
    model_params_each(bit, dims, g->module, list_matrix, &lg);
    for (size_t i = 0; i < lm.n && i < lg.n; i++)
        p[(*n)++] = (param_pair){mv[i], gv[i]};
    p[(*n)++] = (param_pair){m->lm_head, g->lm_head};
    free(mv);
    free(gv);
    return 0;
}

int train_grad_model(train_model *g, const train_model *m, variant_id v,
                     const model_dims *dims, const attention_config *cfg,
                     mx_error *err)
{
    const variant_row *row = variant_row_of(v);
    *g = (train_model){0};
    g->embedding = calloc(1, sizeof *g->embedding);
    g->positions =
        m->positions != NULL ? calloc(1, sizeof *g->positions) : NULL;
    g->lm_head = calloc(1, sizeof *g->lm_head);
    g->module = variant_module_new(v, err);
    if (g->embedding == NULL || g->lm_head == NULL || g->module == NULL ||
        (m->positions != NULL && g->positions == NULL)) {
        train_grad_model_free(g, v);
        return err_nomem(err, _("the gradients"));
    }
    torch_rng any;
    rng_seed(&any, 0);
    if (matrix_alloc(g->embedding, m->embedding->rows, m->embedding->cols,
                     N_("the gradients"), err) != 0 ||
        (g->positions != NULL &&
         matrix_alloc(g->positions, m->positions->rows, m->positions->cols,
                      N_("the gradients"), err) != 0) ||
        matrix_alloc(g->lm_head, m->lm_head->rows, m->lm_head->cols,
                     N_("the gradients"), err) != 0 ||
        row->init(g->module, cfg, dims, &any, err) != 0) {
        train_grad_model_free(g, v);
        return -1;
    }
    return 0;
}

void train_grad_model_free(train_model *g, variant_id v)
{
    variant_module_free(v, g->module);
    matrix_free(g->embedding);
    matrix_free(g->positions);
    matrix_free(g->lm_head);
    free(g->embedding);
    free(g->positions);
    free(g->lm_head);
    *g = (train_model){0};
}

int train_run(float *losses, const train_model *m, variant_id v,
              const model_dims *dims, const attention_config *cfg,
              const train_sentence *sentences, size_t n,
              const train_options *opt, mx_error *err)
{
    train_model g;
    if (opt->steps == 0)
        return 0;
    if (train_grad_model(&g, m, v, dims, cfg, err) != 0)
        return -1;
    param_pair *pairs = NULL;
    size_t np = 0;
    // Adam's running averages, one pair per parameter, zeros at first
    matrix *avg = NULL, *sq = NULL;
    int rc = list_pairs(&pairs, &np, m, &g, v, dims, err);
    if (rc == 0 && opt->optimizer == OPTIMIZER_ADAM) {
        avg = calloc(np, sizeof *avg);
        sq = calloc(np, sizeof *sq);
        if (avg == NULL || sq == NULL)
            rc = err_nomem(err, _("Adam's running averages"));
    }
    for (size_t i = 0; i < np && rc == 0 && avg != NULL; i++)
        if (matrix_alloc(&avg[i], pairs[i].value->rows, pairs[i].value->cols,
                         N_("Adam's running averages"), err) != 0 ||
            matrix_alloc(&sq[i], pairs[i].value->rows, pairs[i].value->cols,
                         N_("Adam's running averages"), err) != 0)
            rc = -1;
    for (size_t step = 0; step < opt->steps && rc == 0; step++) {
        const train_sentence *s = &sentences[step % n];
        if (opt->hook != NULL &&
            opt->hook->fn(opt->hook->ctx, step, err) != 0) {
            rc = -1;
            break;
        }
        if (train_pass(&losses[step], NULL, &g, m, v, dims, cfg, s, NULL,
                       err) != 0) {
            rc = -1;
            break;
        }
        for (size_t i = 0; i < np; i++) {
            matrix *p = pairs[i].value, *gr = pairs[i].grad;
            const size_t count = p->rows * p->cols;
            // after the first step zero_grad() leaves zeros, and the new
            // gradient is added to them: -0 becomes +0
            if (step > 0)
                for (size_t k = 0; k < count; k++)
                    gr->v[k] += 0.0f;
            if (opt->optimizer == OPTIMIZER_ADAM)
                adam_update(p->v, avg[i].v, sq[i].v, gr->v, count, opt->lr,
                            step + 1);
            else
                sgd_update(p->v, gr->v, count, opt->lr);
        }
    }
    for (size_t i = 0; i < np && avg != NULL; i++) {
        matrix_free(&avg[i]);
        if (sq != NULL)
            matrix_free(&sq[i]);
    }
    free(avg);
    free(sq);
    free(pairs);
    train_grad_model_free(&g, v);
    return rc;
}
