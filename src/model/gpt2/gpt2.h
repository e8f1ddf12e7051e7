/* gpt2.h: a GPT-2 checkpoint folder (--model DIR) and its forward pass,
 * exactly as transformers' GPT2Model computes it (eager attention,
 * float32, CPU).
 *
 * The folder is Hugging Face's: config.json and model.safetensors (and
 * vocab.json and merges.txt, read by model/tokenizers/bpe.h). Parameter names may
 * carry GPT2LMHeadModel's "transformer." prefix or not; the mask buffers
 * h.N.attn.bias and h.N.attn.masked_bias are skipped; lm_head is wte
 * unless config.json's tie_word_embeddings is false, then the
 * checkpoint's own lm_head.weight (model/tied_head.h). The tensors stay in the mapped file (io/safetensors.h); only F16
 * and BF16 ones are widened into memory of their own.
 *
 * The forward pass, for T tokens (D = n_embd, H heads of hd = D / H, F =
 * n_inner, V words):
 *
 *   h (T, D) = wte[ids] + wpe[0..T)
 *   each layer: a = ln_1(h); qkv (T, 3D) = addmm(c_attn.bias, a,
 *     c_attn.weight); per head q, k, v (T, hd) its columns of qkv;
 *     scores (T, T) = q @ k^T / sqrt(hd), masked causally; weights =
 *     softmax(scores); context (T, hd) = weights @ v; concat (T, D);
 *     attn_out = addmm(attn.c_proj.bias, concat, attn.c_proj.weight);
 *     h = attn_out + h; m = ln_2(h); fc (T, F) = gelu_new(addmm(c_fc...));
 *     mlp_out = addmm(mlp.c_proj...); h = h + mlp_out
 *   out (T, D) = ln_f(h); logits (T, V) = out @ lm_head^T on request
 *
 * Every activation passes a hook point as soon as it is made (hooks.h):
 * a recorder keeps it (the trace), a hook may replace it; the pass itself
 * holds one layer's work.
 */
#ifndef MHA_GPT2_H
#define MHA_GPT2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "io/safetensors.h"
#include "model/hooks.h"
#include "model/layers/kv_cache.h"
#include "numerics/tensor.h"
#include "numerics/workers.h"

/* The key of config.json that gives the positions (n_positions, also
 * read as n_ctx), as messages name it. */
#define GPT2_POSITIONS_KEY "n_positions"

typedef struct {
    size_t n_layer, n_head, n_embd, n_positions, vocab_size, n_inner;
    float eps;  /* layer_norm_epsilon */
    long eos;   /* eos_token_id (GPT-2's <|endoftext|>, 50256), or -1 when
                  config.json has none */
    bool tied;  /* tie_word_embeddings (default true): lm_head is wte */
    bool scale; /* scale_attn_weights (default true): scores / sqrt(hd) */
} gpt2_config;

/* One layer's parameters, float32 (T x D inputs; W stored in x out):
 * GPT2_LAYER_TENSORS tensors of the checkpoint. */
#define GPT2_LAYER_TENSORS 12
typedef struct {
    const float *ln_1_w, *ln_1_b;           /* (D) */
    const float *c_attn_w, *c_attn_b;       /* (D, 3D), (3D) */
    const float *attn_proj_w, *attn_proj_b; /* (D, D), (D) */
    const float *ln_2_w, *ln_2_b;           /* (D) */
    const float *c_fc_w, *c_fc_b;           /* (D, F), (F) */
    const float *mlp_proj_w, *mlp_proj_b;   /* (F, D), (D) */
} gpt2_layer;

typedef struct {
    gpt2_config cfg;
    safetensors st;
    char prefix[16];        /* "transformer." or "" */
    const float *wte, *wpe; /* (V, D), (n_positions, D) */
    const float *ln_f_w, *ln_f_b;
    const float *lm_head; /* (V, D): wte when tied, else lm_head.weight */
    gpt2_layer *layers;   /* n_layer; owned */
    float **owned;        /* widened tensors; owned */
    size_t n_owned;
    char *paths; /* the file names, owned */
} gpt2_model;

/* Whether name is a GPT-2 parameter's name as the checkpoint writes it
 * without "transformer.": wte.weight, wpe.weight, ln_f.weight, ln_f.bias,
 * or h.N. then ln_1, attn.c_attn, attn.c_proj, ln_2, mlp.c_fc or
 * mlp.c_proj, then .weight or .bias; *layer (may be NULL) gets N, or -1
 * outside the layers. */
bool gpt2_param_name(const char *name, int *layer);

/* Opens DIR's config.json and model.safetensors, and checks that every
 * tensor is there with the shape config.json implies. */
int gpt2_open(gpt2_model *m, const char *dir, mx_error *err);
void gpt2_close(gpt2_model *m);

/* A run of the forward pass. Its hook points (hooks.h) are named by the
 * tables' keys: inputs (wte + wpe) under the variant input; each layer's
 * ln_1, its heads' queries, keys, values, attn_scores (scaled, -inf
 * above the diagonal), attn_weights and head_context, concat_context,
 * attn_out, residual (h after the attention), ln_2, ffn_hidden (after
 * gelu_new), ffn_out (mlp.c_proj) and hidden (the layer's output) under
 * the variant block with the layer (and head) in the key; out (ln_f) and
 * logits under the variant model. */
typedef struct {
    const forward_hooks *hooks; /* the recorder and replacing hooks, or
                                   NULL */
    bool logits;                /* make the logits */
    workers *pool;              /* or NULL */
    /* NULL: the pass attends over its own T tokens. Else generation's
     * cache (kv_cache.h): the T tokens sit at positions cache->len .. and
     * each query row attends over every cached key and its own tokens'
     * (causally); their keys and values are kept and cache->len moves on
     * by T. A cache that holds positions takes one token at a time, as
     * generate() feeds it. */
    kv_cache *cache;
} gpt2_run;

/* Runs ids (T of them, each < vocab_size, T <= n_positions, after the
 * cache's positions with a cache) through m; out (T, D) gets ln_f's
 * output, allocated here. */
int gpt2_forward(matrix *out, const gpt2_model *m, const int32_t *ids, size_t T,
                 const gpt2_run *run, mx_error *err);

/* The layers first .. first + count - 1 over h (n * T rows, D): n texts
 * of T tokens each, stacked, in place, each text's rows as a pass of
 * gpt2_forward over that text alone computes them (every product and
 * norm works row by row; each text attends to its own rows). Their hook
 * points are the heads' tables only: text i's through hooks[i] (hooks
 * may be NULL, and holds replacing hooks without a recorder). The
 * interventions run many ablated texts at once this way, from the
 * residual stream a clean pass kept before a layer. */
int gpt2_layers(matrix *h, const gpt2_model *m, size_t n, size_t first,
                size_t count, const forward_hooks *hooks, workers *pool,
                mx_error *err);

/* logits (T, V) = out (T, D) @ lm_head^T: GPT2LMHeadModel's lm_head
 * (wte when tied), without a bias; logits allocated by the caller. */
void gpt2_logits(matrix *logits, const gpt2_model *m, const matrix *out,
                 workers *pool);

#endif
