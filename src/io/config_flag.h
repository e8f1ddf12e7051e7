/* config_flag.h: a true-or-false key of a checkpoint's config.json
 * (tie_word_embeddings, scale_attn_weights, add_cross_attention...), as
 * every family's config reader takes it. The key absent gives the
 * family's default, as the Python config class does; JSON's true or
 * false gives itself; any other value (null, 1, "false", a list) is
 * refused in one line naming the key, because the modeling code would
 * read it by Python's truthiness (null is false there, "false" true),
 * not as its default, and a reader that guessed could run another
 * model.
 */
#ifndef MHA_CONFIG_FLAG_H
#define MHA_CONFIG_FLAG_H

#include <stdbool.h>

#include "base/error.h"
#include "io/json.h"

/* *out = the flag key of doc (in the file path), or fallback when the
 * key is absent; -1 with err set when it is neither true nor false. */
int config_flag(bool *out, const json_doc *doc, const char *key, bool fallback,
                const char *path, mx_error *err);

/* Refuses, naming the key, each of the n keys that is true: settings of
 * the family's config class this program does not compute. A key that
 * is not true or false is refused as config_flag refuses it. */
int config_refuse_flags(const json_doc *doc, const char *const *keys, size_t n,
                        const char *path, mx_error *err);

#endif
