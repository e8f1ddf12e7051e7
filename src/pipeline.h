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
#include "trace.h"

/* Largest trace, in float values, checked before the model is built. */
#define MAX_TRACE_VALUES ((size_t)1 << 27)

/* Largest sum of the traces of all the runs of one --input file: eight
 * of the largest runs, well under a minute of work. */
#define MAX_INPUT_VALUES ((size_t)1 << 30)

/* What the model reads: a sentence, or rows of given embeddings. */
typedef struct {
    const char *sentence; /* the text, when embeddings is NULL */
    size_t len;
    const char *const *words; /* with --embeddings: a label per row */
    const matrix *embeddings; /* (T, D) rows from the file, or NULL */
    const char *kv;           /* --kv: keys and values from this sentence,
                                  or NULL for self-attention */
} model_input;

/* Checks, without building anything, that the input tokenizes and that
 * the run fits the limits; *values is about how many float values its
 * trace will hold. */
int pipeline_check(double *values, const options *opt, const model_input *in,
                   mx_error *err);

/* Runs the model of opt over the input and appends every table to tr
 * (with --kv also the tables kv_tokens and kv_inputs; the vocabulary is
 * the sentence's words then the other sentence's new words, and there is
 * no causal mask)
 * (input tables first, then each variant in the order single, wrapper,
 * fused). With embeddings given there is no embedding table and no
 * embedding draw: the module's layers are the first draws after the seed.
 * tr must be initialised; on failure it may hold some tables and the
 * caller still frees it. */
int pipeline_run(trace *tr, const options *opt, const model_input *in,
                 mx_error *err);

#endif
