/* page_core.h: the page's WebAssembly core (src/wasm/core.h) and the
 * message catalogues it speaks with, compressed (gzip) and in base64,
 * made at build time (src/wasm/embed_core.py). page_core is empty when
 * the program was built without the WebAssembly toolchain: its pages are
 * then static. */
#ifndef MHA_PAGE_CORE_H
#define MHA_PAGE_CORE_H

#include <stddef.h>

extern const char *const page_core;

/* One language's .mo catalogue (po/LANG.po) for the core's messages. */
typedef struct {
    const char *lang; /* as in po/LINGUAS; NULL ends the list */
    const char *mo;   /* gzip, base64 */
} page_catalogue;

extern const page_catalogue page_catalogues[];

/* The families core (src/wasm/meson.build): page_core with the
 * Llama-style and BERT families and tokenizer.json, and the catalogues of
 * its messages; the pages of --model runs carry it instead of page_core
 * (html.c). Empty, and no catalogues, when page_core is. */
extern const char *const page_core_families;
extern const page_catalogue page_core_families_catalogues[];

#endif
