/* decoded_text.c: a model's bytes decoded as the text shown
 * (decoded_text.h). */
#include "model/decoded_text.h"

#include <stdlib.h>
#include <string.h>

/* U+FFFD, the replacement character, in UTF-8. */
static const char replacement[] = "\xef\xbf\xbd";

/* The bytes a character led by b has (1 to 4), and the range its second
 * byte must lie in; 0 for a byte that leads none (a continuation byte,
 * C0, C1, F5 .. FF). The Unicode Standard's table 3-7 of well-formed
 * sequences. */
static size_t lead(unsigned char b, unsigned char *lo, unsigned char *hi)
{
    *lo = 0x80;
    *hi = 0xbf;
    if (b < 0x80)
        return 1;
    if (b >= 0xc2 && b <= 0xdf)
        return 2;
    if (b >= 0xe0 && b <= 0xef) {
        if (b == 0xe0)
            *lo = 0xa0; /* no overlong form */
        if (b == 0xed)
            *hi = 0x9f; /* no surrogate */
        return 3;
    }
    if (b >= 0xf0 && b <= 0xf4) {
        if (b == 0xf0)
            *lo = 0x90; /* no overlong form */
        if (b == 0xf4)
            *hi = 0x8f; /* nothing past U+10FFFF */
        return 4;
    }
    return 0;
}

/* The sequence at p (n bytes left): *len its bytes and *c its code
 * point when whole (returns 1); *len the bytes of its ill-formed part,
 * one U+FFFD (returns 0); or the bytes left start a character that more
 * bytes may complete (returns -1, *len = n). */
static int next_char(const unsigned char *p, size_t n, size_t *len, long *c)
{
    unsigned char lo, hi;
    const size_t need = lead(p[0], &lo, &hi);
    *len = 1;
    if (need == 0)
        return 0;
    *c = need == 1 ? p[0] : p[0] & (0x7f >> need);
    for (size_t k = 1; k < need; k++) {
        if (k == n) {
            *len = n;
            return -1;
        }
        if (p[k] < lo || p[k] > hi)
            return 0; /* the bytes before p[k] are the maximal subpart */
        *c = (*c << 6) | (p[k] & 0x3f);
        *len = k + 1;
        lo = 0x80;
        hi = 0xbf;
    }
    return 1;
}

/* Room for n more bytes and the NUL after them. */
static int grow(decoded_text *t, size_t n)
{
    if (t->len + n + 1 <= t->cap)
        return 0;
    const size_t cap = 2 * (t->len + n) + 64;
    char *s = realloc(t->s, cap);
    if (s == NULL)
        return -1;
    t->s = s;
    t->cap = cap;
    return 0;
}

/* The n bytes of p decoded onto t; a character they end inside of is
 * held, unless `end`: then it is U+FFFD. Room is made first. */
static int decode(decoded_text *t, const unsigned char *p, size_t n, bool end)
{
    // at most 3 bytes for each byte (U+FFFD for one byte)
    if (grow(t, 3 * n) != 0)
        return -1;
    t->n_held = 0;
    for (size_t at = 0; at < n;) {
        size_t len;
        long c = 0;
        const int whole = next_char(p + at, n - at, &len, &c);
        if (whole < 0 && !end) {
            memcpy(t->held, p + at, len);
            t->n_held = len;
            break;
        }
        const bool shown =
            whole > 0 && (c >= 0x20 || c == '\n' || c == '\t') && c != 0x7f;
        const char *from = shown ? (const char *)p + at : replacement;
        const size_t k = shown ? len : sizeof replacement - 1;
        memcpy(t->s + t->len, from, k);
        t->len += k;
        at += len;
    }
    t->s[t->len] = '\0';
    return 0;
}

int decoded_text_add(decoded_text *t, const void *bytes, size_t n)
{
    unsigned char *all = malloc(t->n_held + n + 1);
    if (all == NULL)
        return -1;
    memcpy(all, t->held, t->n_held);
    if (n > 0)
        memcpy(all + t->n_held, bytes, n);
    const size_t held = t->n_held;
    const int rc = decode(t, all, held + n, false);
    if (rc != 0)
        t->n_held = held;
    free(all);
    return rc;
}

int decoded_text_end(decoded_text *t)
{
    unsigned char held[sizeof t->held];
    const size_t n = t->n_held;
    memcpy(held, t->held, n);
    const int rc = decode(t, held, n, true);
    if (rc != 0)
        t->n_held = n;
    return rc;
}

void decoded_text_free(decoded_text *t)
{
    free(t->s);
    *t = (decoded_text){0};
}

bool utf8_well_formed(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t at = 0; at < n;) {
        size_t len;
        long c;
        if (next_char(p + at, n - at, &len, &c) <= 0)
            return false;
        at += len;
    }
    return true;
}
