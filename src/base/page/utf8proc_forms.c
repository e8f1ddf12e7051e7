/* utf8proc_forms.c: the functions of utf8proc that tokenizer.json's
 * normalisers call (model/tokenizers/tok_normalize.c) and utf8proc_lite.c
 * leaves out, for the families core: Unicode's normal forms and the
 * upper case, through the browser's String.prototype.normalize and
 * toUpperCase (the page's imports normalize and toupper,
 * src/html/page/core_imports.js), which is what the reference,
 * @huggingface/tokenizers, calls. utf8proc's decomposition tables would
 * be some 100 kB of the core. */
#include <stdlib.h>
#include <utf8proc.h>

#include "base/page/page_link.h"

/* text[0..n) (UTF-8) in normal form `form` (0 NFC, 1 NFKC, 2 NFD, 3
 * NFKD), written to out when its length fits cap: its length in bytes,
 * or (size_t)-1 when text is not UTF-8. */
IMPORT(normalize)
size_t page_normalize(int form, const utf8proc_uint8_t *text, size_t n,
                      utf8proc_uint8_t *out, size_t cap);

/* The upper case of c when it is one code point, else c. */
IMPORT(toupper) utf8proc_int32_t page_toupper(utf8proc_int32_t c);

utf8proc_int32_t utf8proc_toupper(utf8proc_int32_t c)
{
    return page_toupper(c);
}

utf8proc_ssize_t utf8proc_map(const utf8proc_uint8_t *str,
                              utf8proc_ssize_t strlen,
                              utf8proc_uint8_t **dstptr,
                              utf8proc_option_t options)
{
    *dstptr = NULL;
    const int form = ((options & UTF8PROC_DECOMPOSE) ? 2 : 0) +
                     ((options & UTF8PROC_COMPAT) ? 1 : 0);
    const size_t n = (size_t)strlen;
    size_t cap = n + 1;
    for (int tries = 0; tries < 2; tries++) {
        utf8proc_uint8_t *out = malloc(cap);
        if (out == NULL)
            return UTF8PROC_ERROR_NOMEM;
        const size_t len = page_normalize(form, str, n, out, cap - 1);
        if (len == (size_t)-1) {
            free(out);
            return UTF8PROC_ERROR_INVALIDUTF8;
        }
        if (len < cap) {
            out[len] = '\0';
            *dstptr = out;
            return (utf8proc_ssize_t)len;
        }
        free(out);
        cap = len + 1;
    }
    return UTF8PROC_ERROR_NOMEM;
}
