/* pipeline.h: one sentence through the chosen variants into a trace.
 *
 *   sentence -> tokens + vocabulary -> embedding table -> inputs
 *            -> single | wrapper | fused -> tables
 *
 * Each variant starts as a fresh notebook would: torch.manual_seed(seed),
 * nn.Embedding(V, D) drawn first, then the module's layers in order.
 */
#ifndef MHA_PIPELINE_H
#define MHA_PIPELINE_H

#include <stddef.h>

#include "error.h"
#include "options.h"
#include "table.h"

/* Largest trace, in float values, checked before the model is built. */
#define MAX_TRACE_VALUES ((size_t)1 << 27)

/* Runs the model of opt over sentence[0..len) and appends every table to
 * tr (input tables first, then each variant in the order single, wrapper,
 * fused). tr must be initialised; on failure it may hold some tables and
 * the caller still frees it. */
int pipeline_run(trace *tr, const options *opt, const char *sentence,
                 size_t len, mx_error *err);

#endif
