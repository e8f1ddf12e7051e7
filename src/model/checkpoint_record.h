/* checkpoint_record.h: the recorder of a checkpoint's forward pass (a
 * hook point's record function, hooks.h): each table of a shown layer
 * and head copied into the trace under its key, with its labels; a
 * layer's end flushes the trace; the model view attn_entropy goes before
 * out, and next_tokens (the NEXT_TOKENS_K likeliest next tokens of each
 * token, softmax of the logits) after the logits.
 *
 * What a family gives it: the trace, the run's configuration, the
 * tokens' labels, which layers and heads are shown, the sizes for the
 * labels, and how a token id is written (its tokenizer's label).
 */
#ifndef MHA_CHECKPOINT_RECORD_H
#define MHA_CHECKPOINT_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/pipeline.h"
#include "model/trace.h"
#include "numerics/tensor.h"

typedef struct {
    trace *tr;
    const model_config *mc;
    const char *const *pieces; /* T labels of the tokens */
    size_t T;
    const bool *layers, *heads; /* shown; n_layer and n_head */
    size_t n_layer, n_head, d_model, d_ffn, head_dim, vocab_size;
    const char *layer_prefix; /* attn_entropy's rows ("h.") */
    /* id's label into buf (size bytes) */
    void (*label)(const void *ctx, int32_t id, char *buf, size_t size);
    const void *label_ctx;

    /* made by checkpoint_record_init */
    const labels *tokens, *queries, *keys, *values;
    const labels *dims, *ffn_dims, *head_dims, *vocab;
    matrix entropy; /* (n_layer, n_head), filled as the weights come */
} checkpoint_recorder;

/* Makes r's labels and its entropy table (the fields above "made"). */
int checkpoint_record_init(checkpoint_recorder *r, mx_error *err);
void checkpoint_record_free(checkpoint_recorder *r);

/* keep[0..n) = the members of the ranges (all when none is given); a
 * range past n is an error of the option named. */
int checkpoint_select(bool *keep, size_t n, const index_range *ranges,
                      size_t n_ranges, const char *option, mx_error *err);

/* The token ids (T x 1, an integral table "tokens") into the trace. */
int checkpoint_record_ids(checkpoint_recorder *r, const int32_t *ids,
                          mx_error *err);

/* The hook points' record function; ctx is a checkpoint_recorder. */
int checkpoint_record(void *ctx, const table_key *at, const matrix *m,
                      mx_error *err);

#endif
