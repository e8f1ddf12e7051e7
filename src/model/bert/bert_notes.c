/* bert_notes.c: BERT's --explain notes (model/family_notes.h): what BERT
 * changes from the lessons' block and from GPT-2: WordPiece with [CLS],
 * [SEP] and ## pieces, segment embeddings, attention in both directions
 * (no mask), post-norm layers, the exact GELU, the pooler, the
 * masked-word head, and what the head scores mean when a head looks
 * both ways. */
#include "model/bert/bert_notes.h"

#include "base/i18n.h"

static const family_note notes[] = {
    {TABLE_TOKENS,
     NN_("BERT's tokenizer cut the text into %zu piece: WordPiece, a word "
         "whole when the vocabulary has it, else in pieces, each after the "
         "first marked ##. [CLS] opens the text and [SEP] closes it; [MASK] "
         "stands for a word to guess.",
         "BERT's tokenizer cut the text into %zu pieces: WordPiece, a word "
         "whole when the vocabulary has it, else in pieces, each after the "
         "first marked ##. [CLS] opens the text and [SEP] closes it; [MASK] "
         "stands for a word to guess."),
     FILL_ROWS, NULL},
    {TABLE_INPUTS,
     N_("Each token's vector (%zu values) is its row of word_embeddings "
        "plus the rows for its position and its segment (token type), then "
        "a LayerNorm."),
     NULL, FILL_COLS, NULL},
    {TABLE_QUERIES,
     N_("query, key and value, three nn.Linear (x @ W^T + b), make the "
        "queries, keys and values of every head at once; each head takes "
        "%zu columns of each."),
     NULL, FILL_COLS, NULL},
    {TABLE_ATTN_SCORES,
     N_("Scores: q · k / sqrt(head width), with no mask: BERT reads in "
        "both directions, so every token sees every other, the later ones "
        "too."),
     NULL, FILL_NONE, NULL},
    // a BERT layer's output is normalised after the sum: not the shared
    // note's pre-norm stream
    {TABLE_HIDDEN, NULL, NULL, FILL_NONE, NULL},
    {TABLE_FFN_HIDDEN,
     N_("The feed-forward network widens each token to %zu values and "
        "applies the exact GELU, x · Φ(x) with erf (not GPT-2's tanh "
        "form); output.dense brings it back."),
     NULL, FILL_COLS, NULL},
    {TABLE_OUT,
     N_("out: the last layer's output, one vector per token, each made "
        "from the whole text."),
     NULL, FILL_NONE, NULL},
    {TABLE_POOLER,
     N_("The pooler (BertModel's pooler): the first token's output, "
        "[CLS]'s, through one more nn.Linear and tanh, %zu values between "
        "-1 and 1 for the whole text. A classifier fine-tuned on BERT "
        "(sentiment, a pair's relation) reads this vector."),
     NULL, FILL_COLS, NULL},
    {TABLE_LOGITS,
     N_("The logits: the masked-word head (cls.predictions: dense, GELU, "
        "LayerNorm, then the word embeddings, tied, plus a bias) gives each "
        "token one score per piece of the vocabulary (%zu)."),
     NULL, FILL_COLS, NULL},
    {TABLE_NEXT_TOKENS,
     N_("At each [MASK], the five likeliest words for it: the softmax of "
        "its logits (at every token when the text has no [MASK])."),
     NULL, FILL_NONE, NULL},
    // what the head scores mean when a head looks both ways
    {TABLE_HEAD_SCORES,
     N_("Head scores, as TransformerLens's head detector: the share of "
        "each head's attention that falls where a kind of head would look: "
        "the previous token; an earlier copy of the current token "
        "(duplicate); the token after an earlier copy (induction). BERT "
        "reads both ways, but the detector's patterns look back only: "
        "attention to later tokens counts against every score, as does "
        "most attention to [CLS] and [SEP]. A score is a correlation. "
        "--repeat-random N gives the repeated text induction needs, "
        "between [CLS] and [SEP]."),
     NULL, FILL_NONE, NULL},
};

const family_notes bert_notes = {
    .layer = N_("Layer %d: a BERT layer over every token at once. The heads "
                "attend; their output is added to the layer's input and "
                "normalised after the sum (add_norm1: post-norm, as in the "
                "lessons' block). The feed-forward network transforms each "
                "token; its output is added and normalised again (hidden)."),
    .notes = notes,
    .n = sizeof notes / sizeof notes[0],
    .shared = 1,
};
