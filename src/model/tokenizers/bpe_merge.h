/* bpe_merge.h: byte-pair encoding's merges over one word's symbols, by the
 * ranks of adjacent pairs. GPT-2's tokenizer (model/tokenizers/bpe.c, after
 * openai's encoder.py) and tokenizer.json's BPE model (tok_model.c, after
 * Hugging Face's tokenizers) both merge here; they differ only in the
 * order of merges (bpe_merge_order) and in how a pair is written as a
 * key of their rank map.
 *
 *   bpe_word w;
 *   bpe_word_init(&w, text, tl)           the word's bytes, no symbols yet
 *   bpe_word_add(&w, pos, len) ...        its first symbols, in order
 *   bpe_word_merge(&w, ranks, sep, order) merges by the ranks
 *   for (p = 0; p < w.tl; p += w.len[p])  the merged symbols
 *   bpe_word_free(&w)
 */
#ifndef MHA_BPE_MERGE_H
#define MHA_BPE_MERGE_H

#include <stddef.h>

#include "model/tokenizers/tok_text.h"

/* Which pair merges next. */
typedef enum {
    /* encoder.py: the pair of lowest rank, then every occurrence of it
     * left to right, before any pair those merges made */
    BPE_MERGE_BY_ROUND,
    /* tokenizers: one pair at a time, the lowest rank first and the
     * leftmost of equal ranks, pairs that merges make included */
    BPE_MERGE_ONE_AT_A_TIME
} bpe_merge_order;

/* A word's symbols: text[0..tl); a symbol starts at byte p with
 * len[p] > 0 bytes, the next one at p + len[p]; prev[p] is the one
 * before (SIZE_MAX for the first). A merge grows the left symbol and sets
 * the right one's len to 0. */
typedef struct {
    const char *text; /* not owned */
    size_t tl;
    size_t *len, *prev; /* tl + 1 each; owned */
    size_t last;        /* the last symbol added, or SIZE_MAX */
    tok_buf key;        /* a pair's key while it is looked up; owned */
} bpe_word;

/* A word of tl bytes with no symbols yet; -1: no memory (w can still be
 * freed). */
int bpe_word_init(bpe_word *w, const char *text, size_t tl);

/* The next symbol: bytes [pos, pos + len), right after the last one. */
void bpe_word_add(bpe_word *w, size_t pos, size_t len);

/* Merges the symbols. A pair's rank is ranks' value for the key "left"
 * sep "right"; a pair with no key does not merge. -1: no memory. */
int bpe_word_merge(bpe_word *w, const tok_map *ranks, char sep,
                   bpe_merge_order order);

void bpe_word_free(bpe_word *w);

#endif
