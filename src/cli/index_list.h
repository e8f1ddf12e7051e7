/* index_list.h: a list of indices as --layers and --show-heads take it,
 * such as 0,3,5-7, read into ranges (model/pipeline.h's index_range) that
 * the model checks against its own sizes. */
#ifndef MHA_INDEX_LIST_H
#define MHA_INDEX_LIST_H

#include <stddef.h>

#include "base/error.h"
#include "model/run_request.h"

/* Reads list, comma-separated whole numbers and ranges LO-HI (LO <= HI),
 * into *out (owned by the caller: free; a list *out held before is
 * freed) and *n. A list that is not such a list, or that names an index
 * twice (0,0 or 0-2,1), is a usage error of the option named (option,
 * "--layers"), as --ablate's and --variant's repeated items are. */
int index_list_parse(index_range **out, size_t *n, const char *list,
                     const char *option, mx_error *err);

/* Item k (from 0) of a comma-separated list as it was typed: its start,
 * and its length in *len (the text up to the next comma or the end; ""
 * past the last item or in a NULL list). The items index_list_parse
 * and head_list_parse read are these, in order. */
const char *list_item(const char *list, size_t k, size_t *len);

#endif
