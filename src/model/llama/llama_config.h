/* llama_config.h: a Llama-style config.json, read and checked: what the
 * forward pass honours, and a one-line refusal of what it cannot (rope
 * scaling, a sliding window, sizes that do not divide). */
#ifndef MHA_LLAMA_CONFIG_H
#define MHA_LLAMA_CONFIG_H

#include <stdbool.h>

#include "base/error.h"
#include "model/llama/llama.h"

/* The model_types of the family, one row each: name, whether q, k and v
 * have biases, and whether sliding_window counts only when
 * use_sliding_window is true (Qwen2Config sets it to None otherwise, so
 * Qwen2.5's configs name a window they do not use), and then only in
 * the layers from max_window_layers on. */
typedef struct {
    const char *model_type;
    bool qkv_bias;
    bool window_if_used;
} llama_kind;

/* The row of model_type, or NULL. */
const llama_kind *llama_kind_of(const char *model_type);

/* The most positions a text of the model takes: max_position_embeddings,
 * or the sliding window where it is shorter (a longer text is refused,
 * and generation ends there); *key: the config.json key that gives them,
 * for messages. */
size_t llama_context(const llama_config *c, const char **key);

/* Reads and checks the config.json at path into c. */
int llama_read_config(llama_config *c, const char *path, mx_error *err);

#endif
