/* explain_gpt2.c: --explain for a checkpoint's run (--model): what a real
 * model adds to the lessons' attention: BPE pieces, positions, layers,
 * the residual stream, GELU, logits. Each note comes before the first
 * table of its kind (head 0 of the first layer shown for a head's), its
 * sizes read from the tables themselves. */
#include <stdio.h>

#include "base/i18n.h"
#include "render/explain_parts.h"

/* Whether t is the first table of its layer (the run's tables come layer
 * by layer). */
static bool starts_layer(const table *t, const table *prev)
{
    // the logit lens reads each layer after the run: not a layer's start
    return table_model_layer(t) >= 0 && t->id != TABLE_LOGIT_LENS &&
           (prev == NULL || table_model_layer(prev) != t->layer);
}

/* generated (N x 15, model/gpt2/gpt2_generate.h): why a step costs one
 * row, then how each token was picked, with each step's numbers read
 * from the table: the tokens top-k and top-p left, the token's
 * probability in the model's softmax and where it was drawn. */
static void explain_generated(FILE *out, const table *t,
                              const explain_context *c)
{
    const size_t N = t->values.rows;
    char text[2048];
    snprintf(text, sizeof text,
             _("Generation: a step of the model per new token. The first "
               "step ran the prompt's %zu tokens and kept every layer's keys "
               "and values (the KV cache); each later step feeds only the "
               "new token, whose one query row per head is scored against "
               "every cached key: a step computes one row of each table, "
               "not one per token so far, and the cache grows by one row a "
               "layer. The last of these %zu steps saw %zu positions."),
             c->tokens, N, c->tokens + (N > 0 ? N - 1 : 0));
    explain_note(out, c->width, text);
    explain_picking(out, t, c);
    if (c->generated_ablated)
        explain_note(
            out, c->width,
            _("With --ablate, every step ran with those heads switched off, "
              "over the same cache: zero sets a head's output z to 0; mean "
              "sets it to its mean over the prompt's positions, taken in the "
              "prompt's step and kept for every new token. The clean model's "
              "text follows, picked with the same seed: where the two part is "
              "the first pick the heads changed."));
}

void explain_gpt2_before(FILE *out, const table *t, const table *prev,
                         const void *ctx)
{
    const explain_context *c = ctx;
    const size_t rows = t->values.rows, cols = t->values.cols;
    char text[1024];
    const char *note = NULL;
    const bool layer_note = starts_layer(t, prev);
    if (layer_note) {
        snprintf(text, sizeof text,
                 _("Layer %d: a Transformer block over the residual stream, "
                   "each token's vector carried from layer to layer. ln_1 "
                   "normalises it, the heads attend, their output is added "
                   "back to the stream; ln_2 normalises again, the MLP "
                   "transforms each token, and its output is added back "
                   "too."),
                 t->layer);
        explain_note(out, c->width, text);
    }
    if (t->head > 0 || t->id == TABLE_PARAM) {
        if (layer_note)
            fputc('\n', out);
        return;
    }
    switch (t->id) {
    case TABLE_TOKENS:
        snprintf(text, sizeof text,
                 ngettext("GPT-2's tokenizer cut the text into %zu piece: "
                          "byte-level BPE, the bytes of each word merged by "
                          "rules learned from text, so a common word is one "
                          "piece and a rare one several. ␣ marks a piece "
                          "that starts with a space.",
                          "GPT-2's tokenizer cut the text into %zu pieces: "
                          "byte-level BPE, the bytes of each word merged by "
                          "rules learned from text, so a common word is one "
                          "piece and a rare one several. ␣ marks a piece "
                          "that starts with a space.",
                          rows),
                 rows);
        note = text;
        break;
    case TABLE_INPUTS:
        snprintf(text, sizeof text,
                 _("Each token's vector (%zu values) is its row of wte, the "
                   "learned embedding, plus the row of wpe for its "
                   "position: unlike the lessons' modules, GPT-2 knows "
                   "where each token stands."),
                 cols);
        note = text;
        break;
    case TABLE_QUERIES:
        snprintf(text, sizeof text,
                 _("c_attn, one Conv1D (x @ W + b, W stored in x out), "
                   "makes the queries, keys and values of every head at "
                   "once; each head takes %zu columns of each."),
                 cols);
        note = text;
        break;
    case TABLE_ATTN_SCORES:
        note = _("Scores: q · k / sqrt(head width), later tokens masked: "
                 "a token sees itself and the tokens before it.");
        break;
    case TABLE_ATTN_WEIGHTS:
        note = _("Weights: the softmax of each row of scores, so each "
                 "token's weights over the tokens it sees add up to 1.");
        break;
    case TABLE_RESIDUAL:
        note = _("The residual stream after the attention: the layer's "
                 "input plus attn_out (c_proj of the heads side by side). "
                 "The heads add to the stream; they do not replace it.");
        break;
    case TABLE_FFN_HIDDEN:
        snprintf(text, sizeof text,
                 _("The MLP widens each token to %zu values with c_fc and "
                   "applies GELU in its tanh form (gelu_new), a smooth "
                   "ReLU; c_proj brings it back."),
                 cols);
        note = text;
        break;
    case TABLE_HIDDEN:
        note = _("The layer's output: the residual stream plus the MLP's "
                 "output, the next layer's input.");
        break;
    case TABLE_ATTN_ENTROPY:
        note = _("The model view: each head's mean attention entropy, in "
                 "nats, a row per layer and a column per head. Near 0 a "
                 "head looks at one token (often the previous one or the "
                 "first); higher, it spreads its attention.");
        break;
    case TABLE_OUT:
        note = _("ln_f normalises the last layer's output; its product with "
                 "wte (the embedding, tied) gives each next token's logit.");
        break;
    case TABLE_LOGITS:
        snprintf(text, sizeof text,
                 _("The logits: out @ wte^T, one score per piece of the "
                   "vocabulary (%zu) for the token that comes next; their "
                   "softmax gives next_tokens' probabilities."),
                 cols);
        note = text;
        break;
    case TABLE_NEXT_TOKENS:
        note = _("For each token, the five likeliest next tokens: the "
                 "softmax of its logits.");
        break;
    case TABLE_GENERATED:
        explain_generated(out, t, c);
        fputc('\n', out);
        return;
    default:
        note = explain_intervention(t);
        break;
    }
    if (note != NULL)
        explain_note(out, c->width, note);
    if (note != NULL || layer_note)
        fputc('\n', out);
}
