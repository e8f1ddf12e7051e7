/* llama_notes.c: the Llama-style family's --explain notes
 * (model/family_notes.h; llama, qwen2, mistral): what the family changes
 * from the lesson's block and from GPT-2: RMSNorm, no position vectors
 * but rotated queries and keys, query heads sharing key/value heads, the
 * gated feed-forward network. */
#include "model/llama/llama_notes.h"

#include "base/i18n.h"

static const family_note notes[] = {
    {TABLE_TOKENS,
     N_("The checkpoint's tokenizer (tokenizer.json) cut the text into "
        "pieces, one row each."),
     NULL, FILL_NONE, NULL},
    {TABLE_KV_HEADS,
     N_("Grouped-query attention: the %zu query heads read the keys and "
        "values of fewer heads, each key/value head shared by the query "
        "heads beside it (repeat_kv). The model stores and computes fewer "
        "keys and values; each query head still makes its own scores and "
        "weights."),
     NULL, FILL_ROWS, NULL},
    {TABLE_INPUTS,
     N_("Each token's vector (%zu values) is its row of embed_tokens and "
        "nothing more: no position vector is added. Positions enter each "
        "head by rotating its queries and keys."),
     NULL, FILL_COLS, NULL},
    {TABLE_QUERIES,
     N_("q_proj, k_proj and v_proj (nn.Linear) make the queries of every "
        "head and the keys and values of the key/value heads; each head "
        "takes %zu columns. These are before the rotation."),
     NULL, FILL_COLS, NULL},
    {TABLE_QUERIES_ROTATED,
     N_("Rotary positions: columns i and i + %zu of the query or key at "
        "position m turn together by the angle m·θ_i (θ_i = "
        "rope_theta^(-2i/head width)). A rotation keeps lengths, and the "
        "dot product of a query turned by m and a key turned by n depends "
        "only on m - n: the scores see how far apart two tokens are."),
     NULL, FILL_HALF_COLS, NULL},
    {TABLE_FFN_HIDDEN,
     N_("The gated feed-forward network (SwiGLU): silu(gate_proj(x)) * "
        "up_proj(x), %zu values per token; the gate decides how much of "
        "each up_proj value passes. down_proj brings it back."),
     NULL, FILL_COLS, NULL},
    {TABLE_OUT,
     N_("norm, an RMSNorm, normalises the last layer's output; its product "
        "with embed_tokens, the embedding tied as the head (config.json says "
        "tie_word_embeddings is true), gives each next token's logit."),
     NULL, FILL_NONE,
     N_("norm, an RMSNorm, normalises the last layer's output; its product "
        "with lm_head.weight, the checkpoint's own head (config.json says "
        "tie_word_embeddings is false), gives each next token's logit.")},
};

const family_notes llama_notes = {
    .layer = N_("Layer %d: a Transformer block over the residual stream. "
                "ln_1 (input_layernorm) is an RMSNorm: each vector divided "
                "by its root mean square and scaled, with no mean taken "
                "away and no bias, unlike LayerNorm. The heads attend and "
                "their output is added back; ln_2 "
                "(post_attention_layernorm) normalises again for the gated "
                "feed-forward network, whose output is added back too."),
    .notes = notes,
    .n = sizeof notes / sizeof notes[0],
    .shared = 1,
};
