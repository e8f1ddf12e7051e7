/* explain_intervene_page.c: render/explain_intervene.c for the core of
 * every live page (src/wasm/meson.build names it in its place). That
 * core runs --ablate alone (src/wasm/intervene_ablate_page.c), so its
 * interventions' notes are --ablate's (explain_ablation.c): a head
 * switched off on a trained model's page gets the program's --explain
 * notes, in the page's language, and the catalogues carry no --patch,
 * --head-scores or logit lens notes. The families core, which the page of
 * a --model run carries, has explain_intervene.c itself. */
#include "render/explain.h"

const char *explain_intervention(const table *t)
{
    return explain_ablation(t);
}
