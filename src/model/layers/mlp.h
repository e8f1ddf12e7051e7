/* mlp.h: the feed-forward network of every model's block, its forward
 * pass and beside it its backward pass (mlp_backward.c):
 *
 *   ffn_hidden (T, F) = act(fc(x))      (hook point ffn_hidden)
 *   ffn_out (T, D)    = proj(ffn_hidden) (hook point ffn_out)
 *
 * the lessons' block: fc = ff.0 and proj = ff.2 (nn.Linear), act = ReLU;
 * GPT-2: mlp.c_fc and mlp.c_proj (Conv1D), act = gelu_new;
 * BERT: intermediate.dense and output.dense (nn.Linear), act = the exact
 * GELU (erf).
 */
#ifndef MHA_MLP_H
#define MHA_MLP_H

#include "base/error.h"
#include "model/hooks.h"
#include "model/layers/dense.h"
#include "model/trace.h"
#include "numerics/tensor.h"
#include "numerics/workers.h"

typedef enum {
    ACT_RELU,     /* nn.ReLU: clamp_min(x, 0) */
    ACT_GELU_NEW, /* GPT-2's gelu_new (numerics/gelu.h) */
    ACT_GELU_ERF, /* BERT's exact GELU (numerics/gelu_erf.h) */
} activation;

typedef struct {
    dense fc;   /* D -> F */
    dense proj; /* F -> D */
    activation act;
} mlp;

/* The network over x (T, D) into hidden (T, F) and out (T, D), its hook
 * points at `at`'s place (variant and layer) through hk (may be NULL).
 * Returns 0, or -1 with err set by a hook. */
int mlp_forward(matrix *out, matrix *hidden, const matrix *x, const mlp *f,
                const forward_hooks *hk, const table_key *at, workers *pool,
                mx_error *err);

/* ---- backward ---------------------------------------------------------- */

/* Where a backward pass hands d loss / d table id as it makes it (the
 * gradients --grad shows), or fn NULL: nowhere. */
typedef struct {
    void (*fn)(void *ctx, table_id id, const matrix *g);
    void *ctx;
} grad_points;

/* Hands g to gp as the gradient of table id (gp may be NULL). */
void grad_point(const grad_points *gp, table_id id, const matrix *g);

/* The network as training holds it: nn.Linear fc and proj, with ReLU
 * (the lessons' block, the one training runs), and their gradients
 * (linears of the same shapes). */
typedef struct {
    const linear *fc, *proj;
    linear *dfc, *dproj;
} mlp_linears;

/* The network's backward pass from dout (T, D) = d loss / d ffn_out,
 * with x (T, D) and hidden (T, F) its forward's input and ffn_hidden:
 *   ffn_out's gradient to gp; proj's gradients, and dhidden (T, F) =
 *   dout @ proj = d loss / d ffn_hidden, to gp;
 *   the ReLU's: dhidden = 0 where ffn_hidden is not above 0;
 *   fc's gradients, and dx (T, D) = dhidden @ fc.
 * dyt_d (D, T) and dyt_f (F, T) are working room. */
void mlp_backward(matrix *dx, matrix *dhidden, const mlp_linears *l,
                  matrix *dyt_d, matrix *dyt_f, const matrix *dout,
                  const matrix *x, const matrix *hidden, const grad_points *gp,
                  workers *pool);

#endif
