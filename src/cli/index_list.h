/* index_list.h: a list of indices as --layers and --show-heads take it,
 * such as 0,3,5-7, read into ranges (model/pipeline.h's index_range) that
 * the model checks against its own sizes. */
#ifndef MHA_INDEX_LIST_H
#define MHA_INDEX_LIST_H

#include <stddef.h>

#include "base/error.h"
#include "model/pipeline.h"

/* Reads list, comma-separated whole numbers and ranges LO-HI (LO <= HI),
 * into *out (owned by the caller: free; a list *out held before is
 * freed) and *n. A list that is not such
 * a list is a usage error of the option named (option, "--layers"). */
int index_list_parse(index_range **out, size_t *n, const char *list,
                     const char *option, mx_error *err);

#endif
