/* bert.h: a BERT checkpoint folder (--model DIR whose config.json says
 * "model_type": "bert") and its forward pass, exactly as transformers'
 * BertModel and BertForMaskedLM compute it (eager attention, evaluation
 * mode, float32, CPU).
 *
 * The folder is Hugging Face's: config.json, model.safetensors (F32) and
 * tokenizer.json (WordPiece, read by model/tokenizers/). Parameter names
 * may carry BertForMaskedLM's "bert." prefix or not (BertModel); the
 * masked-word head (cls.predictions.*) is used where the file has it, its
 * decoder tied to the word embeddings, and so is BertModel's pooler
 * (pooler.dense.*, which BertForMaskedLM has not). LayerNorm parameters named .gamma
 * and .beta (older checkpoints) are read as .weight and .bias.
 *
 * The forward pass, for T tokens of one text (D = hidden_size, H heads
 * of hd = D / H, F = intermediate_size, V words):
 *
 *   inputs (T, D) = LayerNorm((word[ids] + token_type[types]) + position)
 *   each layer (post-norm, BertLayer):
 *     Q, K, V (T, D) = query(x), key(x), value(x)       (nn.Linear)
 *     per head q, k, v (T, hd): its columns of Q, K, V
 *     scores (T, T) = q @ k^T / sqrt(hd), no mask (both directions;
 *       one text has no padding, and BertModel's mask adds -0.0)
 *     weights = softmax(scores); context (T, hd) = weights @ v
 *     concat (T, D); attn_out = attention.output.dense(concat)
 *     add_norm1 = attention.output.LayerNorm(attn_out + x)
 *     ffn_hidden (T, F) = gelu(intermediate.dense(add_norm1))  (erf GELU)
 *     ffn_out = output.dense(ffn_hidden)
 *     hidden = output.LayerNorm(ffn_out + add_norm1)
 *   out (T, D) = the last layer's hidden
 *   with the pooler (BertPooler): pooler_output (1, D) =
 *     tanh(pooler.dense(out[0])), the first token's ([CLS]) alone
 *   with the head: logits (T, V) = decoder(LayerNorm(gelu(
 *     transform.dense(out)))) + cls.predictions.bias
 *
 * Every activation passes a hook point as soon as it is made (hooks.h),
 * the layer's output under the block's table "out".
 */
#ifndef MHA_BERT_H
#define MHA_BERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "io/safetensors.h"
#include "model/bert/bert_config.h"
#include "model/hooks.h"
#include "numerics/tensor.h"
#include "numerics/workers.h"

/* One layer's parameters, float32, nn.Linear's layout (out, in):
 * BERT_LAYER_TENSORS tensors of the checkpoint. */
#define BERT_LAYER_TENSORS 16
typedef struct {
    const float *q_w, *q_b, *k_w, *k_b, *v_w, *v_b; /* (D, D), (D) */
    const float *attn_out_w, *attn_out_b;           /* (D, D), (D) */
    const float *ln1_w, *ln1_b;                     /* (D) */
    const float *inter_w, *inter_b;                 /* (F, D), (F) */
    const float *out_w, *out_b;                     /* (D, F), (D) */
    const float *ln2_w, *ln2_b;                     /* (D) */
} bert_layer;

/* The masked-word head, cls.predictions. */
typedef struct {
    const float *dense_w, *dense_b; /* (D, D), (D) */
    const float *ln_w, *ln_b;       /* (D) */
    const float *decoder;           /* (V, D): the word embeddings, tied */
    const float *bias;              /* (V) */
} bert_mlm_head;

/* BertModel's pooler, pooler.dense: an nn.Linear, then tanh. */
typedef struct {
    const float *dense_w, *dense_b; /* (D, D), (D) */
} bert_pooler;

typedef struct {
    bert_config cfg;
    safetensors st;
    char prefix[8];                  /* "bert." or "" */
    const float *word, *pos, *types; /* (V, D), (n_positions, D),
                                        (n_types, D) */
    const float *emb_ln_w, *emb_ln_b;
    bert_layer *layers; /* n_layer; owned */
    float **owned;      /* the F16 and BF16 tensors widened to float32
                           (model.float()); owned */
    size_t n_owned, max_owned;
    bool has_mlm;
    bert_mlm_head mlm;
    bool has_pooler;
    bert_pooler pooler;
    char *paths; /* the file names, owned */
} bert_model;

/* Whether name is a BERT parameter's name as the checkpoint writes it
 * without "bert." (embeddings.*, encoder.layer.N.*, pooler.*) or a
 * cls.predictions.* name; *layer (may be NULL) gets N, or -1 outside the
 * layers. */
bool bert_param_name(const char *name, int *layer);

/* Opens DIR's config.json and model.safetensors, and checks that every
 * tensor is there with the shape config.json implies. F32 tensors stay in
 * the mapped file; F16 and BF16 ones are widened to float32 exactly, as
 * model.float() widens them. */
int bert_open(bert_model *m, const char *dir, mx_error *err);
void bert_close(bert_model *m);

/* A run of the forward pass (see gpt2.h's gpt2_run): the hooks, whether
 * to make the logits (with the masked-word head only), the pool. */
typedef struct {
    const forward_hooks *hooks;
    bool logits;
    workers *pool;
} bert_run;

/* Runs ids with their token types (T of each, ids < vocab_size, types <
 * type_vocab_size, T <= max_position_embeddings) through m; out (T, D)
 * gets the last layer's output, allocated here. With the pooler,
 * pooler_output passes its hook point after out (before the logits). */
int bert_forward(matrix *out, const bert_model *m, const int32_t *ids,
                 const int32_t *types, size_t T, const bert_run *run,
                 mx_error *err);

#endif
