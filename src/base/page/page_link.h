/* page_link.h: how the page's WebAssembly core meets the page's script:
 * EXPORT names a function the script calls (wasm/core.h's entry points,
 * libintl.c's catalogue), IMPORT one the script gives the core (module
 * "mha": src/html/page/core_imports.js). Used by the core's sources
 * only (src/wasm/meson.build). */
#ifndef MHA_BASE_PAGE_LINK_H
#define MHA_BASE_PAGE_LINK_H

/* Exported under their own names, for the page's script. */
#define EXPORT(name) __attribute__((export_name(#name)))
/* A function the page gives the core (module "mha": core_imports.js). */
#define IMPORT(name) __attribute__((import_module("mha"), import_name(#name)))

#endif
