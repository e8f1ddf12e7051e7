/* model_options.h: the model a command line asks for (run_request,
 * model/pipeline.h), and the checks of a run before it starts.
 *
 * The model core never reads the options: the command line hands it a
 * run_request made here, and checks what is the command line's own
 * (--focus) after the model's checks, in the order a run meets them. */
#ifndef MHA_MODEL_OPTIONS_H
#define MHA_MODEL_OPTIONS_H

#include <stdbool.h>

#include "base/error.h"
#include "cli/options.h"
#include "model/run_request.h"

/* The model of the options: sizes, variants, --weights and how to run. */
run_request run_request_of(const options *opt);

/* Checks, without building anything, a run of opt over in: the input
 * tokenizes and the run fits the limits (pipeline_check, which sets
 * *values), then --focus names one of the sentence's tokens. */
int check_run(double *values, const options *opt, const model_input *in,
              bool streamed, mx_error *err);

#endif
