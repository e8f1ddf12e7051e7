/* run_errors.h: the messages of the mistakes the model finds in what
 * the command line asked of it, which it returns as numbers (err's
 * detail, base/error.h; model/pipeline.h's run_mistake): which mistake,
 * which item or intervention, its own sizes. The command line holds the
 * lists as they were typed and the options' rows, and writes the
 * message from them:
 *
 *   --layers 0,15: "--layers: 15 is out of range; the model has 12 (0 to
 *   11)"
 *   --logit-lens on a lesson run: "--logit-lens: needs a model with an
 *   lm_head (--model DIR); this family cannot run it"
 */
#ifndef MHA_RUN_ERRORS_H
#define MHA_RUN_ERRORS_H

#include "base/error.h"
#include "cli/options.h"

/* When err holds a mistake of a run of run_request_of(opt) without its
 * message, writes the message into err (status 2; a usage error as the
 * mistake is one); else leaves err as it is. */
void run_error_message(mx_error *err, const options *opt);

#endif
