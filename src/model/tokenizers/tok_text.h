/* tok_text.h: what the steps of a tokenizer.json tokenizer share: a
 * growing byte string, a list of strings (the pieces a text is cut into),
 * a string -> id map, UTF-8 stepping and JavaScript's \s.
 *
 * Strings are bytes with a length (a token may hold a NUL byte); each is
 * also NUL-terminated for printing.
 */
#ifndef MHA_TOK_TEXT_H
#define MHA_TOK_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/json.h"

/* A growing string: s[0..n), NUL-terminated; owned. */
typedef struct {
    char *s;
    size_t n, cap;
} tok_buf;

int tok_buf_add(tok_buf *b, const char *s, size_t n); /* -1: no memory */
int tok_buf_add_cp(tok_buf *b, int32_t c);            /* one code point */
void tok_buf_free(tok_buf *b);

/* A list of strings, each owned. */
typedef struct {
    char **s;
    size_t *len;
    size_t n, cap;
} tok_list;

int tok_list_add(tok_list *l, const char *s, size_t n);
void tok_list_free(tok_list *l);

/* A string -> int32 map (open addressing); keys are copied. */
typedef struct {
    char **keys; /* cap slots, NULL when free */
    size_t *key_len;
    int32_t *values;
    size_t cap, n;
} tok_map;

int tok_map_init(tok_map *m, size_t n); /* room for n keys */
void tok_map_free(tok_map *m);
/* Adds s -> v; 1 if s was there (its value kept), -1 no memory or full. */
int tok_map_put(tok_map *m, const char *s, size_t n, int32_t v);
/* Adds s -> v, or sets v if s is there; -1 no memory or full. */
int tok_map_set(tok_map *m, const char *s, size_t n, int32_t v);
bool tok_map_get(const tok_map *m, const char *s, size_t n, int32_t *v);

/* The code point at s[0..n) into *c; its length in bytes, 0 at the end or
 * on a byte that does not start a valid UTF-8 character. */
size_t tok_utf8_next(const char *s, size_t n, int32_t *c);

/* The boolean member key of object o; dflt if it is absent or not a
 * boolean (null). */
bool tok_json_flag(const json_doc *doc, const json_node *o, const char *key,
                   bool dflt);

/* JavaScript's \s (and the set String.prototype.trim removes). */
bool tok_is_js_space(int32_t c);

/* bytes_to_unicode: byte b's printable character, UTF-8, into enc[b]
 * (NUL-terminated); GPT-2's byte-level pieces (tok_pretok.c,
 * checkpoint_tokenizer.c). */
void tok_byte_chars(char enc[256][3]);

#endif
