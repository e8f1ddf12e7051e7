/* family.c: the rows of the model families (family.h). */
#include "model/family.h"

#include "model/gpt2/gpt2_lm.h"
#include "model/bert/bert.h"
#include "model/bert/bert_trace.h"
#include "model/gpt2/gpt2.h"
#include "model/gpt2/gpt2_trace.h"
#include "model/lesson/lesson_run.h"
#include "model/llama/llama.h"
#include "model/llama/llama_trace.h"

/* Asked in order: BERT claims the checkpoints whose config.json says
 * "model_type": "bert", the Llama-style family those it names (llama,
 * qwen2, mistral), GPT-2's the other checkpoints, the lesson's every
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
        .param_name = bert_param_name,
    },
    {
        .model_name = "llama",
        .layer_name = "layers",
        .explain = EXPLAIN_ROTARY,
        .claims = llama_trace_claims,
        .check = llama_trace_check,
        .tokens = llama_trace_tokens,
        .run = llama_trace_run,
        .makes_table = llama_trace_makes_table,
        .param_name = llama_param_name,
    },
    {
        .model_name = "gpt2",
        .layer_name = "h",
        .explain = EXPLAIN_CHECKPOINT,
        .generates = true,
        .claims = gpt2_trace_claims,
        .check = gpt2_trace_check,
        .tokens = gpt2_trace_tokens,
        .run = gpt2_trace_run,
        .makes_table = gpt2_trace_makes_table,
        .lm = &gpt2_lm,
        .param_name = gpt2_param_name,
    },
    {
        .model_name = NULL,
        .layer_name = NULL,
        .explain = EXPLAIN_MODULES,
        .generates = false,
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

bool family_param_name(const char *name)
{
    for (size_t i = 0; i < N_FAMILIES; i++)
        if (families[i].param_name != NULL &&
            families[i].param_name(name, NULL))
            return true;
    return false;
}

const model_family *family_of(const model_config *mc)
{
    for (size_t i = 0; i < N_FAMILIES; i++)
        if (families[i].claims(mc))
            return &families[i];
    return family_default(); // not reached: the last row claims every run
}
