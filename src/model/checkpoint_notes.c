/* checkpoint_notes.c: the --explain notes every causal checkpoint family
 * shares (family_notes.h): what their scores, weights, layer outputs,
 * model view and next tokens are. */
#include "model/family_notes.h"

#include "base/i18n.h"

const family_note checkpoint_notes[] = {
    {TABLE_ATTN_SCORES,
     N_("Scores: q · k / sqrt(head width), later tokens masked: a token "
        "sees itself and the tokens before it."),
     NULL, FILL_NONE, NULL},
    {TABLE_ATTN_WEIGHTS,
     N_("Weights: the softmax of each row of scores, so each token's "
        "weights over the tokens it sees add up to 1."),
     NULL, FILL_NONE, NULL},
    {TABLE_HIDDEN,
     N_("The layer's output: the residual stream plus the MLP's output, "
        "the next layer's input."),
     NULL, FILL_NONE, NULL},
    {TABLE_ATTN_ENTROPY,
     N_("The model view: each head's mean attention entropy, in nats, a "
        "row per layer and a column per head. Near 0 a head looks at one "
        "token (often the previous one or the first); higher, it spreads "
        "its attention."),
     NULL, FILL_NONE, NULL},
    {TABLE_NEXT_TOKENS,
     N_("For each token, the five likeliest next tokens: the softmax of "
        "its logits."),
     NULL, FILL_NONE, NULL},
};

const size_t n_checkpoint_notes =
    sizeof checkpoint_notes / sizeof checkpoint_notes[0];

const family_note *family_note_of(const family_notes *notes, table_id id)
{
    for (size_t i = 0; i < notes->n; i++)
        if (notes->notes[i].id == id)
            return &notes->notes[i];
    if (notes->shared)
        for (size_t i = 0; i < n_checkpoint_notes; i++)
            if (checkpoint_notes[i].id == id)
                return &checkpoint_notes[i];
    return NULL;
}
