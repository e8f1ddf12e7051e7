/* families_page.h: the refusal of the core every live page carries for
 * what only the families core reads (src/wasm/meson.build): tokenizer.json
 * and the folders of the families whose tokenizer it holds (family.h's
 * rows: llama/llama_page.c, bert/bert_page.c,
 * tokenizers/hf_tokenizer_page.c). The message names the families from
 * their rows. */
#ifndef MHA_MODEL_FAMILIES_PAGE_H
#define MHA_MODEL_FAMILIES_PAGE_H

#include "base/error.h"

/* -1 with err set: path (a folder or its tokenizer.json) is read by the
 * page of a --model run only. */
int page_reads_vocab_merges_only(const char *path, mx_error *err);

#endif
