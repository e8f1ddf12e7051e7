/* config_size.h: a size key of a checkpoint's config.json (n_layer,
 * num_attention_heads, hidden_size...), as every family's config reader
 * takes it: a whole number from 1 to CONFIG_SIZE_MAX. A value that is
 * not one is refused in one line naming the key; one whole and positive
 * but larger is refused saying it is too large and the largest taken.
 */
#ifndef MHA_CONFIG_SIZE_H
#define MHA_CONFIG_SIZE_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "io/json.h"

/* The largest size a config.json key may give (2^32; on a 32-bit
 * target, the page's core, SIZE_MAX). */
#define CONFIG_SIZE_MAX ((uint64_t)1 << 32)

/* *out = the value n (key's, in the file path) when it is a whole number
 * from 1 to CONFIG_SIZE_MAX; else -1 with err set. n may be NULL (the
 * key is absent): refused as not a positive whole number. */
int config_size_key(size_t *out, const json_doc *doc, const json_node *n,
                    const char *key, const char *path, mx_error *err);

#endif
