/* page_families.h: the refusal of the core every live page carries for
 * what only the families core reads (src/wasm/meson.build): Llama-style
 * and BERT folders, and tokenizer.json (no_llama.c, no_bert.c,
 * no_hf_tokenizer.c). */
#ifndef MHA_WASM_PAGE_FAMILIES_H
#define MHA_WASM_PAGE_FAMILIES_H

#include "base/error.h"

/* -1 with err set: path (a folder or its tokenizer.json) is read by the
 * page of a --model run only. */
int page_reads_gpt2_only(const char *path, mx_error *err);

#endif
