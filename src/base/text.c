/* text.c: Python's whitespace, and UTF-8 text cut between grapheme
 * clusters. */
#include "base/text.h"

#include <string.h>
#include <utf8proc.h>

int is_split_space(int c)
{
    /* Python's str.isspace(): ASCII whitespace including the separators
     * 0x1c-0x1f, NEL, and every Unicode space or line/paragraph separator. */
    if ((c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85)
        return 1;
    if (c < 0x80)
        return 0;
    utf8proc_category_t cat = utf8proc_category(c);
    return cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL ||
           cat == UTF8PROC_CATEGORY_ZP;
}

size_t text_prefix(const char *s, size_t max)
{
    const utf8proc_uint8_t *start = (const utf8proc_uint8_t *)s;
    const utf8proc_uint8_t *p = start;
    size_t fits = 0;            /* the last boundary within max bytes */
    utf8proc_int32_t prev = -1; /* previous code point, -1 at a start */
    utf8proc_int32_t state = 0;
    while (*p != '\0') {
        utf8proc_int32_t c;
        utf8proc_ssize_t n = utf8proc_iterate(p, -1, &c);
        const size_t at = (size_t)(p - start);
        if (n < 0) { /* an invalid byte: a boundary on both sides */
            if (at + 1 > max)
                return at;
            prev = -1;
            state = 0;
            p++;
            fits = at + 1;
            continue;
        }
        if (prev < 0 || utf8proc_grapheme_break_stateful(prev, c, &state))
            fits = at;
        if (at + (size_t)n > max)
            return fits;
        prev = c;
        p += n;
    }
    return (size_t)(p - start);
}

char *text_cut(char *dst, size_t size, const char *s)
{
    const size_t n = text_prefix(s, size - 1);
    memcpy(dst, s, n);
    dst[n] = '\0';
    return dst;
}

void text_join(char *dst, size_t size, const char *a, const char *b)
{
    const size_t na = strlen(a), nb = strlen(b);
    if (na + nb >= size) {
        dst[0] = '\0';
        return;
    }
    memcpy(dst, a, na);
    memcpy(dst + na, b, nb + 1);
}
