/* checkpoint_record.h: the recorder of a checkpoint's forward pass (a
 * hook point's record function, hooks.h): each table of a shown layer
 * and head copied into the trace under its key, with its labels; a
 * layer's end flushes the trace; the model view attn_entropy goes before
 * out, and next_tokens (the NEXT_TOKENS_K likeliest next tokens of each
 * token, or of each of only_at's places, softmax of the logits) after
 * the logits: made once here, from the tables passing the hook points,
 * for every checkpoint family.
 *
 * What a family gives it as data: the trace (its model, tr->model, set:
 * the labels' sizes D, F and D / H come from it), the run's
 * configuration, its checkpoint_run (the tokens' labels, the layers and
 * heads shown, how an id is written), the vocabulary's size, the prefix of
 * attn_entropy's rows, the id its layers' output passes as, and the
 * token whose places alone next_tokens shows (a masked-word model's
 * [MASK]).
 */
#ifndef MHA_CHECKPOINT_RECORD_H
#define MHA_CHECKPOINT_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/checkpoint_run.h"
#include "model/run_request.h"
#include "model/trace.h"
#include "numerics/tensor.h"

typedef struct {
    trace *tr;
    const run_request *rq;
    const checkpoint_run *run;
    size_t vocab_size;        /* V; 0: the model makes no logits (no
                                 masked-word head) */
    const char *layer_prefix; /* attn_entropy's rows ("h.") */
    table_id layer_output;    /* what a layer's output passes its hook
                                 point as, recorded as hidden: TABLE_HIDDEN,
                                 or a post-norm block's TABLE_OUT */
    const char *only_at;      /* next_tokens at this token's places only,
                                 when the text has it ("[MASK]"); NULL:
                                 at every place */

    /* made by checkpoint_record_init */
    const labels *tokens, *queries, *keys, *values;
    const labels *first; /* the first token's alone (pooler_output) */
    const labels *dims, *ffn_dims, *head_dims, *vocab;
    matrix entropy; /* (n_layer, n_head), filled as the weights come */
} checkpoint_recorder;

/* Makes r's labels and its entropy table (the fields above "made"). */
int checkpoint_record_init(checkpoint_recorder *r, mx_error *err);
void checkpoint_record_free(checkpoint_recorder *r);

/* The run's token ids (T x 1, an integral table "tokens") into the
 * trace. */
int checkpoint_record_ids(checkpoint_recorder *r, mx_error *err);

/* The parameters --tables names (run->find_param's), each into the
 * trace as its own table, the trace flushed after each: a matrix (rows x
 * cols) labelled p.rows0.. x p.cols0.., a vector one row named after the
 * name's last part (bias, weight) x dim0... */
int checkpoint_record_params(checkpoint_recorder *r, mx_error *err);

/* The hook points' record function; ctx is a checkpoint_recorder. */
int checkpoint_record(void *ctx, const table_key *at, const matrix *m,
                      mx_error *err);

#endif
