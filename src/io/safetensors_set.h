/* safetensors_set.h: a checkpoint folder's weights, one file or shards,
 * as Hugging Face saves them:
 *
 *   model.safetensors                 every tensor, or
 *   model.safetensors.index.json      {"weight_map": {name: file, ...}}
 *   model-00001-of-0000N.safetensors  the files the map names
 *
 * Each file is opened and checked (safetensors.h). With an index, every
 * file it names must be a plain file name in the folder, every tensor it
 * maps must be in the file it names, and no tensor may be in two files
 * (a shard the index leaves out is not opened). A tensor is found by its
 * name in whichever file holds it.
 */
#ifndef MHA_SAFETENSORS_SET_H
#define MHA_SAFETENSORS_SET_H

#include <stddef.h>

#include "base/error.h"
#include "io/safetensors.h"

#define SAFETENSORS_MAX_SHARDS 4096

typedef struct {
    safetensors *files; /* n_files, opened; owned */
    size_t n_files;
    char **paths;      /* their paths (the files point at them); owned */
    const char *shown; /* what messages call the weights: a file's path */
} safetensors_set;

/* Opens dir's model.safetensors, else the shards its
 * model.safetensors.index.json names. */
int safetensors_set_open(safetensors_set *s, const char *dir, mx_error *err);
void safetensors_set_close(safetensors_set *s);

/* The tensor named name and its file (*in), or NULL. */
const st_tensor *safetensors_set_find(const safetensors_set *s,
                                      const char *name, const safetensors **in);

/* The number of tensors over every file. */
size_t safetensors_set_count(const safetensors_set *s);

#endif
