/* explain_family.c: --explain and the page's notes for a table, as the
 * row of the family that made it says (model/family.h's notes): a
 * checkpoint family's notes (explain_checkpoint.c), or the lesson's
 * modules' (explain.c). */
#include "model/family.h"
#include "render/explain.h"
#include "render/render.h"

void explain_table_before(FILE *out, const table *t, const table *prev,
                          const void *ctx)
{
    // a table made by hand, outside a trace, has no family: the lesson's
    if (t->family != NULL && t->family->notes != NULL)
        explain_checkpoint_before(out, t, prev, ctx);
    else
        explain_before(out, t, prev, ctx);
}
