/* list_errors.h: the message of an item of --layers, --show-heads or
 * --ablate that the model found past its sizes. The model returns which
 * list, which item and its sizes (err's item, base/error.h; the lists of
 * model/pipeline.h's run_list); the command line holds the list as it
 * was typed and quotes the item from it:
 *
 *   --layers 0,15: "--layers: 15 is out of range; the model has 12 (0 to
 *   11)"
 */
#ifndef MHA_LIST_ERRORS_H
#define MHA_LIST_ERRORS_H

#include "base/error.h"
#include "cli/options.h"

/* When err holds an item out of range of one of opt's lists, writes its
 * message into err (a usage error, status 2); else leaves err as it
 * is. Call it on the error of a run of run_request_of(opt). */
void list_error_message(mx_error *err, const options *opt);

#endif
