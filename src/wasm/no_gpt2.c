/* no_gpt2.c: model/gpt2/gpt2.h and model/gpt2/gpt2_trace.h for the WebAssembly
 * core. --model reads a GPT-2 checkpoint folder, and the page has no
 * file system: the core carries no checkpoint reader (safetensors, the
 * BPE tokenizer), and a command line with --model is refused with one
 * message. Everything else runs the program's own code. */
#include "model/gpt2/gpt2.h"
#include "model/gpt2/gpt2_lm.h"
#include "model/gpt2/gpt2_trace.h"

#include "base/i18n.h"
#include "io/model_type.h"

/* The one message of a run with --model in the page. */
static int no_checkpoints(mx_error *err)
{
    return err_usage(err, "%s",
                     _("--model: the page runs no GPT-2 checkpoint (run "
                       "mha-explain --model DIR --html FILE instead)"));
}

bool gpt2_param_name(const char *name, int *layer)
{
    (void)name;
    (void)layer;
    return false;
}

/* The page reads no folder: a run with --model names no model_type, so
 * it is GPT-2's (family.c), refused here. */
bool read_model_type(char *type, size_t n, const char *dir)
{
    (void)n;
    (void)dir;
    type[0] = '\0';
    return false;
}

int gpt2_trace_check(double *values, const model_config *mc,
                     const model_input *in, bool streamed, mx_error *err)
{
    (void)streamed;
    (void)mc;
    (void)in;
    *values = 0;
    return no_checkpoints(err);
}

int gpt2_trace_tokens(tokenized *tok, size_t *n_queries, const model_config *mc,
                      const model_input *in, mx_error *err)
{
    (void)tok;
    (void)mc;
    (void)in;
    *n_queries = 0;
    return no_checkpoints(err);
}

int gpt2_trace_run(trace *tr, const model_config *mc, const model_input *in,
                   mx_error *err)
{
    (void)tr;
    (void)mc;
    (void)in;
    return no_checkpoints(err);
}

bool gpt2_trace_makes_table(const model_config *mc, const model_input *in,
                            const char *name)
{
    (void)in;
    (void)mc;
    (void)name;
    return false;
}

/* The interventions' model (model/gpt2/gpt2_lm.h): none in the page. */
static int no_lm_open(lm_session **s, lm_shape *shape, const model_config *mc,
                      mx_error *err)
{
    (void)mc;
    *s = NULL;
    *shape = (lm_shape){0};
    return no_checkpoints(err);
}

const lm_ops gpt2_lm = {.open = no_lm_open};
