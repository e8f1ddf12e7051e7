/* bert_page.c: model/bert/bert.h, bert_trace.h and bert_lm.h for the
 * WebAssembly core every live page carries (src/wasm/meson.build names
 * it in the place of this folder's files), which reads GPT-2's
 * checkpoint folders only (io/page_files.c): a BERT folder is refused,
 * naming the page that reads it (the families core's,
 * model/families_page.h). */
#include "model/bert/bert.h"
#include "model/bert/bert_lm.h"
#include "model/bert/bert_trace.h"
#include "model/bert/bert_notes.h"
#include "model/families_page.h"

bool bert_param_name(const char *name, int *layer)
{
    (void)name;
    (void)layer;
    return false;
}

int bert_trace_check(double *values, const run_request *rq,
                     const model_input *in, bool streamed, mx_error *err)
{
    (void)in;
    (void)streamed;
    *values = 0;
    return page_reads_vocab_merges_only(rq->checkpoint, err);
}

int bert_trace_tokens(tokenized *tok, size_t *n_queries, const run_request *rq,
                      const model_input *in, mx_error *err)
{
    (void)tok;
    (void)rq;
    (void)in;
    (void)err;
    *n_queries = 0;
    return -1; // not reached: the check refuses the run
}

int bert_trace_run(trace *tr, const run_request *rq, const model_input *in,
                   mx_error *err)
{
    (void)tr;
    (void)rq;
    (void)in;
    (void)err;
    return -1; // not reached: the check refuses the run
}

bool bert_trace_makes_table(const run_request *rq, const model_input *in,
                            const table_pick *p)
{
    (void)rq;
    (void)in;
    (void)p;
    return false;
}

// no function: this core runs no intervention on a checkpoint
// (src/wasm/intervene_ablate_page.c)
const lm_ops bert_scores_lm = {0};

/* No notes: the families core carries them (bert_notes.c). */
const family_notes bert_notes = {.layer = NULL};
