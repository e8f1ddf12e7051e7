/* llama_config.h: a Llama-style config.json, read and checked: what the
 * forward pass honours, and a one-line refusal of what it cannot (rope
 * scaling, a sliding window, sizes that do not divide). */
#ifndef MHA_LLAMA_CONFIG_H
#define MHA_LLAMA_CONFIG_H

#include <stdbool.h>

#include "base/error.h"
#include "model/llama/llama.h"

/* The model_types of the family, one row each: name and whether q, k
 * and v have biases. */
typedef struct {
    const char *model_type;
    bool qkv_bias;
} llama_kind;

/* The row of model_type, or NULL. */
const llama_kind *llama_kind_of(const char *model_type);

/* Reads and checks the config.json at path into c. */
int llama_read_config(llama_config *c, const char *path, mx_error *err);

#endif
