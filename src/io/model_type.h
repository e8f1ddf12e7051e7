/* model_type.h: the "model_type" a checkpoint folder's config.json names
 * ("gpt2", "bert", "llama"), which says which model family reads the
 * folder (model/family.c). */
#ifndef MHA_MODEL_TYPE_H
#define MHA_MODEL_TYPE_H

#include <stdbool.h>
#include <stddef.h>

/* Copies into type (n bytes, n > 0) the string config.json of dir gives
 * as its "model_type", its control characters shown as '?', and returns
 * true. Returns false, type "", when the file cannot be read, is not a
 * JSON object or names no model_type as a string: the family that reads
 * such folders then says what is wrong. */
bool read_model_type(char *type, size_t n, const char *dir);

#endif
