/* keys.h: the keys a terminal sends, decoded from its bytes, for --step.
 *
 * A key is one byte ('q', ' ', Enter) or an escape sequence: the arrows
 * and Home/End as ESC [ A or ESC O A (the cursor-key mode some terminals
 * and presentation remotes use), PageUp and PageDown as ESC [ 5 ~ and
 * ESC [ 6 ~. A sequence is taken whole, so that the bytes of the Down
 * arrow are never read as the letters of other keys. */
#ifndef MHA_KEYS_H
#define MHA_KEYS_H

#include <stdbool.h>
#include <stddef.h>

enum key {
    KEY_CHAR,      /* one byte, in key_press.ch */
    KEY_UP,        /* ESC [ A, ESC O A */
    KEY_DOWN,      /* ESC [ B, ESC O B */
    KEY_RIGHT,     /* ESC [ C, ESC O C */
    KEY_LEFT,      /* ESC [ D, ESC O D */
    KEY_HOME,      /* ESC [ H, ESC O H, ESC [ 1 ~, ESC [ 7 ~ */
    KEY_END,       /* ESC [ F, ESC O F, ESC [ 4 ~, ESC [ 8 ~ */
    KEY_PAGE_UP,   /* ESC [ 5 ~ */
    KEY_PAGE_DOWN, /* ESC [ 6 ~ */
    KEY_ESCAPE,    /* ESC alone */
    KEY_OTHER,     /* another sequence (F1, Alt+key, ...), taken whole */
};

typedef struct {
    enum key key;
    unsigned char ch; /* the byte of a KEY_CHAR */
} key_press;

/* Decodes the first key of the n bytes at s into *out and returns how
 * many bytes it takes; 0 when s (n > 0) is only the start of an escape
 * sequence whose rest may still come. With complete true no more bytes
 * are coming: an unfinished sequence is then taken as it is (ESC alone
 * is KEY_ESCAPE). Modifiers (ESC [ 1 ; 2 B, Shift+Down) are ignored. */
size_t key_decode(key_press *out, const unsigned char *s, size_t n,
                  bool complete);

#endif
