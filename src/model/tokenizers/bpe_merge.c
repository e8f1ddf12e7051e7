/* bpe_merge.c: byte-pair encoding's merges (bpe_merge.h).
 *
 * Scanning every pair for the lowest rank after each merge is quadratic
 * in a long word, so the pairs wait in a heap ordered by (rank, position):
 * the heap's top is the next pair. A pair that a merge has since broken
 * is recognised by its symbols' lengths and skipped. */
#include "model/tokenizers/bpe_merge.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* A pair waiting to merge: the left symbol starts at byte pos, the two
 * lengths say which symbols they were when it was pushed. */
typedef struct {
    int32_t rank;
    size_t pos, left, right;
} pair;

typedef struct {
    pair *e; /* n of cap; owned */
    size_t n, cap;
} pair_heap;

static bool before(const pair *a, const pair *b)
{
    return a->rank != b->rank ? a->rank < b->rank : a->pos < b->pos;
}

static int heap_push(pair_heap *h, pair x)
{
    if (h->n == h->cap) {
        const size_t nc = h->cap ? 2 * h->cap : 64;
        pair *ne = realloc(h->e, nc * sizeof *ne);
        if (ne == NULL)
            return -1;
        h->e = ne;
        h->cap = nc;
    }
    size_t i = h->n++;
    while (i > 0 && before(&x, &h->e[(i - 1) / 2])) {
        h->e[i] = h->e[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->e[i] = x;
    return 0;
}

static pair heap_pop(pair_heap *h)
{
    const pair top = h->e[0], last = h->e[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && before(&h->e[c + 1], &h->e[c]))
            c++;
        if (!before(&h->e[c], &last))
            break;
        h->e[i] = h->e[c];
        i = c;
    }
    if (h->n > 0)
        h->e[i] = last;
    return top;
}

int bpe_word_init(bpe_word *w, const char *text, size_t tl)
{
    *w = (bpe_word){.text = text,
                    .tl = tl,
                    .len = calloc(tl + 1, sizeof(size_t)),
                    .prev = calloc(tl + 1, sizeof(size_t)),
                    .last = SIZE_MAX};
    return w->len != NULL && w->prev != NULL ? 0 : -1;
}

void bpe_word_add(bpe_word *w, size_t pos, size_t len)
{
    w->len[pos] = len;
    w->prev[pos] = w->last;
    w->last = pos;
}

void bpe_word_free(bpe_word *w)
{
    free(w->len);
    free(w->prev);
    tok_buf_free(&w->key);
    *w = (bpe_word){0};
}

/* Pushes the pair starting at symbol p, if there is one and it has a
 * rank. */
static int push_pair(pair_heap *h, bpe_word *w, const tok_map *ranks, char sep,
                     size_t p)
{
    if (p == SIZE_MAX || p + w->len[p] >= w->tl)
        return 0;
    const size_t q = p + w->len[p];
    w->key.n = 0;
    if (tok_buf_add(&w->key, w->text + p, w->len[p]) ||
        tok_buf_add(&w->key, &sep, 1) ||
        tok_buf_add(&w->key, w->text + q, w->len[q]))
        return -1;
    int32_t r;
    if (!tok_map_get(ranks, w->key.s, w->key.n, &r))
        return 0;
    return heap_push(h, (pair){r, p, w->len[p], w->len[q]});
}

/* Is the pair still as it was pushed? */
static bool holds(const bpe_word *w, const pair *e)
{
    const size_t q = e->pos + e->left;
    return w->len[e->pos] == e->left && q < w->tl && w->len[q] == e->right;
}

/* Merges the pair e (which holds) and pushes the two pairs it makes. */
static int merge_pair(pair_heap *h, bpe_word *w, const tok_map *ranks, char sep,
                      const pair *e)
{
    const size_t q = e->pos + e->left;
    w->len[e->pos] += w->len[q];
    w->len[q] = 0;
    const size_t next = e->pos + w->len[e->pos];
    if (next < w->tl)
        w->prev[next] = e->pos;
    if (push_pair(h, w, ranks, sep, w->prev[e->pos]) != 0)
        return -1;
    return push_pair(h, w, ranks, sep, e->pos);
}

int bpe_word_merge(bpe_word *w, const tok_map *ranks, char sep,
                   bpe_merge_order order)
{
    pair_heap h = {0}, round = {0};
    int rc = 0;
    for (size_t p = 0; p < w->tl && rc == 0; p += w->len[p])
        rc = push_pair(&h, w, ranks, sep, p);
    while (rc == 0 && h.n > 0) {
        if (order == BPE_MERGE_ONE_AT_A_TIME) {
            const pair e = heap_pop(&h);
            if (holds(w, &e))
                rc = merge_pair(&h, w, ranks, sep, &e);
            continue;
        }
        // the round's occurrences (one rank), left to right; the pairs
        // that these merges make have other ranks and wait for later
        // rounds
        const int32_t rank = h.e[0].rank;
        round.n = 0;
        while (rc == 0 && h.n > 0 && h.e[0].rank == rank) {
            const pair e = heap_pop(&h);
            if (holds(w, &e))
                rc = heap_push(&round, e);
        }
        // round is a heap too: popped in position order
        while (rc == 0 && round.n > 0) {
            const pair e = heap_pop(&round);
            if (holds(w, &e)) // else its left symbol merged just before
                rc = merge_pair(&h, w, ranks, sep, &e);
        }
    }
    free(h.e);
    free(round.e);
    return rc;
}
