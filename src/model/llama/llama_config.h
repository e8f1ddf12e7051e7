/* llama_config.h: a Llama-style config.json, read and checked: what the
 * forward pass honours, and a one-line refusal of what it cannot (rope
 * scaling, a sliding window, sizes that do not divide). */
#ifndef MHA_LLAMA_CONFIG_H
#define MHA_LLAMA_CONFIG_H

#include <stdbool.h>

#include "base/error.h"
#include "model/llama/llama.h"

/* Which of config.json's sliding-window keys a model_type's modeling
 * code reads (transformers 4.x). */
enum llama_window {
    /* LlamaForCausalLM: neither sliding_window nor use_sliding_window
     * (its attention and its causal mask have no window) */
    WINDOW_NONE,
    /* MistralForCausalLM: sliding_window alone (MistralConfig has no
     * use_sliding_window) */
    WINDOW_ALWAYS,
    /* Qwen2ForCausalLM: sliding_window only when use_sliding_window is
     * true (Qwen2Config sets it to None otherwise, so Qwen2.5's configs
     * name a window they do not use), and then only in the layers from
     * max_window_layers on */
    WINDOW_IF_USED,
};

/* The model_types of the family, one row each: name, whether q, k and v
 * have biases, and the sliding-window keys its modeling code reads. */
typedef struct {
    const char *model_type;
    bool qkv_bias;
    enum llama_window window;
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
