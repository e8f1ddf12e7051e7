/* textbuf.c: a growing byte buffer (see textbuf.h). */
#include "render/textbuf.h"

#include <stdlib.h>
#include <string.h>
#include <csv.h>

#include "base/csv_guard.h"
#include "numerics/floatfmt.h"

/* Makes room for `more` bytes after the text. */
static int reserve(textbuf *buf, size_t more)
{
    if (buf->cap - buf->len >= more)
        return 0;
    if (more > ((size_t)-1) / 2 - buf->len)
        return -1;
    size_t cap = buf->cap > 0 ? buf->cap : 256;
    while (cap - buf->len < more)
        cap *= 2;
    char *s = realloc(buf->s, cap);
    if (s == NULL)
        return -1;
    buf->s = s;
    buf->cap = cap;
    return 0;
}

char *textbuf_reserve(textbuf *buf, size_t more)
{
    return reserve(buf, more) == 0 ? buf->s + buf->len : NULL;
}

int textbuf_add(textbuf *buf, const char *s, size_t n)
{
    if (reserve(buf, n) != 0)
        return -1;
    if (n > 0)
        memcpy(buf->s + buf->len, s, n);
    buf->len += n;
    return 0;
}

int textbuf_add_char(textbuf *buf, char c)
{
    return textbuf_add(buf, &c, 1);
}

int textbuf_add_size(textbuf *buf, size_t n)
{
    char digits[24];
    size_t k = sizeof digits;
    do {
        digits[--k] = (char)('0' + n % 10);
        n /= 10;
    } while (n > 0);
    return textbuf_add(buf, digits + k, sizeof digits - k);
}

int textbuf_add_float(textbuf *buf, float v, bool decimal_comma)
{
    if (reserve(buf, FLOAT_TEXT_SIZE) != 0)
        return -1;
    buf->len += float_text(buf->s + buf->len, v, decimal_comma);
    return 0;
}

int textbuf_add_csv_field(textbuf *buf, const char *s, char delimiter)
{
    const char special[] = {delimiter, '"', '\r', '\n', '\0'};
    const size_t n = strlen(s);
    /* a cell a spreadsheet would run as a formula gets an apostrophe
     * first, which it shows as text (base/csv_guard.h) */
    const size_t guard = csv_guard_needed(s) ? 1 : 0;
    if (strpbrk(s, special) == NULL) {
        if (reserve(buf, guard + n) != 0 ||
            (guard && textbuf_add_char(buf, '\'') != 0))
            return -1;
        return textbuf_add(buf, s, n);
    }
    /* csv_write tells the quoted size when given no room */
    const size_t quoted = csv_write(NULL, 0, s, n);
    if (reserve(buf, guard + quoted) != 0)
        return -1;
    char *p = buf->s + buf->len;
    csv_write(p + guard, quoted, s, n);
    if (guard) {
        /* "'..." : the apostrophe inside the quotes */
        p[0] = '"';
        p[1] = '\'';
    }
    buf->len += guard + quoted;
    return 0;
}

int textbuf_flush(textbuf *buf, FILE *out)
{
    if (buf->len > 0 && fwrite(buf->s, 1, buf->len, out) != buf->len)
        return -1;
    buf->len = 0;
    return 0;
}

void textbuf_free(textbuf *buf)
{
    free(buf->s);
    buf->s = NULL;
    buf->len = buf->cap = 0;
}
