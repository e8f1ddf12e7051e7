/* no_checkpoint_notes.c: the --explain notes of the checkpoint families
 * (render/explain_gpt2.c, explain_bert.c, explain_llama.c and the
 * interventions' explain_intervene.c) for the WebAssembly core, which runs
 * no checkpoint (no_gpt2.c, no_bert.c and no_llama.c claim no run): their
 * notes, and their messages in the page's catalogues, stay out of the
 * page. */
#include "render/explain.h"

void explain_gpt2_before(FILE *out, const table *t, const table *prev,
                         const void *ctx)
{
    (void)out;
    (void)t;
    (void)prev;
    (void)ctx;
}

void explain_bert_before(FILE *out, const table *t, const table *prev,
                         const void *ctx)
{
    (void)out;
    (void)t;
    (void)prev;
    (void)ctx;
}

void explain_llama_before(FILE *out, const table *t, const table *prev,
                          const void *ctx)
{
    (void)out;
    (void)t;
    (void)prev;
    (void)ctx;
}

const char *explain_intervention(const table *t)
{
    (void)t;
    return NULL;
}
