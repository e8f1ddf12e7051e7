/* model_type.h: the "model_type" a checkpoint folder's config.json names
 * ("gpt2", "bert", "llama"), which says which model family reads the
 * folder (model/family.c). */
#ifndef MHA_MODEL_TYPE_H
#define MHA_MODEL_TYPE_H

#include <stddef.h>

/* What config.json says of its model_type. */
typedef enum {
    MODEL_TYPE_NONE,       /* no key "model_type", or no config.json to
                              read: the family that reads folders naming
                              none then says what is wrong */
    MODEL_TYPE_NAMED,      /* a string */
    MODEL_TYPE_NOT_STRING, /* the key holds a number, null, an object... */
} model_type_found;

/* Copies into type (n bytes, n > 0) the string config.json of dir gives
 * as its "model_type", its control characters shown as '?', and returns
 * MODEL_TYPE_NAMED. Otherwise type is "": MODEL_TYPE_NOT_STRING when the
 * key holds something else than a string, MODEL_TYPE_NONE when the file
 * cannot be read, is not a JSON object or has no such key. */
model_type_found read_model_type(char *type, size_t n, const char *dir);

#endif
