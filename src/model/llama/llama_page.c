/* llama_page.c: model/llama/llama.h and llama_trace.h for the WebAssembly
 * core every live page carries (src/wasm/meson.build names it in the
 * place of this folder's files), which reads GPT-2's checkpoint folders
 * only (io/page_files.c): a Llama-style folder is refused, naming the
 * page that reads it (the families core's, model/families_page.h). */
#include "model/llama/llama.h"
#include "model/llama/llama_lm.h"
#include "model/llama/llama_notes.h"
#include "model/llama/llama_trace.h"
#include "model/families_page.h"

bool llama_param_name(const char *name, int *layer)
{
    (void)name;
    (void)layer;
    return false;
}

int llama_trace_check(double *values, const run_request *rq,
                      const model_input *in, bool streamed, mx_error *err)
{
    (void)in;
    (void)streamed;
    *values = 0;
    return page_reads_vocab_merges_only(rq->checkpoint, err);
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
                             const table_pick *p)
{
    (void)rq;
    (void)in;
    (void)p;
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
    return -1; /* not reached: the check refuses the run */
}

const lm_ops llama_lm = {.open = no_lm_open};

/* No notes: the families core carries them (llama_notes.c). */
const family_notes llama_notes = {.layer = NULL};
