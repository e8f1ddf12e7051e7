/* explain_llama.c: --explain for a Llama-style checkpoint's run (llama,
 * qwen2, mistral): what the family changes from the lesson's block and
 * from GPT-2: RMSNorm, no position vectors but rotated queries and keys,
 * query heads sharing key/value heads, the gated feed-forward network.
 * Each note comes before the first table of its kind (head 0 of the
 * first layer shown for a head's), its sizes read from the tables. */
#include <stdio.h>

#include "base/i18n.h"
#include "render/explain.h"

/* Whether t is the first table of its layer. */
static bool starts_layer(const table *t, const table *prev)
{
    // the logit lens reads each layer after the run: not a layer's start
    return table_model_layer(t) >= 0 && t->id != TABLE_LOGIT_LENS &&
           (prev == NULL || table_model_layer(prev) != t->layer);
}

/* The note of the table kinds the family explains in its own words, or
 * NULL; text is room for one with sizes. */
static const char *family_note(char *text, size_t size, const table *t)
{
    const size_t rows = t->values.rows, cols = t->values.cols;
    switch (t->id) {
    case TABLE_TOKENS:
        return _("The checkpoint's tokenizer (tokenizer.json) cut the text "
                 "into pieces, one row each.");
    case TABLE_KV_HEADS:
        snprintf(text, size,
                 _("Grouped-query attention: the %zu query heads read the "
                   "keys and values of fewer heads, each key/value head "
                   "shared by the query heads beside it (repeat_kv). The "
                   "model stores and computes fewer keys and values; each "
                   "query head still makes its own scores and weights."),
                 rows);
        return text;
    case TABLE_INPUTS:
        snprintf(text, size,
                 _("Each token's vector (%zu values) is its row of "
                   "embed_tokens and nothing more: no position vector is "
                   "added. Positions enter each head by rotating its "
                   "queries and keys."),
                 cols);
        return text;
    case TABLE_QUERIES:
        snprintf(text, size,
                 _("q_proj, k_proj and v_proj (nn.Linear) make the queries "
                   "of every head and the keys and values of the key/value "
                   "heads; each head takes %zu columns. These are before "
                   "the rotation."),
                 cols);
        return text;
    case TABLE_QUERIES_ROTATED:
        snprintf(text, size,
                 _("Rotary positions: columns i and i + %zu of the query "
                   "or key at position m turn together by the angle m·θ_i "
                   "(θ_i = rope_theta^(-2i/head width)). A rotation keeps "
                   "lengths, and the dot product of a query turned by m "
                   "and a key turned by n depends only on m - n: the "
                   "scores see how far apart two tokens are."),
                 cols / 2);
        return text;
    case TABLE_FFN_HIDDEN:
        snprintf(text, size,
                 _("The gated feed-forward network (SwiGLU): silu(gate_proj"
                   "(x)) * up_proj(x), %zu values per token; the gate "
                   "decides how much of each up_proj value passes. "
                   "down_proj brings it back."),
                 cols);
        return text;
    case TABLE_OUT:
        return _("norm, an RMSNorm, normalises the last layer's output; "
                 "its product with lm_head (the embedding, when tied) "
                 "gives each next token's logit.");
    default:
        return NULL;
    }
}

void explain_llama_before(FILE *out, const table *t, const table *prev,
                          const void *ctx)
{
    const explain_context *c = ctx;
    char text[1024];
    if (starts_layer(t, prev)) {
        snprintf(text, sizeof text,
                 _("Layer %d: a Transformer block over the residual stream. "
                   "ln_1 (input_layernorm) is an RMSNorm: each vector "
                   "divided by its root mean square and scaled, with no "
                   "mean taken away and no bias, unlike LayerNorm. The "
                   "heads attend and their output is added back; ln_2 "
                   "(post_attention_layernorm) normalises again for the "
                   "gated feed-forward network, whose output is added "
                   "back too."),
                 t->layer);
        explain_note(out, c->width, text);
        if (t->head > 0 || t->id == TABLE_PARAM) {
            fputc('\n', out);
            return;
        }
    }
    if (t->head > 0 || t->id == TABLE_PARAM)
        return;
    const char *note = family_note(text, sizeof text, t);
    if (note != NULL) {
        explain_note(out, c->width, note);
        fputc('\n', out);
        return;
    }
    // what the family shares with GPT-2's notes (scores, weights, the
    // layer's output, the model view, next tokens, generation); t as the
    // table before
    // keeps GPT-2's layer note out
    switch (t->id) {
    case TABLE_ATTN_SCORES:
    case TABLE_ATTN_WEIGHTS:
    case TABLE_HIDDEN:
    case TABLE_ATTN_ENTROPY:
    case TABLE_NEXT_TOKENS:
    case TABLE_GENERATED:
        explain_gpt2_before(out, t, t, ctx);
        break;
    default:
        // the interventions' and the logit lens's, every family's
        note = explain_intervention(t);
        if (note != NULL) {
            explain_note(out, c->width, note);
            fputc('\n', out);
        }
        break;
    }
}
