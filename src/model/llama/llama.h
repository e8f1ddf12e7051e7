/* llama.h: a Llama-style checkpoint folder (--model DIR whose config.json
 * says model_type llama, qwen2 or mistral) and its forward pass, as
 * transformers' LlamaModel / Qwen2Model compute it with eager attention
 * in float32 on the CPU (a user's model.float()).
 *
 * The folder: config.json; model.safetensors or the shards of
 * model.safetensors.index.json (io/safetensors_set.h); tokenizer.json
 * (read by model/tokenizers/checkpoint_tokenizer.h). Names carry LlamaForCausalLM's
 * "model." or not; lm_head.weight is read unless tie_word_embeddings.
 * F32 tensors stay in the mapped files; F16 and BF16 are widened exactly.
 *
 * The forward pass, for T tokens (D = hidden_size, H query heads and KV
 * key/value heads of hd = D / H, each query head h reading key/value
 * head h / (H / KV), F = intermediate_size, V words):
 *
 *   h (T, D) = embed_tokens[ids]
 *   each layer, the one Transformer block (layers/transformer_block.h)
 *   with its norms before, RMSNorm and the gated network:
 *     a = input_layernorm(h) (RMSNorm, numerics/rms_norm.h);
 *     q (T, H hd) = q_proj(a), k, v (T, KV hd) = k_proj(a), v_proj(a)
 *     (nn.Linear, with biases for Qwen2); per query head its columns of
 *     q and of its key/value head's k and v, q and k rotated
 *     (layers/rotary.h), scores = q k^T * hd ** -0.5 + causal mask,
 *     weights = softmax, context = weights v (layers/attention_head.h);
 *     concat (T, D); attn_out = o_proj(concat); h = h + attn_out;
 *     m = post_attention_layernorm(h); ffn_hidden (T, F) =
 *     silu(gate_proj(m)) * up_proj(m); ffn_out = down_proj(ffn_hidden)
 *     (layers/swiglu.h); h = h + ffn_out
 *   out (T, D) = norm(h); logits (T, V) = out @ lm_head^T (or
 *   embed_tokens^T when tied)
 *
 * Every activation passes its hook point (hooks.h) as it is made, under
 * the same table ids as a GPT-2 checkpoint's (ln_1 and ln_2 are the two
 * RMSNorms), with queries_rotated and keys_rotated besides.
 */
#ifndef MHA_LLAMA_H
#define MHA_LLAMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "io/safetensors_set.h"
#include "model/hooks.h"
#include "model/layers/kv_cache.h"
#include "numerics/tensor.h"
#include "numerics/workers.h"

/* The key of config.json that gives the positions, as messages name it. */
#define LLAMA_POSITIONS_KEY "max_position_embeddings"

/* The most end-of-text tokens config.json's eos_token_id lists. */
#define LLAMA_MAX_EOS 8

typedef struct {
    char model_type[16];
    size_t n_layer, n_head, n_kv_head, hidden, inter, vocab_size, n_positions;
    float eps;     /* rms_norm_eps */
    double theta;  /* rope_theta */
    bool tied;     /* tie_word_embeddings */
    bool qkv_bias; /* q_proj, k_proj, v_proj have biases (Qwen2) */
    bool o_bias;   /* o_proj has one (attention_bias) */
    /* eos_token_id: one id or a list of them (Llama 3 lists several);
       generation stops at any */
    int32_t eos[LLAMA_MAX_EOS];
    size_t n_eos;
    /* sliding_window where the modeling code uses it (Mistral's, and
     * Llama's as this program reads it), 0: none. A text no longer than
     * the window is attended to whole, as without one; a longer text is
     * refused (llama_window_check). */
    size_t window;
} llama_config;

/* One layer's parameters, float32, as nn.Linear stores them (out, in). */
typedef struct {
    const float *ln_1, *ln_2;            /* (D) input_ and
                                             post_attention_layernorm */
    const float *q_w, *k_w, *v_w, *o_w;  /* (H hd, D), (KV hd, D) x 2,
                                             (D, H hd) */
    const float *q_b, *k_b, *v_b, *o_b;  /* or NULL */
    const float *gate_w, *up_w, *down_w; /* (F, D), (F, D), (D, F) */
} llama_layer;

typedef struct {
    llama_config cfg;
    safetensors_set st;
    char prefix[8];                      /* "model." or "" */
    const float *embed, *norm, *lm_head; /* (V, D), (D), (V, D) */
    llama_layer *layers;                 /* n_layer; owned */
    float **owned;                       /* widened tensors; owned */
    size_t n_owned, max_owned;
} llama_model;

/* Whether name is one of the model's parameter names (without "model."):
 * embed_tokens.weight, norm.weight, lm_head.weight or layers.N. ...;
 * *layer (may be NULL) gets N, or -1 outside the layers. */
bool llama_param_name(const char *name, int *layer);

/* Opens dir's config.json and weights and checks every tensor's shape. */
int llama_open(llama_model *m, const char *dir, mx_error *err);
void llama_close(llama_model *m);

typedef struct {
    const forward_hooks *hooks; /* or NULL */
    bool logits;                /* make the logits */
    workers *pool;              /* or NULL */
    /* NULL: the pass attends over its own T tokens. Else generation's
     * cache (kv_cache.h, KV hd wide): the T tokens sit at positions
     * cache->len .., rotated by those positions; their rotated keys and
     * their values are kept, and each query row attends over every
     * cached key and its own tokens' (causally); cache->len moves on by
     * T. After the first step a step takes one token, as generate()
     * feeds it. */
    kv_cache *cache;
} llama_run;

/* Refuses a text of T tokens longer than the config's sliding window,
 * naming both numbers; 0 when there is no window or the text fits. */
int llama_window_check(const llama_config *c, size_t T, mx_error *err);

/* Runs ids (T of them, each < vocab_size, T <= n_positions, after the
 * cache's positions with a cache) through m;
 * out (T, D) gets the final norm's output, allocated here. */
int llama_forward(matrix *out, const llama_model *m, const int32_t *ids,
                  size_t T, const llama_run *run, mx_error *err);

/* The layers first .. first + count - 1 over h (n * T rows, D): n texts
 * of T tokens each (at positions 0 .. T - 1), stacked, in place, each
 * text's rows as a pass of llama_forward over that text alone computes
 * them: the norms and products work row by row over all the rows, each
 * text's attention over its own rows. Text i's attention's tables pass
 * hooks[i] (hooks may be NULL; replacing hooks without a recorder), the
 * other tables no hook point. The interventions run many patched or
 * ablated texts at once this way, from the residual stream a pass kept
 * before a layer (lm.h, lm_ops.layers). */
int llama_layers(matrix *h, const llama_model *m, size_t n, size_t first,
                 size_t count, const forward_hooks *hooks, workers *pool,
                 mx_error *err);

/* logits (T, V) = out (T, D) @ lm_head^T (embed_tokens when tied),
 * nn.Linear without a bias; logits allocated by the caller. */
void llama_logits(matrix *logits, const llama_model *m, const matrix *out,
                  workers *pool);

#endif
