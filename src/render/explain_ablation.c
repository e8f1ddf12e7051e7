/* explain_ablation.c: --explain's note on --ablate L.H in a lesson run
 * without an lm_head (model/lesson/lesson_ablate.h), before its first
 * module. */
#include "base/i18n.h"
#include "render/explain.h"

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
