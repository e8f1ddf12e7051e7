/* kv_cache.h: the keys and values of every layer kept between the steps
 * of generation (Hugging Face's past_key_values, layer_past).
 *
 * A step feeds new tokens at positions len, len + 1, ...: each layer's
 * attention appends their keys and values here, then every head's query
 * rows are scored against all the keys kept so far. Generation's first
 * step feeds the whole prompt (T rows, causally masked); each later step
 * feeds one token, whose one query row sees every cached key, so a step
 * computes one row of each table, not T.
 *
 * Layer L's keys are k (cap, width) at L * cap * width, rows 0 .. len - 1
 * filled; key/value head j's are the columns [j * hd, (j + 1) * hd), as
 * the model's projection lays them out (GPT-2's c_attn: width = D; a
 * Llama-style k_proj: width = KV hd). Values likewise.
 * One owner: the cache owns both arrays.
 */
#ifndef MHA_KV_CACHE_H
#define MHA_KV_CACHE_H

#include <stddef.h>

#include "base/error.h"
#include "numerics/tensor.h"

typedef struct {
    size_t n_layer; /* L */
    size_t cap;     /* the most positions it holds (n_positions) */
    size_t width;   /* the columns of a position's keys (all heads) */
    size_t len;     /* positions filled */
    float *k, *v;   /* (L, cap, width) each; owned */
} kv_cache;

/* An empty cache of n_layer layers, cap positions of width columns. */
int kv_cache_init(kv_cache *c, size_t n_layer, size_t cap, size_t width,
                  mx_error *err);
void kv_cache_free(kv_cache *c);

/* Layer L's keys (or values) of positions 0 .. rows - 1, a view into the
 * cache (rows, width): not to be freed. */
matrix kv_cache_keys(const kv_cache *c, size_t layer, size_t rows);
matrix kv_cache_values(const kv_cache *c, size_t layer, size_t rows);

/* Copies the keys, columns [k_first, k_first + width) of each row of k
 * (T, ...), and the values, columns [v_first, v_first + width) of v (T,
 * ...), into layer L's positions len .. len + T - 1 (len itself moves on
 * only with kv_cache_advance, once every layer has its rows). k and v are
 * one matrix for a fused projection (GPT-2's c_attn output), or two (a
 * Llama-style k_proj's keys, already rotated, and v_proj's values). */
void kv_cache_put(kv_cache *c, size_t layer, const matrix *k, size_t k_first,
                  const matrix *v, size_t v_first);

/* The T positions every layer has put are kept: len += T. */
void kv_cache_advance(kv_cache *c, size_t T);

#endif
