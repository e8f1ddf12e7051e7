/* no_bert.c: model/bert/bert.h and model/bert/bert_trace.h for the
 * WebAssembly core, which reads GPT-2's checkpoint folders only
 * (page_files.c): the BERT family claims no run there. */
#include "model/bert/bert.h"
#include "model/bert/bert_trace.h"

bool bert_param_name(const char *name, int *layer)
{
    (void)name;
    (void)layer;
    return false;
}

int bert_trace_check(double *values, const run_request *rq,
                     const model_input *in, bool streamed, mx_error *err)
{
    (void)rq;
    (void)in;
    (void)streamed;
    (void)err;
    *values = 0;
    return -1; // not reached: the row claims no run
}

int bert_trace_tokens(tokenized *tok, size_t *n_queries, const run_request *rq,
                      const model_input *in, mx_error *err)
{
    (void)tok;
    (void)rq;
    (void)in;
    (void)err;
    *n_queries = 0;
    return -1; // not reached: the row claims no run
}

int bert_trace_run(trace *tr, const run_request *rq, const model_input *in,
                   mx_error *err)
{
    (void)tr;
    (void)rq;
    (void)in;
    (void)err;
    return -1; // not reached: the row claims no run
}

bool bert_trace_makes_table(const run_request *rq, const model_input *in,
                            const char *name)
{
    (void)rq;
    (void)in;
    (void)name;
    return false;
}
