/* explain_family.c: --explain and the page's notes for a table, as the
 * row of the family that made it says (model/family.h's explain). */
#include "model/family.h"
#include "render/explain.h"
#include "render/render.h"

/* The notes of each kind of explanation a family's row names. */
static const before_table_fn explainers[] = {
    [EXPLAIN_MODULES] = explain_before,
    [EXPLAIN_CHECKPOINT] = explain_gpt2_before,
    [EXPLAIN_BERT] = explain_bert_before,
    [EXPLAIN_ROTARY] = explain_llama_before,
};

void explain_table_before(FILE *out, const table *t, const table *prev,
                          const void *ctx)
{
    // a table made by hand, outside a trace, has no family: the lesson's
    const enum family_explain kind =
        t->family != NULL ? t->family->explain : EXPLAIN_MODULES;
    explainers[kind](out, t, prev, ctx);
}
