/* gpt2_notes_page.c: gpt2_notes.h for the WebAssembly core every live
 * page carries (src/wasm/meson.build names it in the place of
 * gpt2_notes.c): a GPT-2 folder opened in such a page shows its tables
 * without the family's notes, whose messages stay out of the classroom
 * pages' catalogues. The families core has the notes themselves. */
#include "model/gpt2/gpt2_notes.h"

const family_notes gpt2_notes = {.layer = NULL};
