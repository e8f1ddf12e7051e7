/* explain_family.c: --explain and the page's notes for a table, as the
 * row of the family that made it says (model/family.h's explain). */
#include "model/family.h"

#include <stdio.h>

#include "base/i18n.h"
#include "render/explain_parts.h"
#include "render/explain.h"
#include "render/render.h"

/* The notes of each kind of explanation a family's row names. */
static const before_table_fn explainers[] = {
    [EXPLAIN_MODULES] = explain_before,
    [EXPLAIN_CHECKPOINT] = explain_gpt2_before,
    [EXPLAIN_BERT] = explain_bert_before,
    [EXPLAIN_ROTARY] = explain_llama_before,
};

/* Before a generation step's first table (--kv-steps): what the step
 * computes, and why it is one row. */
static void explain_step(FILE *out, const table *t, const explain_context *c)
{
    const size_t P = c->tokens + (size_t)t->step;
    explain_say(out, c->width,
                _("Generation step %d: the token picked last is fed alone, at "
                  "position %zu. In every layer and head its one query row is "
                  "scored against the %zu keys the cache holds (the prompt's "
                  "and every new token's, its own appended last), so the step "
                  "computes one row of each table, not %zu: the keys and "
                  "values of the positions before were kept, not computed "
                  "again."),
                t->step, P - 1, P, P);
    fputc('\n', out);
}

void explain_table_before(FILE *out, const table *t, const table *prev,
                          const void *ctx)
{
    if (t->step > 0 && (prev == NULL || prev->step != t->step))
        explain_step(out, t, ctx);
    // a table made by hand, outside a trace, has no family: the lesson's
    const enum family_explain kind =
        t->family != NULL ? t->family->explain : EXPLAIN_MODULES;
    explainers[kind](out, t, prev, ctx);
}
