/* check.c: measuring the invariants of attention over a trace's tables. */
#include "render/check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/lesson/variants.h"
#include "render/textwidth.h"

/* *largest = d when d is larger, or NaN: a NaN, once seen, stays, so that
 * a check over values that are not numbers fails. */
static void keep_largest(double *largest, double d)
{
    if (isnan(d) || d > *largest)
        *largest = d;
}

/* Row sums and the mask of one attn_weights table and its scores. Row
 * i queries from position weights->first_query + i (a generation step's
 * one row: the newest position), which a causal mask lets see the keys
 * up to it. */
static void check_head(check_report *r, const table *weights,
                       const table *scores, bool causal)
{
    const matrix *w = &weights->values;
    for (size_t i = 0; i < w->rows; i++) {
        const size_t at = weights->first_query + i;
        double sum = 0.0;
        for (size_t j = 0; j < w->cols; j++) {
            const float wv = *matrix_at(w, i, j);
            sum += (double)wv;
            if (scores == NULL)
                continue;
            const bool masked = isinf(*matrix_at(&scores->values, i, j)) &&
                                *matrix_at(&scores->values, i, j) < 0;
            if (masked) {
                r->masked++;
                keep_largest(&r->masked_weight, fabs((double)wv));
            }
            if (causal && masked != (j > at))
                r->misplaced++;
        }
        r->rows++;
        keep_largest(&r->row_sum_dev, fabs(sum - 1.0));
    }
}

void check_begin(check_report *out)
{
    memset(out, 0, sizeof *out);
}

/* What the trace's model says the check expects: set before its first
 * table, the same for every table. */
static void expect_model(check_report *r, const trace *tr)
{
    r->causal = tr->model.causal;
    r->tied = tr->model.tied;
    r->own_masks = tr->model.attn_dropout > 0;
}

/* --grad: a causal head's masked scores (the keys after each row's
 * query) get no gradient, d loss / d score exactly 0. */
static void check_masked_grad(check_report *r, const table *g)
{
    const matrix *m = &g->values;
    r->grad_seen = true;
    for (size_t i = 0; i < m->rows && r->causal; i++)
        for (size_t j = g->first_query + i + 1; j < m->cols; j++) {
            r->grad_masked++;
            keep_largest(&r->grad_masked_max,
                         fabs((double)*matrix_at(m, i, j)));
        }
}

void check_table(check_report *r, const trace *tr, const table *t)
{
    expect_model(r, tr);
    if (t->id == TABLE_ATTN_SCORES && t->grad && t->head != NO_HEAD &&
        t->values.v != NULL)
        check_masked_grad(r, t);
    if (t->grad)
        return;
    // the trace says whether its heads are causal (BERT's see both
    // directions, a lesson's with --kv or --no-causal too)
    if (t->id == TABLE_ATTN_WEIGHTS && t->head != NO_HEAD)
        check_head(r, t, trace_mask_of(tr, t), r->causal);
    // a module that takes another's heads (--tie, its variant's row) is
    // compared with it: the fused module's concat_context with the
    // wrapper's, which runs before it
    if (t->id != TABLE_CONCAT_CONTEXT || t->variant == VARIANT_INPUT ||
        t->variant >= VARIANT_ID_COUNT)
        return;
    const variant_row *row = variant_row_of(t->variant);
    if (row->tie == NULL)
        return;
    const table_key wrapper = {row->tie_from, t->layer, NO_HEAD,
                               TABLE_CONCAT_CONTEXT, false};
    const table *a = trace_find(tr, &wrapper);
    if (a != NULL && a->values.rows == t->values.rows &&
        a->values.cols == t->values.cols) {
        r->compared = true;
        for (size_t k = 0; k < a->values.rows * a->values.cols; k++) {
            keep_largest(&r->tie_dev,
                         fabs((double)a->values.v[k] - (double)t->values.v[k]));
        }
    }
}

void check_trace(check_report *out, const trace *tr)
{
    check_begin(out);
    expect_model(out, tr);
    for (size_t i = 0; i < trace_count(tr); i++)
        check_table(out, tr, trace_at(tr, i));
}

static bool tie_ok(const check_report *r)
{
    return !r->tied || !r->compared || r->own_masks || r->tie_dev <= TIE_LIMIT;
}

bool check_passed(const check_report *r)
{
    return r->row_sum_dev <= ROW_SUM_LIMIT && r->masked_weight == 0.0 &&
           r->misplaced == 0 && tie_ok(r) && r->grad_masked_max == 0.0;
}

static const char *verdict(bool ok)
{
    return ok ? _("ok") : _("FAILED");
}

void check_print(FILE *out, const check_report *r)
{
    fprintf(out,
            _("[check] every attn_weights row sums to 1: largest "
              "deviation %.3g over %zu rows (limit %g): %s\n"),
            r->row_sum_dev, r->rows, ROW_SUM_LIMIT,
            verdict(r->row_sum_dev <= ROW_SUM_LIMIT));
    fprintf(out,
            _("[check] masked cells: %zu scores are -inf, largest "
              "weight there %g, %zu cells masked where they should not "
              "be or the reverse: %s\n"),
            r->masked, r->masked_weight, r->misplaced,
            verdict(r->masked_weight == 0.0 && r->misplaced == 0));
    if (r->grad_seen)
        fprintf(out,
                _("[check] masked cells get no gradient: %zu cells of "
                  "attn_scores.grad, largest |gradient| there %g: %s\n"),
                r->grad_masked, r->grad_masked_max,
                verdict(r->grad_masked_max == 0.0));
    if (!r->compared)
        return;
    if (!r->tied)
        fputs(_("[check] wrapper and fused: not compared, their "
                "weights are drawn separately (add --tie)\n"),
              out);
    else if (r->own_masks)
        fputs(_("[check] wrapper and fused (--tie): not compared, each "
                "draws its own dropout masks (--attn-dropout)\n"),
              out);
    else
        fprintf(out,
                _("[check] wrapper and fused (--tie) compute the same "
                  "concat_context: largest difference %g (limit %g): %s\n"),
                r->tie_dev, TIE_LIMIT, verdict(tie_ok(r)));
}

void check_print_wrapped(FILE *out, const check_report *r, size_t width)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (mem == NULL) { /* out of memory: the lines as they are */
        check_print(out, r);
        return;
    }
    check_print(mem, r);
    if (fclose(mem) == 0)
        write_wrapped_lines(out, text, width, strlen("[check] "));
    else
        check_print(out, r);
    free(text);
}
