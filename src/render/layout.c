/* layout.c: blocks of text side by side (--layout grid). */
#include "render/layout.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "render/textwidth.h"

size_t visible_width(const char *line, size_t n)
{
    char small[512];
    char *copy = n < sizeof small ? small : malloc(n + 1);
    if (copy == NULL)
        return n;
    memcpy(copy, line, n);
    copy[n] = '\0';
    size_t w = display_width(copy); /* escapes take no cells */
    if (copy != small)
        free(copy);
    return w;
}

size_t block_width(const char *block)
{
    size_t widest = 0;
    while (*block != '\0') {
        size_t len = strcspn(block, "\n");
        size_t w = visible_width(block, len);
        if (w > widest)
            widest = w;
        block += len + (block[len] == '\n');
    }
    return widest;
}

int layout_side_by_side(FILE *out, const char *const *blocks, size_t n,
                        const unsigned char *sep)
{
    const char **at = calloc(n + 1, sizeof *at); /* each block's next line */
    size_t *width = calloc(n + 1, sizeof *width);
    if (at == NULL || width == NULL) {
        free(at);
        free(width);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        at[i] = blocks[i];
        width[i] = block_width(blocks[i]);
    }
    for (;;) {
        bool more = false;
        for (size_t i = 0; i < n; i++)
            more = more || *at[i] != '\0';
        if (!more)
            break;
        for (size_t i = 0; i < n; i++) {
            size_t len = strcspn(at[i], "\n");
            fwrite(at[i], 1, len, out);
            if (i + 1 < n) {
                for (size_t w = visible_width(at[i], len); w < width[i]; w++)
                    fputc(' ', out);
                if (sep[i])
                    fputs(LAYOUT_SEPARATOR, out);
            }
            at[i] += len + (at[i][len] == '\n');
        }
        fputc('\n', out);
    }
    free(at);
    free(width);
    return 0;
}
