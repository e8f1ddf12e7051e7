/* fuzz_tokenizer_json.c: any bytes as a tokenizer.json, and a text.
 *
 * The input is the file, then (after its last NUL byte, if it has one) a
 * text. The reader must accept or reject every file cleanly (a rejection
 * is a status-2 error with a message); a file it accepts must encode the
 * text and a few fixed ones into ids of its vocabulary, or refuse them
 * with a message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/tokenizers/hf_tokenizer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void encode(const hf_tokenizer *t, const char *s, size_t len)
{
    int32_t *ids;
    size_t n;
    mx_error err = {0};
    if (hf_tokenizer_encode(&ids, &n, t, s, len, true, 4096, &err) != 0) {
        if (err.msg[0] == '\0' || err.status != 2)
            abort();
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (ids[i] < 0 || (size_t)ids[i] >= hf_tokenizer_vocab_size(t))
            abort(); /* every id is a token's */
    free(ids);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t json_len = size, text_len = 0;
    const uint8_t *nul = size ? memchr(data, 0, size) : NULL;
    if (nul != NULL) {
        json_len = (size_t)(nul - data);
        text = (const char *)nul + 1;
        text_len = size - json_len - 1;
    }
    hf_tokenizer *t;
    mx_error err = {0};
    if (hf_tokenizer_read(&t, (const char *)data, json_len, "tokenizer.json",
                          &err) != 0) {
        if (err.msg[0] == '\0' || err.status != 2)
            abort(); /* a rejection must say why */
        return 0;
    }
    static const char *const fixed[] = {
        "Hello, world! It's 2026.", "  spaces\n\nand\tnewlines ",
        "Olá, coração 你好 😀", "<s>[CLS]<|endoftext|>", ""};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        encode(t, fixed[i], strlen(fixed[i]));
    if (nul != NULL)
        encode(t, text, text_len);
    hf_tokenizer_free(t);
    return 0;
}
