/* gpt2_notes.c: GPT-2's --explain notes (model/family_notes.h): what a
 * real model adds to the lessons' attention: BPE pieces, positions,
 * layers, the residual stream, GELU, logits. */
#include "model/gpt2/gpt2_notes.h"

#include "base/i18n.h"

static const family_note notes[] = {
    {TABLE_TOKENS,
     NN_("GPT-2's tokenizer cut the text into %zu piece: byte-level BPE, "
         "the bytes of each word merged by rules learned from text, so a "
         "common word is one piece and a rare one several. ␣ marks a piece "
         "that starts with a space.",
         "GPT-2's tokenizer cut the text into %zu pieces: byte-level BPE, "
         "the bytes of each word merged by rules learned from text, so a "
         "common word is one piece and a rare one several. ␣ marks a piece "
         "that starts with a space."),
     FILL_ROWS, NULL},
    {TABLE_INPUTS,
     N_("Each token's vector (%zu values) is its row of wte, the learned "
        "embedding, plus the row of wpe for its position: unlike the "
        "lessons' modules, GPT-2 knows where each token stands."),
     NULL, FILL_COLS, NULL},
    {TABLE_QUERIES,
     N_("c_attn, one Conv1D (x @ W + b, W stored in x out), makes the "
        "queries, keys and values of every head at once; each head takes "
        "%zu columns of each."),
     NULL, FILL_COLS, NULL},
    {TABLE_RESIDUAL,
     N_("The residual stream after the attention: the layer's input plus "
        "attn_out (c_proj of the heads side by side). The heads add to the "
        "stream; they do not replace it."),
     NULL, FILL_NONE, NULL},
    {TABLE_FFN_HIDDEN,
     N_("The MLP widens each token to %zu values with c_fc and applies "
        "GELU in its tanh form (gelu_new), a smooth ReLU; c_proj brings it "
        "back."),
     NULL, FILL_COLS, NULL},
    {TABLE_OUT,
     N_("ln_f normalises the last layer's output; its product with wte "
        "(the embedding, tied) gives each next token's logit."),
     NULL, FILL_NONE,
     N_("ln_f normalises the last layer's output; its product with "
        "lm_head.weight, the checkpoint's own head (config.json says "
        "tie_word_embeddings is false), gives each next token's logit.")},
    {TABLE_LOGITS,
     N_("The logits: out @ wte^T, one score per piece of the vocabulary "
        "(%zu) for the token that comes next; their softmax gives "
        "next_tokens' probabilities."),
     NULL, FILL_COLS,
     N_("The logits: out @ lm_head.weight^T, the checkpoint's own head "
        "rather than wte, one score per piece of the vocabulary (%zu) for "
        "the token that comes next; their softmax gives next_tokens' "
        "probabilities.")},
};

const family_notes gpt2_notes = {
    .layer = N_("Layer %d: a Transformer block over the residual stream, "
                "each token's vector carried from layer to layer. ln_1 "
                "normalises it, the heads attend, their output is added "
                "back to the stream; ln_2 normalises again, the MLP "
                "transforms each token, and its output is added back too."),
    .notes = notes,
    .n = sizeof notes / sizeof notes[0],
    .shared = 1,
};
