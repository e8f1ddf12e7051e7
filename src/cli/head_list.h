/* head_list.h: heads of a layered model as --ablate names them, L.H
 * (layer L, head H, from 0), comma-separated: 9.6,9.9,10.0. The model
 * checks them against its own sizes. */
#ifndef MHA_HEAD_LIST_H
#define MHA_HEAD_LIST_H

#include <stddef.h>

#include "base/error.h"
#include "model/run_request.h"

/* Reads list into *out (malloc'ed, the caller's; a list held before is
 * freed) and *n. A list that is not such a list is a usage error of the
 * option named. */
int head_list_parse(head_ref **out, size_t *n, const char *list,
                    const char *option, mx_error *err);

#endif
