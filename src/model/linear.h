/* linear.h: nn.Linear(in, out) and the three projections (W_query, W_key,
 * W_value) of an attention module or head: their parameters, drawn as
 * PyTorch draws them. model.h lists them by their state_dict() names. */
#ifndef MHA_LINEAR_H
#define MHA_LINEAR_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "numerics/rng.h"
#include "numerics/tensor.h"

/* nn.Linear(in, out): weight (out, in) and bias (1, out), bias.v NULL when
 * the layer has none. */
typedef struct {
    matrix weight;
    matrix bias;
} linear;

/* The three projections of one attention module or head. */
typedef struct {
    linear query, key, value;
} qkv;

/* nn.Linear(in, out, bias): allocate, then draw weight and bias. */
int linear_init(linear *l, size_t in, size_t out, bool bias, torch_rng *g,
                mx_error *err);
void linear_free(linear *l);

/* W_query, W_key, W_value in that order, each d_model -> width. qkv_free
 * accepts a zeroed or partly made struct. */
int qkv_init(qkv *p, size_t d_model, size_t width, bool bias, torch_rng *g,
             mx_error *err);
void qkv_free(qkv *p);

#endif
