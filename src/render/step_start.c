/* step_start.c: where a step of the computation starts (step.h), shared
 * by --step, the text output's step marks and the page's step-through;
 * apart from step.c's terminal, so that the page's WebAssembly core
 * (src/wasm) has it too. */
#include "render/step.h"

bool step_starts(const table *t, const table *prev)
{
    // a generation step's tables (--kv-steps), every layer and head of
    // it, are one step of their own
    if (t->step > 0 || (prev != NULL && prev->step > 0))
        return prev == NULL || t->step != prev->step;
    // a step of the catalogue (catalogue.h), for one variant, layer and
    // head
    return prev == NULL || t->variant != prev->variant ||
           t->layer != prev->layer || t->head != prev->head ||
           table_step_for(t) != table_step_for(prev);
}
