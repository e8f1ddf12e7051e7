/* explain_intervene.c: --explain before the interventions' tables
 * (model/intervene/): what each experiment measures, and what it does
 * not. */
#include "base/i18n.h"
#include "render/explain.h"

const char *explain_intervention(const table *t)
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
                 "on, and the change in the mean loss on this text, a row "
                 "per layer and a column per head. The heads with the "
                 "largest rise matter most for this text; a randomly drawn "
                 "checkpoint shows no such pattern.");
    default:
        return NULL;
    }
}
