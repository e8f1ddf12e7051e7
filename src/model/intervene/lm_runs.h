/* lm_runs.h: what every intervention does with a language model
 * (model/lm.h): open it over a text, run it with replacing hooks and
 * keep its logits, the loss of the logits on the text, and an L x H map
 * as a table.
 */
#ifndef MHA_LM_RUNS_H
#define MHA_LM_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/hooks.h"
#include "model/lm.h"
#include "model/run_request.h"
#include "model/trace.h"
#include "numerics/tensor.h"

enum {
    /* the most rows (passes x T) an intervention runs through the layers
     * at once (lm_ops.layers): a product over a few hundred rows reads
     * each weight once for all of them, and the working matrices stay a
     * few times one pass's */
    LM_ROWS_AT_ONCE = 256,
};

/* A model opened over a text: its session, sizes and the text's ids. */
typedef struct {
    const lm_ops *lm;
    lm_session *s;
    lm_shape shape;
    int32_t *ids; /* T; owned */
    size_t T;
} lm_text;

/* Opens rq's model over the len bytes of text. */
int lm_text_open(lm_text *run, const lm_ops *lm, const run_request *rq,
                 const char *text, size_t len, mx_error *err);
void lm_text_close(lm_text *run);

/* Opens rq's model over n token ids drawn as torch.randint(0, V, (n,))
 * after torch.manual_seed(seed) (each id the generator's next 32-bit
 * value modulo V), then the same n again: 2n ids. A model whose lm_ops
 * has draws (lm.h: BERT's) draws words[torch.randint(0, n_words, (n,))]
 * instead, and puts its special tokens around the 2n: [CLS] w w [SEP]. */
int lm_text_random(lm_text *run, const lm_ops *lm, const run_request *rq,
                   size_t n, uint64_t seed, mx_error *err);

/* lm_text_random for rq's --repeat-random, else lm_text_open over the
 * input's sentence. */
int lm_text_of(lm_text *run, const lm_ops *lm, const run_request *rq,
               const model_input *in, mx_error *err);

/* One forward pass over ids (T of them) with the n replacing hooks, also
 * calling record(ctx, ...) at every hook point when it is not NULL;
 * *logits (T, V) gets the logits, allocated here. */
int lm_run_ids(matrix *logits, lm_text *run, const int32_t *ids, size_t T,
               const replace_hook *replace, size_t n,
               int (*record)(void *ctx, const table_key *at, const matrix *m,
                             mx_error *err),
               void *ctx, mx_error *err);

/* n passes over ids (T each) from the residual stream before layer
 * `first`, for a family with lm_ops.layers: resid (n * T, D) holds the n
 * streams stacked, run in place through the layers first .. L - 1 (pass
 * i's heads passing hooks[i]; hooks NULL: none), then the model's head
 * over each pass's last row alone: last (n, V), allocated by the caller,
 * row i what row T - 1 of pass i's whole logits (T, V) holds, bit for
 * bit (the final norm and the lm_head's product work row by row,
 * numerics/matmul.h). */
int lm_last_logits_from(matrix *last, lm_text *run, matrix *resid, size_t n,
                        size_t first, const forward_hooks *hooks,
                        mx_error *err);

/* One forward pass over the text's own ids, without a hook that
 * replaces, calling record(ctx, ...) at every hook point; the logits
 * neither needed nor kept (a model without an lm_head runs it). */
int lm_run_record(lm_text *run,
                  int (*record)(void *ctx, const table_key *at, const matrix *m,
                                mx_error *err),
                  void *ctx, mx_error *err);

/* lm_run_ids over the text's own ids, without a recorder. */
int lm_text_logits(matrix *logits, lm_text *run, const replace_hook *replace,
                   size_t n, mx_error *err);

/* The loss of logits (T, V) on the text's next tokens, as
 * F.cross_entropy(logits[:-1], ids[1:]) (model/loss.h): each[t] =
 * -log_softmax(logits[t])[ids[t+1]] (reduction='none'), mean the
 * mean. */
typedef struct {
    float *each; /* T - 1; owned */
    float mean;
} lm_loss;

int lm_loss_of(lm_loss *loss, const matrix *logits, const lm_text *run,
               mx_error *err);
void lm_loss_free(lm_loss *loss);

/* What the maps' rows call a layer: the family's layer name ("h"), else
 * the stacked variant's name (a lesson model's "block"), else "layer". */
const char *lm_layer_name(const trace *tr);

/* The table id (L x H, or L x T) of map under the model after its
 * layers: a row per layer ("h.3", the family's layer name), a column per
 * head (its number), or named by cols (a token per position) when cols
 * is not NULL. */
int lm_put_map(trace *tr, table_id id, const matrix *map,
               const char *const *cols, mx_error *err);

/* The labels of the text's tokens (run->T of them), malloc'ed, each
 * freed by lm_labels_free. */
char **lm_labels(const lm_text *run, const int32_t *ids, size_t T,
                 mx_error *err);
void lm_labels_free(char **names, size_t T);

#endif
