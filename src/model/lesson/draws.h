/* draws.h: --draw ORDER, the order a notebook draws in from one
 * torch.manual_seed, as it builds one thing after another:
 *
 *   torch.manual_seed(42)
 *   mha = MultiHeadAttention(512, 8)   # fused: its layers' draws
 *   x = torch.randn(2, 10, 512)        # input: its normal_ draws
 *   output, weights = mha(x, x, x)     # fused's forward: dropout masks
 *
 * is --draw fused,input. Each item of the order draws in turn: the input
 * its values (rng_normal_fill), a module its parameters (its row's init).
 * A module's forward pass draws its dropout masks as soon as both it and
 * the input exist: right after its construction when the input came
 * before it, right after the input's draws (in the order of the modules)
 * when it came after. The plan records the generator as each module's
 * construction and each forward pass start; pipeline.c then builds and
 * runs every module from those states.
 */
#ifndef MHA_DRAWS_H
#define MHA_DRAWS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "model/catalogue.h"
#include "numerics/rng.h"

/* What a run draws, in a notebook's order. */
typedef struct {
    const variant_id *order; /* n items: VARIANT_INPUT and modules, each at
                                most once; without VARIANT_INPUT the input
                                is drawn first */
    size_t n;
    float *input;   /* the input's input_n normal_(0, 1) draws go here */
    size_t input_n; /* 0: the input draws nothing (--embeddings) */
    /* Builds module v as its constructor does from g, advancing g, then
     * frees it (ctx: the caller's). */
    int (*build)(variant_id v, torch_rng *g, const void *ctx, mx_error *err);
    const void *ctx;
    /* The Bernoulli draws of each module's forward pass (its dropout
     * masks, the whole batch), by variant_id. */
    size_t forward_draws[VARIANT_ID_COUNT];
} draw_order;

/* The generator at each moment of the order, by variant_id (the modules
 * of the order only). */
typedef struct {
    torch_rng build[VARIANT_ID_COUNT];   /* as its constructor starts */
    torch_rng forward[VARIANT_ID_COUNT]; /* as its forward pass starts */
} draw_plan;

/* Walks o from g (as torch.manual_seed left it) into *plan and fills
 * o->input; g ends after the last draw. */
int draws_plan(draw_plan *plan, const draw_order *o, torch_rng *g,
               mx_error *err);

#endif
