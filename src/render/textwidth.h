/* textwidth.h: how many terminal cells a label takes, and labels made safe
 * for a terminal. Widths come from utf8proc's Unicode tables, never from
 * the locale, so output is the same everywhere. */
#ifndef MHA_TEXTWIDTH_H
#define MHA_TEXTWIDTH_H

#include <stddef.h>
#include <stdio.h>

/* Cells that s (UTF-8) takes on a terminal: each grapheme cluster counts
 * as its widest code point, so "é" written e + U+0301 is 1, "牛" is 2,
 * and an emoji sequence joined by U+200D is 2. Escape sequences ESC [
 * ... (the colours of --color) take no cells. */
size_t display_width(const char *s);

/* A new string in which control characters (C0, DEL, C1) and invalid
 * bytes are written as \xHH and bidirectional controls (U+200E, U+200F,
 * U+061C, U+202A-U+202E, U+2066-U+2069) as \uHHHH, so a token can never
 * drive the terminal or reorder what is shown around it. A string made
 * only of format characters (category Cf: zero-width space, joiners,
 * U+FEFF, soft hyphen, ...), which would draw nothing, is written as
 * \uHHHH too; inside a visible word they stay (a joiner is part of an
 * emoji, a soft hyphen of a word).
 * Returns NULL when out of memory; the caller frees it. */
char *display_escape(const char *s);

/* A new string: s when it takes at most `cells` cells, else its
 * beginning, "..." and its end, cut between grapheme clusters, within
 * `cells` cells (at least 4): "clean: When Mary...gave a drink to". NULL
 * when out of memory; the caller frees it. */
char *display_cut(const char *s, size_t cells);

/* Writes the line s (without its '\n') and a '\n', broken at spaces so
 * that no line is wider than width cells (0: no limit); the lines after
 * the first start with `indent` spaces. A word wider than a line is
 * written whole on a line of its own. */
void write_wrapped(FILE *out, const char *s, size_t width, size_t indent);

/* write_wrapped for each line of text (lines end with '\n'); returns 0,
 * or -1 when memory ran out (nothing more is written then). */
int write_wrapped_lines(FILE *out, const char *text, size_t width,
                        size_t indent);

#endif
