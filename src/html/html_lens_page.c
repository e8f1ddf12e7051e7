/* html_lens_page.c: html/html_lens.c's part of the page's data for the
 * WebAssembly core of every live page (src/wasm/meson.build names it in
 * html_lens.c's place). That core makes no logit lens
 * (model/intervene/logit_lens_page.c refuses --logit-lens), so its pages
 * have none: no data, no words (and the view's words stay out of its
 * catalogue). The families core has html_lens.c itself. */
#include "html/html_parts.h"

bool html_has_lens(const trace *tr)
{
    (void)tr;
    return false;
}

void html_write_lens_words(FILE *out, const trace *tr)
{
    (void)out;
    (void)tr;
}

int html_write_lens(FILE *out, const trace *tr, mx_error *err)
{
    (void)out;
    (void)tr;
    (void)err;
    return 0;
}
