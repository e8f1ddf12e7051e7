/* explain_intervene.c: --explain before the interventions' tables and the
 * logit lens's (model/intervene/): what each experiment measures, and
 * what it does not. --ablate's notes are explain_ablation.c's, which
 * every page's core carries; these are the families core's and the
 * program's (explain_intervene_page.c stands in for this file in the
 * core of every live page). */
#include "base/i18n.h"
#include "render/explain.h"

const char *explain_intervention(const table *t)
{
    switch (t->id) {
    case TABLE_PATCH_BASELINES:
        return _("What the patching compares: the --clean and the --corrupt "
                 "text, a row each, and each run's logit difference "
                 "(--answer's logit minus --wrong's at the last token). The "
                 "clean run's is the score 1 of the maps below, the "
                 "corrupted run's the score 0; a score is divided by their "
                 "gap, so when the two are close, scores far outside 0 to 1 "
                 "say little more than that the gap is small.");
    case TABLE_PATCH_HEADS:
        return _(
            "Activation patching: the --corrupt text run again with one "
            "head's output z taken from the --clean run, a head at a "
            "time, a row per layer and a column per head. The score is "
            "how much of the logit difference (--answer minus --wrong "
            "at the last token) that one head brings back: 0 is the "
            "corrupted run, 1 the clean one. A score of 0.8 means this "
            "head alone restores eight tenths of the difference: it carries "
            "much of what tells the two texts apart. Scores may pass 1 or go "
            "below 0, and heads that share a job may each score low.");
    case TABLE_PATCH_RESID:
        return _("The residual stream before each layer, patched at one "
                 "position at a time: where (which token) and when (which "
                 "layer) the model holds what tells the two texts apart. "
                 "Early layers need the position where the texts differ; "
                 "where later layers need the last position, the "
                 "information has been moved there by attention.");
    case TABLE_HEAD_SCORES:
        return _("Head scores, as TransformerLens's head detector: the share "
                 "of each head's attention (its attn_weights) that falls "
                 "where a kind of head would look: the previous token; an "
                 "earlier copy of the current token (duplicate); the token "
                 "after an earlier copy (induction, which predicts that "
                 "what followed before follows again). A row per head, 1 "
                 "when all its attention goes there. A score describes "
                 "where a head looks on this text, a correlation: it does "
                 "not show that the model uses the head, which --ablate "
                 "and --patch test. Induction needs a repeated text: "
                 "--repeat-random N.");
    case TABLE_LOGIT_LENS:
        // once, before the first layer's lens
        if (t->layer != 0)
            return NULL;
        return _("The logit lens: the model's final norm and lm_head applied "
                 "to the residual stream after each layer, as if the model "
                 "stopped there. For each layer and each token, the five "
                 "likeliest next tokens with their probabilities. "
                 "The last layer's lens is the model's own next_tokens; "
                 "earlier layers show how the guess forms layer by layer. It "
                 "reads the stream through a head trained only on the last "
                 "layer's output, so an early layer may hold what it knows in "
                 "a form this head cannot read: a poor guess there does not "
                 "prove the layer knows nothing.");
    default:
        return explain_ablation(t);
    }
}
