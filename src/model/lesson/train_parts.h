/* train_parts.h: the pieces of the training's passes (train_parts.c) that a
 * module's pass reuses (its variant's file, variants/NAME.c, and
 * block_train.c): working matrices, a head's forward and backward, the
 * top layer (lm_head and the loss) and the fused attention's forward and
 * backward.
 *
 * Shapes: T tokens, D = d_model, O = d_out, H heads, hd = O / H.
 */
#ifndef MHA_TRAIN_PARTS_H
#define MHA_TRAIN_PARTS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "model/lesson/attention.h"
#include "model/catalogue.h"
#include "model/hooks.h"
#include "model/layers/dense.h"
#include "numerics/tensor.h"

/* Where --grad's gradients of the intermediate tables go: fn(ctx, id,
 * layer, head, g) with g = d loss / d table id of head `head` (NO_HEAD
 * for a module's table) in block `layer` of a stack (0 elsewhere), as
 * the backward pass makes them. */
typedef struct {
    int (*fn)(void *ctx, table_id id, int layer, int head, const matrix *g);
    void *ctx;
} train_shown;

/* The matrices one pass allocates, freed together. */
typedef struct {
    matrix **m;
    size_t n, cap;
} scratch;

/* A zeroed m (rows, cols), to be freed with s. */
int scratch_alloc(scratch *s, matrix *m, size_t rows, size_t cols,
                  mx_error *err);
void scratch_free(scratch *s);

/* What the module hands its output to: logits = out @ lm_head^T, the
 * loss, and (when training) dout and lm_head's gradient; where the
 * intermediates' gradients go (--grad); and the order in which the
 * module's class computes its projections, which decides how x's
 * gradient adds up (train.h). */
typedef struct {
    const matrix *lm_head; /* (V, W) */
    matrix *dlm_head;      /* (V, W), or NULL: no backward pass */
    matrix *logits;        /* (T, V), kept by the caller or NULL */
    const size_t *ids;     /* the sentence */
    float loss;
    const train_shown *shown; /* or NULL */
    int shown_rc;             /* the first failure of shown->fn */
    int layer;                /* the block whose gradients go to shown (a
                                 stack's, stack.h; 0 elsewhere) */
    enum qkv_order qkv_order;
    /* the hook points logits (T, V) and loss (1, 1) of the variant's
       place, through hooks (may be NULL) */
    const forward_hooks *hooks;
    variant_id variant;
} top_layer;

/* Hands d loss / d table id (of head `head`, or NO_HEAD, in block
 * t->layer) to t->shown. */
void show_grad(top_layer *t, table_id id, int head, const matrix *g);

/* out (T, W) -> t->loss, the logits and the loss each through its hook
 * point; with t->dlm_head, dout (T, W). */
int top_pass(matrix *dout, top_layer *t, const matrix *out, workers *pool,
             mx_error *err);

/* A module's pass: its forward over x (T, D), the top layer over its
 * output, then (top->dlm_head not NULL) its backward into grad (a module
 * of the same shapes) and dx (T, D). */
typedef int (*module_pass_fn)(matrix *dx, void *grad, const void *module,
                              const attention_config *cfg, const matrix *x,
                              top_layer *top, mx_error *err);

/* A head's forward tables, kept for its backward pass (its tape; the
 * lessons' forward keeps a head's tables in heads.h's head_work). */
typedef struct {
    matrix q, k, v;    /* (T, hd) */
    matrix scores;     /* (T, T) */
    matrix weights;    /* (T, T) */
    matrix context;    /* (T, hd) */
    matrix dq, dk, dv; /* (T, hd) */
} head_tape;

/* Room the heads' backward passes share: dweights, dscores (T, T) and a
 * transpose (T, T); shown (T, T): the scores' gradient as shown. */
typedef struct {
    matrix dweights, dscores, t_tt, shown;
} head_room;

/* h's matrices for T tokens and a head hd wide, and r's, in s. */
int head_tape_alloc(head_tape *h, scratch *s, size_t T, size_t hd,
                    mx_error *err);
int head_room_alloc(head_room *r, scratch *s, size_t T, mx_error *err);

/* A head's forward pass from src (its own projections of x, or its
 * columns of the fused Q, K and V), its tables kept in h: the one head
 * forward of every model (attention_head.h), without dropout or hooks. */
void head_tape_forward(head_tape *h, const head_source *src,
                       const attention_config *cfg);

/* A head's backward pass from its dcontext (T, hd), its gradients handed
 * to top->shown as head `head`. */
void head_back(head_tape *h, head_room *r, const matrix *dcontext,
               const attention_config *cfg, top_layer *top, int head);

/* The fused attention's forward over x (T, D), its out (T, O) and what
 * its backward reads. */
typedef struct {
    scratch s;
    head_tape *h; /* H heads */
    head_room r;
    size_t H, hd;
    matrix Q, K, V, concat, out; /* (T, O) */
    fused_store store;           /* the module's pass over them (attention.h) */
    const attention_config *cfg;
    matrix dconcat, dQ, dK, dV, dctx, part, dyt; /* working room */
} fused_tape;

int fused_tape_forward(fused_tape *t, const fused_params *p,
                       const attention_config *cfg, const matrix *x,
                       mx_error *err);
/* g's gradients from dout (T, O); dx (T, D) gets W_value's part, then
 * the other two in top->qkv_order's order (train.h), added (the first
 * replacing what dx held when dx_first). */
void fused_tape_backward(matrix *dx, bool dx_first, fused_params *g,
                         fused_tape *t, const fused_params *p,
                         const matrix *dout, const attention_config *cfg,
                         const matrix *x, top_layer *top);
void fused_tape_free(fused_tape *t);

/* The Transformer blocks' pass (module_pass_fn, block_train.c), which
 * the block's row names (variants/block.c); the other modules' passes
 * are in their variants' files. */
int block_pass(matrix *dx, void *grad, const void *module,
               const attention_config *cfg, const matrix *x, top_layer *top,
               mx_error *err);

#endif
