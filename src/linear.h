/* linear.h: nn.Linear(in, out) and the three projections (W_query, W_key,
 * W_value) of an attention module or head: their parameters, drawn as
 * PyTorch draws them, and their recording in the trace. */
#ifndef MHA_LINEAR_H
#define MHA_LINEAR_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "rng.h"
#include "tensor.h"
#include "trace.h"

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

/* Records `name`.weight (out x in) and, if the layer has one, `name`.bias
 * (1 x out) under variant. */
int record_linear(trace *tr, const char *variant, const char *name,
                  const linear *l, mx_error *err);

/* W_query, W_key, W_value in that order, each d_model -> width. qkv_free
 * accepts a zeroed or partly made struct. */
int qkv_init(qkv *p, size_t d_model, size_t width, bool bias, torch_rng *g,
             mx_error *err);
void qkv_free(qkv *p);

/* Records prefix + "W_query" ... prefix + "W_value" with record_linear;
 * prefix is "" for single and fused, "heads.3." for a wrapper head. */
int record_qkv(trace *tr, const char *variant, const char *prefix, const qkv *p,
               mx_error *err);

#endif
