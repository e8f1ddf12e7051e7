/* hooks.h: hook points, the places where a forward pass hands over each
 * activation a table shows, as TransformerLens's HookPoint.
 *
 * A hook point's name is its table's key (trace.h): the catalogue row, the
 * variant, the layer and the head (or NO_HEAD), e.g. (head_context,
 * block, layer 0, head 1) for GPT-2's blocks.0.attn.hook_z of head 1. At
 * each point the forward pass calls hook_point on the activation, which
 *
 *   - replaces it, when a hook names it: zero it, set it to a given matrix
 *     of its shape or every row to a given row, or mean it over the
 *     positions (each column's values become the column's mean over the
 *     rows, the tokens);
 *   - then records it, when the run has a recorder (the trace of a
 *     checkpoint's run copies it into a table).
 *
 * What follows the point reads the replaced values: the rest of the
 * forward pass and what is recorded. Without hooks (NULL, or none
 * naming the point and no recorder) a point costs one test: the lesson
 * modules write their activations straight into the trace's tables, so
 * their trace needs no recorder.
 */
#ifndef MHA_HOOKS_H
#define MHA_HOOKS_H

#include <stddef.h>

#include "base/error.h"
#include "model/trace.h"
#include "numerics/tensor.h"

/* What a hook does to the activation it names. */
typedef enum {
    HOOK_ZERO, /* every value +0 */
    HOOK_SET,  /* the values of hook.value, of the activation's shape */
    HOOK_MEAN, /* each column its mean over the rows (the positions), as
                  x.mean(dim=0, keepdim=True) sums and divides */
    HOOK_ROW,  /* every row the values of hook.value, one row (1 x the
                  activation's columns): x[:] = row, as a mean taken
                  elsewhere (over a corpus) is set on every position */
} hook_action;

/* One replacing hook: the activation named `at` (its grad false). */
typedef struct {
    table_key at;
    hook_action action;
    const matrix *value; /* HOOK_SET and HOOK_ROW only; the caller's */
} replace_hook;

/* The hooks of one forward pass, the caller's: the replacing hooks, and
 * the recorder called at every point with the activation as it flows on
 * (or NULL). record runs on the thread that computes the activation: a
 * pass whose heads run on several threads (the lesson modules, heads.h)
 * takes no recorder. */
typedef struct {
    const replace_hook *replace;
    size_t n_replace;
    int (*record)(void *ctx, const table_key *at, const matrix *m,
                  mx_error *err);
    void *ctx;
} forward_hooks;

/* The key of table id at `at`'s place (its variant, layer and head). */
static inline table_key hook_at(const table_key *at, table_id id)
{
    table_key key = *at;
    key.id = id;
    key.grad = false;
    return key;
}

/* The hook point `at` over m: the hooks naming it applied in their order,
 * then the recorder. h may be NULL. Returns 0, or -1 with err set (a
 * HOOK_SET value of another shape, no memory for a mean, or the
 * recorder's failure). */
int hook_point(const forward_hooks *h, const table_key *at, matrix *m,
               mx_error *err);

/* The hook point of table id in layer L of a model's blocks, head h or
 * NO_HEAD (layer_table_key, trace.h), over m, as hook_point. */
int hook_layer_point(const forward_hooks *h, int L, int head, table_id id,
                     matrix *m, mx_error *err);

/* The hook point of table id outside the layers (variant v, layer 0, no
 * head) over m, as hook_point. */
int hook_outer_point(const forward_hooks *h, variant_id v, table_id id,
                     matrix *m, mx_error *err);

#endif
