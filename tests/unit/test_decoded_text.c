/* test_decoded_text.c: a model's bytes decoded as the text shown
 * (model/decoded_text.h): each case's bytes, given whole and one byte at
 * a time (a byte-level tokenizer's tokens), decode to what Python's
 * bytes.decode("utf-8", errors="replace") gives, its controls but a new
 * line and a tab shown as U+FFFD; a character cut between two adds is
 * held, not shown as U+FFFD, until it is whole.
 *
 * The expected texts were printed by Python 3 with
 *   d = b.decode("utf-8", "replace")
 *   "".join(c if (ord(c) >= 0x20 or c in "\n\t") and c != "\x7f"
 *           else "\ufffd" for c in d).encode()
 *
 * Usage: test_decoded_text (the reference directory argument is not used)
 */
#include <stdio.h>
#include <string.h>

#include "model/decoded_text.h"
#include "tap.h"

#define R "\xef\xbf\xbd" /* U+FFFD */

static const struct {
    const char *bytes, *shown;
} cases[] = {
    {"caf\xc3\xa9", "caf\xc3\xa9"},
    /* a truncated sequence then a character: one U+FFFD for the part */
    {"\xe0\xa4\xd1\x93", R "\xd1\x93"},
    {"\xeb\xb2\x18", R R},
    {"\xf0\x9f\x98\x80!", "\xf0\x9f\x98\x80!"},
    /* a surrogate, an overlong form, past U+10FFFF: a U+FFFD a byte */
    {"\xed\xa0\x80", R R R},
    {"\xc0\xaf", R R},
    {"\xf4\x90\x80\x80", R R R R},
    /* a character never completed: one U+FFFD at the end */
    {"\xe2\x82", R},
    {"\xf0\x9f\x98", R},
    {"a\x7f"
     "b\tc\nd\x01",
     "a" R "b\tc\nd" R},
};

/* The text of bytes added in pieces of `step` bytes, then ended. */
static int decode_by(char *out, size_t size, const char *bytes, size_t step)
{
    decoded_text t = {0};
    const size_t n = strlen(bytes);
    int rc = decoded_text_add(&t, "", 0);
    for (size_t at = 0; rc == 0 && at < n; at += step)
        rc = decoded_text_add(&t, bytes + at, n - at < step ? n - at : step);
    if (rc == 0)
        rc = decoded_text_end(&t);
    if (rc == 0)
        snprintf(out, size, "%s", t.s);
    decoded_text_free(&t);
    return rc;
}

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char whole[64], bytewise[64];
        ok(decode_by(whole, sizeof whole, cases[i].bytes, 64) == 0 &&
               strcmp(whole, cases[i].shown) == 0,
           "case %zu: the bytes decode as Python decodes them", i);
        ok(decode_by(bytewise, sizeof bytewise, cases[i].bytes, 1) == 0 &&
               strcmp(bytewise, cases[i].shown) == 0,
           "case %zu: the same, one byte a token", i);
    }

    // "é" as two tokens: nothing shown after the first, "é" after both
    decoded_text t = {0};
    ok(decoded_text_add(&t, "x\xc3", 2) == 0 && strcmp(t.s, "x") == 0 &&
           t.n_held == 1,
       "the first byte of a character is held, not U+FFFD");
    ok(decoded_text_add(&t, "\xa9", 1) == 0 && strcmp(t.s, "x\xc3\xa9") == 0 &&
           t.n_held == 0,
       "the next byte completes it");
    // a held start that the next token breaks: U+FFFD, then the token
    ok(decoded_text_add(&t, "\xe2\x82", 2) == 0 &&
           strcmp(t.s, "x\xc3\xa9") == 0 && t.n_held == 2,
       "two bytes of three held");
    ok(decoded_text_add(&t, "A", 1) == 0 &&
           strcmp(t.s, "x\xc3\xa9" R "A") == 0 && t.n_held == 0,
       "a byte that breaks them: one U+FFFD, then the byte");
    decoded_text_free(&t);

    ok(utf8_well_formed("caf\xc3\xa9", 5) && utf8_well_formed("", 0),
       "well-formed UTF-8");
    ok(!utf8_well_formed("\xd1", 1) && !utf8_well_formed("a\xff", 2) &&
           !utf8_well_formed("\xed\xa0\x80", 3),
       "a cut character, a byte that leads none, a surrogate: not UTF-8");
    return tap_done();
}
