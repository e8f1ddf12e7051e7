/* explain_ablation.c: --explain's notes on --ablate, which the core of
 * every live page carries (src/wasm/meson.build) so that a page's head
 * switches show them: before ablation_effect, ablation_loss and
 * ablation_map (the same for every family with an lm_head), before a
 * trained lesson model's ablation_effect and logit_lens (its lens, the
 * lm_head alone), and before the first module of a lesson run without an
 * lm_head (model/lesson/lesson_ablate.h). The other interventions' notes
 * are explain_intervene.c's. */
#include "base/i18n.h"
#include "render/explain.h"

const char *explain_ablation(const table *t)
{
    switch (t->id) {
    case TABLE_ABLATE_EFFECT:
        return _("Ablation: the heads --ablate names were switched off (their "
                 "output z set to zero, or to its mean over the positions), "
                 "and every table above is the ablated model's. For each "
                 "token, the clean run's five likeliest next tokens: their "
                 "probability without and with the ablation, and how much "
                 "each logit changed. Switching a head off is an "
                 "intervention: what changes here is caused by the head, "
                 "where its attention weights only show a correlation. No "
                 "change does not prove the head useless: other heads may "
                 "make up for it.");
    case TABLE_ABLATE_LOSS:
        return _("The loss on each next token of the text and their mean, "
                 "clean and ablated: a rise means the model needed those "
                 "heads for this text. Mean ablation keeps a head's average "
                 "output and removes only what depends on the tokens; zero "
                 "ablation also pushes the next layers to values they never "
                 "see, so part of its effect is that artefact.");
    case TABLE_ABLATE_MAP:
        return _("The ablation map: each head switched off alone, the others "
                 "on, and the change in the mean loss on this text (or in "
                 "what --metric measures: logit-diff, --answer's logit "
                 "minus --wrong's at the last token; prob, --answer's "
                 "probability there), a row per layer and a column per "
                 "head. The heads with the largest change matter most for "
                 "this text; a randomly drawn checkpoint shows no such "
                 "pattern.");
    default:
        return NULL;
    }
}

const char *explain_lesson_intervention(const table *t)
{
    // once, before the first block's lens
    if (t->id == TABLE_LOGIT_LENS)
        return t->layer != 0 ? NULL
                             : _("The logit lens: the model's lm_head applied "
                                 "to the residual stream after each block "
                                 "(the block's out), as if the model stopped "
                                 "there. This model has no final norm: its "
                                 "logits are lm_head of the last block's "
                                 "out, so the lens is the lm_head alone. For "
                                 "each block and each token, the five "
                                 "likeliest next tokens with their "
                                 "probabilities. The last block's lens is "
                                 "the model's own next_tokens; earlier blocks "
                                 "show how the guess forms block by block. It "
                                 "reads the stream through a head trained "
                                 "only on the last block's output, so an "
                                 "early block may hold what it knows in a "
                                 "form this head cannot read: a poor guess "
                                 "there does not prove the block knows "
                                 "nothing.");
    if (t->id != TABLE_ABLATE_EFFECT)
        return explain_intervention(t);
    return _("Ablation of the trained model: the heads --ablate names were "
             "switched off (their output z set to zero or, with "
             "--ablate-mode mean, to its mean over every position of "
             "every sentence of --corpus, the text's own without one). "
             "The tables above are the trained model's as it is; here, "
             "for each token, its five likeliest next tokens: their "
             "probability without and with the ablation, and how much "
             "each logit changed. Switching a head off is an "
             "intervention: what changes here is caused by the head, "
             "where its attention weights only show a correlation. No "
             "change does not prove the head useless: other heads may "
             "make up for it.");
}

const char *explain_lesson_ablation(void)
{
    return _(
        "Ablation: --ablate switched heads off in these modules: each "
        "named head's output z (its head_context, T x head width) was "
        "set to zero or, with --ablate-mode mean, each column to its "
        "mean over the positions, before the module read it. Every "
        "table after it is the ablated module's: that head's "
        "head_context, concat_context, out, and in the block the "
        "tables after the attention and the later blocks. A module "
        "that lacks the named head runs as it is (the single head has "
        "head 0 only). These modules have no lm_head: they predict no next "
        "token, so there is no ablation_effect table to say what "
        "changed; compare the tables with the same run without "
        "--ablate. A trained --variant block (--train N) has an "
        "lm_head and gets ablation_effect and ablation_loss.");
}
