/* json.h: a small JSON reader for the files of a checkpoint folder: the
 * safetensors header, config.json and vocab.json (io/safetensors.c,
 * model/gpt2/gpt2.c, model/tokenizers/bpe.c).
 *
 * The whole text, which must be UTF-8, is read into one document: an
 * array of nodes, and one buffer of strings, decoded (escapes and \uXXXX
 * pairs as UTF-8) and each NUL-terminated. Nodes are known by their
 * index; an object's or an array's members follow one another through
 * `next`. Nesting deeper than JSON_MAX_DEPTH is refused, so no input
 * exhausts the stack.
 */
#ifndef MHA_JSON_H
#define MHA_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define JSON_MAX_DEPTH 64
#define JSON_NONE ((size_t)-1)

enum json_type {
    JSON_NULL,
    JSON_BOOL,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
};

typedef struct {
    enum json_type type;
    double number;  /* JSON_NUMBER; JSON_BOOL: 0 or 1 */
    size_t str;     /* JSON_STRING: offset of its text in the strings;
                       JSON_NUMBER: of the number as written */
    size_t len;     /* JSON_STRING, JSON_NUMBER: bytes of that text;
                       ARRAY, OBJECT: members */
    size_t key;     /* member of an object: offset of its key, or
                        JSON_NONE */
    size_t key_len; /* bytes of the key */
    size_t first;   /* ARRAY, OBJECT: the first member, or JSON_NONE */
    size_t next;    /* the next member of the parent, or JSON_NONE */
} json_node;

typedef struct {
    json_node *nodes; /* nodes[0] is the root; owned */
    size_t n, cap;
    char *strings; /* decoded strings and keys, each NUL-terminated; owned */
    size_t strings_len, strings_cap;
} json_doc;

/* Parses text (len bytes, not NUL-terminated) into doc. On failure the
 * error names `what` (a file name) and the byte where the text stops
 * being JSON; doc is left empty. */
int json_parse(json_doc *doc, const char *text, size_t len, const char *what,
               mx_error *err);
void json_free(json_doc *doc);

static inline const json_node *json_root(const json_doc *doc)
{
    return &doc->nodes[0];
}

/* The member of object o named key, or NULL (o may be any node). */
const json_node *json_get(const json_doc *doc, const json_node *o,
                          const char *key);

/* The first member of an array or object, and the one after m: NULL at
 * the end. */
const json_node *json_first(const json_doc *doc, const json_node *o);
const json_node *json_next(const json_doc *doc, const json_node *m);

/* A string node's text, or a member's key (NUL-terminated). */
static inline const char *json_str(const json_doc *doc, const json_node *s)
{
    return doc->strings + s->str;
}

static inline const char *json_key(const json_doc *doc, const json_node *m)
{
    return doc->strings + m->key;
}

/* Whether two members of object o have one key (JSON allows it; Python
 * keeps the last, the safetensors library refuses the file): 1 with *key
 * that key, 0 when every key differs, -1 out of memory. */
int json_repeated_key(const char **key, const json_doc *doc,
                      const json_node *o);

/* Whether node is a number that is a whole number in [0, max], and
 * within size_t (max may be past SIZE_MAX on a 32-bit target); *out gets
 * it. */
bool json_size(const json_node *node, uint64_t max, size_t *out);

/* Whether node is a number written as digits alone (no sign, fraction or
 * exponent) whose value is at most UINT64_MAX; *out gets it exactly,
 * read from the text (a double holds whole numbers exactly only up to
 * 2^53). */
bool json_u64(const json_doc *doc, const json_node *node, uint64_t *out);

#endif
