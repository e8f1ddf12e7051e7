/* explain_bert.c: --explain for a BERT checkpoint's run: what BERT
 * changes from the lessons' block and from GPT-2: WordPiece with [CLS],
 * [SEP] and ## pieces, segment embeddings, attention in both directions
 * (no mask), post-norm layers, the exact GELU, the pooler, the
 * masked-word head, and what the head scores mean when a head looks
 * both ways. Each
 * note comes before the first table of its kind (head 0 for a head's),
 * its sizes read from the tables themselves. */
#include <stdio.h>

#include "base/i18n.h"
#include "render/explain.h"

/* The note of table t (sizes rows x cols) into text, or NULL. */
static const char *note_of(char *text, size_t size, const table *t, size_t rows,
                           size_t cols)
{
    switch (t->id) {
    case TABLE_TOKENS:
        snprintf(text, size,
                 ngettext("BERT's tokenizer cut the text into %zu piece: "
                          "WordPiece, a word whole when the vocabulary has "
                          "it, else in pieces, each after the first marked "
                          "##. [CLS] opens the text and [SEP] closes it; "
                          "[MASK] stands for a word to guess.",
                          "BERT's tokenizer cut the text into %zu pieces: "
                          "WordPiece, a word whole when the vocabulary has "
                          "it, else in pieces, each after the first marked "
                          "##. [CLS] opens the text and [SEP] closes it; "
                          "[MASK] stands for a word to guess.",
                          rows),
                 rows);
        return text;
    case TABLE_INPUTS:
        snprintf(text, size,
                 _("Each token's vector (%zu values) is its row of "
                   "word_embeddings plus the rows for its position and its "
                   "segment (token type), then a LayerNorm."),
                 cols);
        return text;
    case TABLE_QUERIES:
        snprintf(text, size,
                 _("query, key and value, three nn.Linear (x @ W^T + b), "
                   "make the queries, keys and values of every head at "
                   "once; each head takes %zu columns of each."),
                 cols);
        return text;
    case TABLE_ATTN_SCORES:
        return _("Scores: q · k / sqrt(head width), with no mask: BERT "
                 "reads in both directions, so every token sees every "
                 "other, the later ones too.");
    case TABLE_ATTN_WEIGHTS:
        return _("Weights: the softmax of each row of scores, so each "
                 "token's weights over the tokens it sees add up to 1.");
    case TABLE_FFN_HIDDEN:
        snprintf(text, size,
                 _("The feed-forward network widens each token to %zu "
                   "values and applies the exact GELU, x · Φ(x) with erf "
                   "(not GPT-2's tanh form); output.dense brings it back."),
                 cols);
        return text;
    case TABLE_ATTN_ENTROPY:
        return _("The model view: each head's mean attention entropy, in "
                 "nats, a row per layer and a column per head. Near 0 a "
                 "head looks at one token (often the previous one or the "
                 "first); higher, it spreads its attention.");
    case TABLE_OUT:
        return _("out: the last layer's output, one vector per token, each "
                 "made from the whole text.");
    case TABLE_POOLER:
        snprintf(text, size,
                 _("The pooler (BertModel's pooler): the first token's "
                   "output, [CLS]'s, through one more nn.Linear and tanh, "
                   "%zu values between -1 and 1 for the whole text. A "
                   "classifier fine-tuned on BERT (sentiment, a pair's "
                   "relation) reads this vector."),
                 cols);
        return text;
    case TABLE_LOGITS:
        snprintf(text, size,
                 _("The logits: the masked-word head (cls.predictions: "
                   "dense, GELU, LayerNorm, then the word embeddings, tied, "
                   "plus a bias) gives each token one score per piece of "
                   "the vocabulary (%zu)."),
                 cols);
        return text;
    case TABLE_NEXT_TOKENS:
        return _("At each [MASK], the five likeliest words for it: the "
                 "softmax of its logits (at every token when the text has "
                 "no [MASK]).");
    case TABLE_HEAD_SCORES:
        return _("Head scores, as TransformerLens's head detector: the share "
                 "of each head's attention that falls where a kind of head "
                 "would look: the previous token; an earlier copy of the "
                 "current token (duplicate); the token after an earlier "
                 "copy (induction). BERT reads both ways, but the "
                 "detector's patterns look back only: attention to later "
                 "tokens counts against every score, as does most "
                 "attention to [CLS] and [SEP]. A score is a correlation. "
                 "--repeat-random N gives the repeated text induction "
                 "needs, between [CLS] and [SEP].");
    default:
        return NULL;
    }
}

void explain_bert_before(FILE *out, const table *t, const table *prev,
                         const void *ctx)
{
    const explain_context *c = ctx;
    char text[1024];
    const bool layer_note =
        table_model_layer(t) >= 0 &&
        (prev == NULL || table_model_layer(prev) != t->layer);
    if (layer_note) {
        snprintf(text, sizeof text,
                 _("Layer %d: a BERT layer over every token at once. The "
                   "heads attend; their output is added to the layer's "
                   "input and normalised after the sum (add_norm1: "
                   "post-norm, as in the lessons' block). The feed-forward "
                   "network transforms each token; its output is added and "
                   "normalised again (hidden)."),
                 t->layer);
        explain_note(out, c->width, text);
    }
    const char *note =
        t->head > 0 || t->id == TABLE_PARAM
            ? NULL
            : note_of(text, sizeof text, t, t->values.rows, t->values.cols);
    if (note != NULL)
        explain_note(out, c->width, note);
    if (note != NULL || layer_note)
        fputc('\n', out);
}
