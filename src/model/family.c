/* family.c: the rows of the model families (family.h). */
#include "model/family.h"

#include "model/gpt2/gpt2_lm.h"
#include "model/gpt2/gpt2_trace.h"
#include "model/lesson/lesson_run.h"

/* Asked in order: a checkpoint's family claims the runs that name a
 * checkpoint, the lesson's every other run. */
static const model_family families[] = {
    {
        .model_name = "gpt2",
        .layer_name = "h",
        .explain = EXPLAIN_CHECKPOINT,
        .claims = gpt2_trace_claims,
        .check = gpt2_trace_check,
        .tokens = gpt2_trace_tokens,
        .run = gpt2_trace_run,
        .makes_table = gpt2_trace_makes_table,
        .lm = &gpt2_lm,
    },
    {
        .model_name = NULL,
        .layer_name = NULL,
        .explain = EXPLAIN_MODULES,
        .claims = lesson_claims,
        .check = lesson_check,
        .tokens = lesson_tokens,
        .run = lesson_run,
        .makes_table = lesson_makes_table,
    },
};

#define N_FAMILIES (sizeof families / sizeof families[0])

const model_family *family_default(void)
{
    return &families[N_FAMILIES - 1];
}

const model_family *family_of(const model_config *mc)
{
    for (size_t i = 0; i < N_FAMILIES; i++)
        if (families[i].claims(mc))
            return &families[i];
    return family_default(); // not reached: the last row claims every run
}
