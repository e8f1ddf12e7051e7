/* check.h: --check, the invariants a student can verify with numbers.
 *
 *   - every row of every attn_weights sums to 1;
 *   - every masked score is -inf and its weight exactly 0, and with the
 *     causal mask exactly the cells above the diagonal are masked;
 *   - with --tie, the wrapper and the fused module compute the same
 *     concat_context: the fused module is the wrapper made efficient;
 *   - with --grad, the masked scores get no gradient: attn_scores.grad
 *     is exactly 0 above the diagonal of a causal head.
 */
#ifndef MHA_CHECK_H
#define MHA_CHECK_H

#include <stdbool.h>
#include <stdio.h>

#include "model/trace.h"

#define ROW_SUM_LIMIT 1e-5 /* |sum - 1| allowed for a row of weights */
#define TIE_LIMIT 1e-6     /* |wrapper - fused| allowed with --tie */

typedef struct {
    size_t rows;          /* attn_weights rows seen */
    double row_sum_dev;   /* largest |sum - 1| */
    size_t masked;        /* cells whose score is -inf */
    double masked_weight; /* largest |weight| at a masked cell */
    size_t misplaced;     /* causal: cells masked or not where they should */
    bool compared;        /* both wrapper and fused concat_context seen */
    double tie_dev;       /* largest |wrapper - fused| in concat_context */
    /* what the trace's model says (trace_model), from its tables on */
    bool tied;              /* a module took another's heads (--tie) */
    bool own_masks;         /* --attn-dropout: each module draws its own
                             dropout masks, so tied modules differ */
    bool causal;            /* the causal mask is expected */
    bool grad_seen;         /* --grad: an attn_scores.grad was checked */
    size_t grad_masked;     /* its masked cells */
    double grad_masked_max; /* largest |gradient| at a masked cell */
} check_report;

/* Measures the invariants over every table of tr. Whether its heads are
 * causal, whether a module took another's heads (--tie) and whether its
 * modules drop their weights (--attn-dropout) are the trace's model's
 * (trace_model), as the run that made it recorded them. */
void check_trace(check_report *out, const trace *tr);

/* The same a table at a time, as a streamed trace hands them over
 * (trace.h): check_begin, then check_table for every table of tr in
 * order, while the tables it reads are still there: t's scores (for
 * attn_weights, made in the same batch) and the wrapper's concat_context
 * (for the fused one, kept to the end). */
void check_begin(check_report *out);
void check_table(check_report *r, const trace *tr, const table *t);

/* True when every measured invariant holds. */
bool check_passed(const check_report *r);

/* One line per invariant, "[check] ...: ok" or "...: FAILED". */
void check_print(FILE *out, const check_report *r);

/* The same lines for a person at a terminal: each wrapped at width cells
 * (0: no limit), its continuation indented under the text after
 * "[check] ". Scripts that read the lines get check_print's, one line per
 * invariant. */
void check_print_wrapped(FILE *out, const check_report *r, size_t width);

#endif
