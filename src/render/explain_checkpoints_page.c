/* explain_checkpoints_page.c: the --explain notes of the checkpoint
 * families (render/explain_checkpoint.c, which prints the notes of each
 * family's folder) for the core every live page carries
 * (src/wasm/meson.build names it in their place): their notes, and their
 * messages in the page's catalogues, stay out of the classroom pages,
 * which are the smaller for it; a GPT-2 folder opened in such a page
 * (io/page_files.c) shows its tables without these notes. The families
 * core, which the page of a --model run carries, has the notes
 * themselves. The interventions' notes are explain_intervene_page.c's. */
#include "render/explain.h"

void explain_checkpoint_before(FILE *out, const table *t, const table *prev,
                               const void *ctx)
{
    (void)out;
    (void)t;
    (void)prev;
    (void)ctx;
}
