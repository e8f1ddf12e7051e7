/* keys.c: a terminal's bytes decoded into keys (--step). */
#include "io/keys.h"

#define ESC 0x1b

/* The key of a final byte after ESC [ or ESC O, with the first number of
 * its parameters (0 without one). */
static enum key key_of_final(unsigned char final, unsigned number)
{
    switch (final) {
    case 'A':
        return KEY_UP;
    case 'B':
        return KEY_DOWN;
    case 'C':
        return KEY_RIGHT;
    case 'D':
        return KEY_LEFT;
    case 'H':
        return KEY_HOME;
    case 'F':
        return KEY_END;
    case '~':
        switch (number) {
        case 1:
        case 7:
            return KEY_HOME;
        case 4:
        case 8:
            return KEY_END;
        case 5:
            return KEY_PAGE_UP;
        case 6:
            return KEY_PAGE_DOWN;
        default:
            return KEY_OTHER;
        }
    default:
        return KEY_OTHER;
    }
}

size_t key_decode(key_press *out, const unsigned char *s, size_t n,
                  bool complete)
{
    out->key = KEY_CHAR;
    out->ch = n > 0 ? s[0] : 0;
    if (n == 0)
        return 0;
    if (s[0] != ESC)
        return 1;
    if (n == 1) {
        out->key = KEY_ESCAPE;
        return complete ? 1 : 0;
    }
    if (s[1] == 'O') { /* SS3: one final byte */
        if (n == 2) {
            out->key = KEY_OTHER;
            return complete ? 2 : 0;
        }
        out->key = key_of_final(s[2], 0);
        return 3;
    }
    if (s[1] != '[') { /* Alt+key, or ESC typed before a key */
        out->key = KEY_OTHER;
        return 2;
    }
    /* CSI: parameter bytes 0x30-0x3f, intermediates 0x20-0x2f, then the
     * final byte 0x40-0x7e */
    unsigned number = 0;
    bool first = true;
    for (size_t i = 2; i < n; i++) {
        const unsigned char c = s[i];
        if (c >= '0' && c <= '9' && first) {
            if (number < 1000)
                number = number * 10 + (unsigned)(c - '0');
        } else if (c == ';') {
            first = false;
        } else if (c >= 0x40 && c <= 0x7e) {
            out->key = key_of_final(c, number);
            return i + 1;
        } else if (c < 0x20 || c > 0x3f) {
            out->key = KEY_OTHER; /* not a sequence after all */
            return i;
        }
    }
    out->key = KEY_OTHER;
    return complete ? n : 0;
}
