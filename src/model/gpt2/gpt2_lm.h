/* gpt2_lm.h: a GPT-2 checkpoint (--model DIR) as the interventions' language
 * model (model/lm.h): GPT2LMHeadModel, its lm_head (wte when tied). */
#ifndef MHA_GPT2_LM_H
#define MHA_GPT2_LM_H

#include "model/lm.h"

/* The functions of model/lm.h for a GPT-2 checkpoint. */
extern const lm_ops gpt2_lm;

#endif
