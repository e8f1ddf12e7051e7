/* test_keys.c: key_decode on the bytes terminals and presentation remotes
 * send.
 *
 * Usage: test_keys (the reference directory argument is not used)
 */
#include <string.h>

#include "io/keys.h"
#include "tap.h"

/* Decodes the whole of s (complete: no more bytes coming) into keys. */
static size_t decode_all(enum key *keys, unsigned char *chars, size_t max,
                         const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t left = strlen(s), n = 0;
    while (left > 0 && n < max) {
        key_press k;
        const size_t took = key_decode(&k, p, left, true);
        if (took == 0)
            break;
        keys[n] = k.key;
        chars[n++] = k.ch;
        p += took;
        left -= took;
    }
    return n;
}

/* s decodes to exactly the one key `want`. */
static int one(const char *s, enum key want)
{
    enum key keys[8];
    unsigned char chars[8];
    return decode_all(keys, chars, 8, s) == 1 && keys[0] == want;
}

int main(void)
{
    ok(one("\x1b[A", KEY_UP) && one("\x1b[B", KEY_DOWN) &&
           one("\x1b[C", KEY_RIGHT) && one("\x1b[D", KEY_LEFT),
       "ESC [ A/B/C/D: the arrows");
    ok(one("\x1bOA", KEY_UP) && one("\x1bOB", KEY_DOWN) &&
           one("\x1bOH", KEY_HOME) && one("\x1bOF", KEY_END),
       "ESC O A/B/H/F: the arrows, Home and End in cursor-key mode");
    ok(one("\x1b[5~", KEY_PAGE_UP) && one("\x1b[6~", KEY_PAGE_DOWN),
       "ESC [ 5 ~ and ESC [ 6 ~: PageUp and PageDown");
    ok(one("\x1b[1~", KEY_HOME) && one("\x1b[7~", KEY_HOME) &&
           one("\x1b[4~", KEY_END) && one("\x1b[8~", KEY_END) &&
           one("\x1b[H", KEY_HOME) && one("\x1b[F", KEY_END),
       "Home and End, as the terminals send them");
    ok(one("\x1b[1;2B", KEY_DOWN) && one("\x1b[5;5~", KEY_PAGE_UP),
       "modifiers are ignored: Shift+Down is Down, Ctrl+PageUp PageUp");
    ok(one("\x1b[15~", KEY_OTHER) && one("\x1b[M", KEY_OTHER) &&
           one("\x1bx", KEY_OTHER),
       "F5, another final byte and Alt+x: one key each, not letters");
    ok(one("\x1b", KEY_ESCAPE), "ESC alone, nothing after it: Escape");

    enum key keys[8];
    unsigned char chars[8];
    size_t n = decode_all(keys, chars, 8, "\x1b[Bb\x1b[6~ q");
    ok(n == 5 && keys[0] == KEY_DOWN && keys[1] == KEY_CHAR &&
           chars[1] == 'b' && keys[2] == KEY_PAGE_DOWN && keys[3] == KEY_CHAR &&
           chars[3] == ' ' && keys[4] == KEY_CHAR && chars[4] == 'q',
       "Down, b, PageDown, space, q typed quickly: five keys, the Down "
       "arrow never a 'b'");

    key_press k;
    const unsigned char esc[] = "\x1b", csi[] = "\x1b[", ss3[] = "\x1bO",
                        num[] = "\x1b[6";
    ok(key_decode(&k, esc, 1, false) == 0 &&
           key_decode(&k, csi, 2, false) == 0 &&
           key_decode(&k, ss3, 2, false) == 0 &&
           key_decode(&k, num, 3, false) == 0,
       "the start of a sequence waits for the rest");
    ok(key_decode(&k, csi, 2, true) == 2 && k.key == KEY_OTHER,
       "... and is taken whole when nothing more comes");
    const unsigned char bad[] = "\x1b[\x01";
    ok(key_decode(&k, bad, 3, false) == 2 && k.key == KEY_OTHER,
       "a control byte ends a broken sequence; the byte stays a key");
    const unsigned char cr[] = "\r";
    ok(key_decode(&k, cr, 1, false) == 1 && k.key == KEY_CHAR && k.ch == '\r',
       "a plain byte is a key at once");
    return tap_done();
}
