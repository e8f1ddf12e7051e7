/* bpe_ids.c: the ids of GPT-2's tokenizer (model/tokenizers/bpe.h) for each string
 * on standard input, for tests/unit/bpe_test.py.
 *
 *   bpe_ids VOCAB.json MERGES.txt < strings
 *
 * The strings are separated by NUL bytes; for each, one line of its ids
 * separated by spaces, then its labels on the next line, separated by
 * tabs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/tokenizers/bpe.h"

static int emit(const bpe *b, const char *s, size_t len)
{
    int32_t *ids;
    size_t n;
    mx_error err;
    if (bpe_encode(&ids, &n, b, s, len, SIZE_MAX, &err) != 0) {
        printf("error: %s\n\n", err.msg);
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        printf("%s%ld", i ? " " : "", (long)ids[i]);
    putchar('\n');
    for (size_t i = 0; i < n; i++) {
        char label[256];
        bpe_label(label, sizeof label, b, ids[i]);
        printf("%s%s", i ? "\t" : "", label);
    }
    putchar('\n');
    free(ids);
    return 0;
}

int main(int argc, char **argv)
{
    bpe *b;
    mx_error err;
    if (argc != 3 || bpe_open(&b, argv[1], argv[2], &err) != 0) {
        fprintf(stderr, "bpe_ids: %s\n", argc != 3 ? "usage" : err.msg);
        return 2;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    int c;
    while (buf != NULL && (c = getchar()) != EOF) {
        if (c == '\0') {
            emit(b, buf, len);
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
        emit(b, buf, len);
    free(buf);
    bpe_free(b);
    return 0;
}
