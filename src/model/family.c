/* family.c: the rows of the model families (family.h). */
#include "model/family.h"

#include "model/bert/bert_trace.h"
#include "model/gpt2/gpt2_trace.h"
#include "model/lesson/lesson_run.h"

/* Asked in order: BERT claims the checkpoints whose config.json says
 * "model_type": "bert", GPT-2 every other checkpoint, the lesson's every
 * other run. */
static const model_family families[] = {
    {
        .model_name = "bert",
        .layer_name = "layer",
        .explain = EXPLAIN_BERT,
        .claims = bert_trace_claims,
        .check = bert_trace_check,
        .tokens = bert_trace_tokens,
        .run = bert_trace_run,
        .makes_table = bert_trace_makes_table,
    },
    {
        .model_name = "gpt2",
        .layer_name = "h",
        .explain = EXPLAIN_CHECKPOINT,
        .claims = gpt2_trace_claims,
        .check = gpt2_trace_check,
        .tokens = gpt2_trace_tokens,
        .run = gpt2_trace_run,
        .makes_table = gpt2_trace_makes_table,
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
