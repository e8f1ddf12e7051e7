/* text.h: UTF-8 text as every stage cuts and splits it: Python's
 * whitespace, and cuts between grapheme clusters for messages and
 * headings. */
#ifndef MHA_BASE_TEXT_H
#define MHA_BASE_TEXT_H

#include <stddef.h>

/* Nonzero when code point c separates words for Python's str.split(). */
int is_split_space(int c);

/* The length in bytes of the longest beginning of s (UTF-8) that is at
 * most max bytes and ends between two grapheme clusters (so never inside
 * a character, nor between a letter and its accent): where text is cut
 * to fit a message or a heading. An invalid byte is a cluster of its
 * own. */
size_t text_prefix(const char *s, size_t max);

/* Copies into dst (size bytes, size > 0) the beginning of s that fits,
 * cut by text_prefix; returns dst. */
char *text_cut(char *dst, size_t size, const char *s);

/* a then b into dst (size bytes, size > 0), as a checkpoint's prefix and
 * a parameter's name make its full name; dst is empty when they do not
 * fit (a name that long is no parameter of any file). */
void text_join(char *dst, size_t size, const char *a, const char *b);

#endif
