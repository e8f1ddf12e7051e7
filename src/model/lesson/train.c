/* train.c: the training loop (train.h): the whole pass of a variant's
 * notebook, in the order PyTorch's autograd engine runs it (the inputs,
 * the module's own pass as its variant's row names it, variants/NAME.c,
 * over the pieces of train_parts.c, then the embedding's backward), and
 * the optimizer's step on every parameter.
 *
 * Shapes: T tokens, D = d_model, V words in the vocabulary, W the
 * module's output width.
 */
#include "model/lesson/train.h"

#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/lesson/variants.h"
#include "numerics/rng.h"

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
