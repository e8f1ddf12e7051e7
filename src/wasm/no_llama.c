/* no_llama.c: model/llama/llama.h and llama_trace.h for the WebAssembly
 * core, which reads GPT-2's checkpoint folders only (page_files.c): the
 * Llama family claims no run there. */
#include "model/llama/llama.h"
#include "model/llama/llama_lm.h"
#include "model/llama/llama_trace.h"

bool llama_param_name(const char *name, int *layer)
{
    (void)name;
    (void)layer;
    return false;
}

int llama_trace_check(double *values, const run_request *rq,
                      const model_input *in, bool streamed, mx_error *err)
{
    (void)rq;
    (void)in;
    (void)streamed;
    (void)err;
    *values = 0;
    return -1; /* not reached: the row claims no run */
}

int llama_trace_tokens(tokenized *tok, size_t *n_queries, const run_request *rq,
                       const model_input *in, mx_error *err)
{
    (void)tok;
    (void)rq;
    (void)in;
    (void)err;
    *n_queries = 0;
    return -1; /* not reached */
}

int llama_trace_run(trace *tr, const run_request *rq, const model_input *in,
                    mx_error *err)
{
    (void)tr;
    (void)rq;
    (void)in;
    (void)err;
    return -1; /* not reached */
}

bool llama_trace_makes_table(const run_request *rq, const model_input *in,
                             const char *name)
{
    (void)rq;
    (void)in;
    (void)name;
    return false;
}

/* The interventions' model (model/llama/llama_lm.h): none in the page. */
static int no_lm_open(lm_session **s, lm_shape *shape, const run_request *rq,
                      mx_error *err)
{
    (void)rq;
    (void)shape;
    (void)err;
    *s = NULL;
    return -1; /* not reached: the row claims no run */
}

const lm_ops llama_lm = {.open = no_lm_open};
