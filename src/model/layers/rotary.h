/* rotary.h: rotary position embeddings, as transformers'
 * LlamaRotaryEmbedding and apply_rotary_pos_emb compute them in float32:
 *
 *   inv_freq (hd/2)  = 1.0 / (rope_theta ** (arange(0, hd, 2) / hd))
 *   freqs (T, hd/2)  = position t * inv_freq[j]
 *   emb (T, hd)      = cat(freqs, freqs)
 *   cos, sin (T, hd) = emb.cos(), emb.sin()
 *   rotated (T, hd)  = x * cos + rotate_half(x) * sin,
 *                      rotate_half(x) = cat(-x[hd/2:], x[:hd/2])
 *
 * Each product and sum rounded to float as the tensor operations round
 * them; cos, sin and the power as torch.cos, torch.sin and torch.pow
 * compute them (numerics/rotary_trig.h).
 *
 * Rotating the query at position m and the key at position n turns their
 * dot product into a function of m - n: the teaching point of --explain.
 */
#ifndef MHA_ROTARY_H
#define MHA_ROTARY_H

#include <stddef.h>

#include "base/error.h"
#include "numerics/tensor.h"

/* The cos and sin of T positions, hd wide. */
typedef struct {
    matrix cos, sin; /* (T, hd); owned */
} rotary_table;

/* Makes the table for T positions of a head hd wide (even) with base
 * theta (rope_theta). */
int rotary_table_init(rotary_table *r, size_t T, size_t hd, double theta,
                      mx_error *err);

/* The table of the T positions first .. first + T - 1 (a step of
 * generation after first cached positions: position_ids =
 * cache_position), computed as a tensor of its own T rows, as
 * LlamaRotaryEmbedding computes each step's. */
int rotary_table_init_from(rotary_table *r, size_t first, size_t T, size_t hd,
                           double theta, mx_error *err);
void rotary_table_free(rotary_table *r);

/* out (T, hd) = in (T, hd) rotated by each row's position. */
void rotary_apply(matrix *out, const matrix *in, const rotary_table *r);

#endif
