/* tied_head.h: whether a checkpoint's lm_head is its input embedding,
 * one rule for every family whose model has an lm_head (GPT-2's, the
 * Llama-style one's).
 *
 * config.json's tie_word_embeddings is read as transformers'
 * PretrainedConfig reads it: true or false, and when absent the default
 * of the family's config class (GPT2Config: true; LlamaConfig,
 * Qwen2Config, MistralConfig: false). Then, with lm_head.weight (V, D)
 * in the checkpoint or not:
 *
 *   tied,   absent:   the embedding (V, D) is the head
 *   tied,   present:  taken only when it holds the embedding's values bit
 *                     for bit (a checkpoint saved with both copies); one
 *                     that differs is refused, as which copy the model
 *                     ends up with depends on the order transformers
 *                     loads them in
 *   untied, present:  lm_head.weight is the head (nn.Linear(D, V,
 *                     bias=False))
 *   untied, absent:   refused: transformers would draw the head at
 *                     random, and a lesson must not run invented weights
 */
#ifndef MHA_TIED_HEAD_H
#define MHA_TIED_HEAD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "io/config_flag.h"
#include "io/json.h"

/* The name of the head's tensor in a checkpoint, outside the base
 * model's prefix ("transformer.", "model."). */
#define TIED_HEAD_NAME "lm_head.weight"

/* *tied = tie_word_embeddings of config.json (doc, read from path), or
 * fallback when the key is absent; a value that is not true or false is
 * refused naming the key. */
int tied_head_read(bool *tied, const json_doc *doc, bool fallback,
                   const char *path, mx_error *err);

/* Settles the head by the rule above: *head is the checkpoint's
 * lm_head.weight (n = V * D floats) or NULL when it has none; on return
 * it is the head the logits use (embed when tied). file names the
 * checkpoint and embed_name the embedding's tensor in messages. */
int tied_head_settle(const float **head, const float *embed, size_t n,
                     bool tied, const char *file, const char *embed_name,
                     mx_error *err);

#endif
