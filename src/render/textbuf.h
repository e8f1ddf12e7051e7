/* textbuf.h: a growing byte buffer for assembling CSV rows in memory, so
 * that a row is one fwrite instead of a printf per field. */
#ifndef MHA_TEXTBUF_H
#define MHA_TEXTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    char *s; /* len bytes of text, not '\0'-terminated; owned */
    size_t len;
    size_t cap;
} textbuf;

/* Each adder returns 0, or -1 when memory ran out (buf is then unchanged
 * and still valid for textbuf_free). */
int textbuf_add(textbuf *buf, const char *s, size_t n);
int textbuf_add_char(textbuf *buf, char c);
/* n in decimal */
int textbuf_add_size(textbuf *buf, size_t n);
/* v as float_text writes it */
int textbuf_add_float(textbuf *buf, float v, bool decimal_comma);
/* s as one CSV text field: quoted (by libcsv) when it holds the
 * delimiter, a quote or a line break, and an apostrophe first when a
 * spreadsheet would read it as a formula (base/csv_guard.h) */
int textbuf_add_csv_field(textbuf *buf, const char *s, char delimiter);

/* Makes room for `more` (> 0) bytes after the text and returns where they
 * start, or NULL when memory ran out. The caller writes there, then adds
 * what it wrote to buf->len. */
char *textbuf_reserve(textbuf *buf, size_t more);

/* Writes the text to out and empties buf; returns 0, or -1 (errno set)
 * when out reported an error. */
int textbuf_flush(textbuf *buf, FILE *out);

void textbuf_free(textbuf *buf);

#endif
