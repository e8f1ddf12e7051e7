/* hf_tokenizer_page.c: model/tokenizers/hf_tokenizer.h for the core every
 * live page carries (src/wasm/meson.build names it in the place of
 * hf_tokenizer.c and hf_encode.c). The program reads tokenizer.json with its
 * pre-tokenizers' patterns matched by PCRE2 and its normalisers by
 * utf8proc's full tables; the families core, which the pages of --model
 * runs carry, reads it through the browser's RegExp and normal forms
 * (tok_regex_page.c, base/page/utf8proc_forms.c), some 24 kB more of every page
 * (docs/html.md). Here a folder whose tokenizer is tokenizer.json alone
 * is refused with one message, naming the page that reads it, and a
 * GPT-2 folder with vocab.json and merges.txt runs (model/tokenizers/bpe.c
 * splits the text by hand, as the program does). */
#include "model/tokenizers/hf_tokenizer.h"

#include "model/families_page.h"

static int no_tokenizer_json(const char *path, mx_error *err)
{
    return page_reads_vocab_merges_only(path, err);
}

int hf_tokenizer_open(hf_tokenizer **out, const char *path, mx_error *err)
{
    *out = NULL;
    return no_tokenizer_json(path, err);
}

int hf_tokenizer_open_config(hf_tokenizer **out, const char *path,
                             const char *config, mx_error *err)
{
    (void)config;
    *out = NULL;
    return no_tokenizer_json(path, err);
}

/* Not reached: no tokenizer is ever opened. */
void hf_tokenizer_free(hf_tokenizer *t)
{
    (void)t;
}

size_t hf_tokenizer_vocab_size(const hf_tokenizer *t)
{
    (void)t;
    return 0;
}

bool hf_tokenizer_byte_level(const hf_tokenizer *t)
{
    (void)t;
    return false;
}

int hf_tokenizer_encode(int32_t **ids, size_t *n, const hf_tokenizer *t,
                        const char *text, size_t len, bool add_special,
                        size_t max, mx_error *err)
{
    (void)t;
    (void)text;
    (void)len;
    (void)add_special;
    (void)max;
    *ids = NULL;
    *n = 0;
    return no_tokenizer_json("tokenizer.json", err);
}

void hf_tokenizer_specials(const int32_t **before, size_t *n_before,
                           const int32_t **after, size_t *n_after,
                           const hf_tokenizer *t)
{
    (void)t;
    *before = *after = NULL;
    *n_before = *n_after = 0;
}

const char *hf_tokenizer_piece(const hf_tokenizer *t, int32_t id, size_t *len)
{
    (void)t;
    (void)id;
    *len = 0;
    return NULL;
}

bool hf_tokenizer_special(const hf_tokenizer *t, int32_t id)
{
    (void)t;
    (void)id;
    return false;
}
