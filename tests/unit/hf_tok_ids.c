/* hf_tok_ids.c: the ids a tokenizer.json gives each string on standard
 * input (model/tokenizers/hf_tokenizer.h), for
 * tests/unit/hf_tokenizer_test.py.
 *
 *   hf_tok_ids TOKENIZER.json < strings
 *
 * The strings are separated by NUL bytes; for each, one line of its ids
 * (special tokens added, as Tokenizer.encode adds them) separated by
 * spaces, or "error: ..." for a text refused. A tokenizer.json refused
 * is one line on stderr and status 2. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/tokenizers/hf_tokenizer.h"

static void emit(const hf_tokenizer *t, const char *s, size_t len)
{
    int32_t *ids;
    size_t n;
    mx_error err;
    if (hf_tokenizer_encode(&ids, &n, t, s, len, true, SIZE_MAX, &err) != 0) {
        printf("error: %s\n", err.msg);
        return;
    }
    for (size_t i = 0; i < n; i++)
        printf("%s%ld", i ? " " : "", (long)ids[i]);
    putchar('\n');
    free(ids);
}

int main(int argc, char **argv)
{
    hf_tokenizer *t;
    mx_error err;
    if (argc != 2 || hf_tokenizer_open(&t, argv[1], &err) != 0) {
        fprintf(stderr, "hf_tok_ids: %s\n", argc != 2 ? "usage" : err.msg);
        return 2;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    int c;
    while (buf != NULL && (c = getchar()) != EOF) {
        if (c == '\0') {
            emit(t, buf, len);
            len = 0;
            continue;
        }
        if (len + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (nb == NULL)
                break;
            buf = nb;
        }
        buf[len++] = (char)c;
    }
    if (len > 0)
        emit(t, buf, len);
    free(buf);
    hf_tokenizer_free(t);
    return 0;
}
