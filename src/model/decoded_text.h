/* decoded_text.h: the bytes a model writes, token by token, as the text
 * shown, which --stop reads too (model/generate.h).
 *
 * A byte-level tokenizer's token may hold part of a character (GPT-2's
 * "é" can be two tokens, <c3> then <a9>), so the text is the bytes of
 * all the tokens joined, then decoded as UTF-8 the way Python's
 * bytes.decode("utf-8", errors="replace") does (and so the tokenizers'
 * decode): each ill-formed part, a maximal subpart of a sequence that
 * cannot be completed, becomes one U+FFFD. So that the terminal shows
 * it as it is, a control character other than a new line and a tab
 * becomes U+FFFD too.
 *
 * While the model writes, the bytes of a character not yet whole (the
 * last token ended inside it) are held until later bytes complete it or
 * break it; decoded_text_end decodes what is still held (U+FFFD), as a
 * decode of the whole sequence does at its end:
 *
 *   decoded_text t = {0};
 *   decoded_text_add(&t, "\xc3", 1);   t.s "",   held: c3
 *   decoded_text_add(&t, "\xa9", 1);   t.s "é"
 *   decoded_text_add(&t, "\xd1", 1);   t.s "é",  held: d1
 *   decoded_text_end(&t);              t.s "é\xef\xbf\xbd" (U+FFFD)
 *   decoded_text_free(&t);
 */
#ifndef MHA_DECODED_TEXT_H
#define MHA_DECODED_TEXT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *s; /* the text decoded so far (len bytes, NUL-terminated once
                anything is added); owned */
    size_t len, cap;
    unsigned char held[4]; /* the start of a character not yet whole */
    size_t n_held;
} decoded_text;

/* The n bytes decoded after those before; 0, or -1 when memory ran out
 * (t keeps the text it had). */
int decoded_text_add(decoded_text *t, const void *bytes, size_t n);

/* The bytes held, a character never completed, decoded (U+FFFD); 0 or
 * -1 as decoded_text_add. */
int decoded_text_end(decoded_text *t);

void decoded_text_free(decoded_text *t);

/* Whether the n bytes of s are well-formed UTF-8. */
bool utf8_well_formed(const char *s, size_t n);

#endif
