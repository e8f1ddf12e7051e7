/* mlp.c: the feed-forward network of a block (mlp.h).
 *
 * Shapes: T tokens, D the model's width, F the network's.
 */
#include "model/layers/mlp.h"

#include "numerics/gelu.h"
#include "numerics/gelu_erf.h"

/* Values of hidden per task of the activation below: enough that waking
 * a helper is worth it. */
enum { ACT_SLICE = 16384 };

/* A GELU over n values: task i over values [i ACT_SLICE, (i + 1)
 * ACT_SLICE), the last task to the end, so that no slice is shorter than
 * the whole (gelu_erf takes a single value another way, as ATen does). */
typedef struct {
    float *v;
    size_t n, tasks;
    activation act;
} act_job;

static void act_task(void *ctx, size_t i)
{
    const act_job *j = ctx;
    const size_t lo = i * ACT_SLICE;
    const size_t n = i + 1 == j->tasks ? j->n - lo : ACT_SLICE;
    if (j->act == ACT_GELU_NEW)
        gelu_new(j->v + lo, n);
    else
        gelu_erf(j->v + lo, n);
}

/* hidden = act(hidden), in place; a GELU's slices shared out over the
 * pool (each value is computed alone: the split keeps the bits). */
static void activate(matrix *hidden, activation act, workers *pool)
{
    if (act == ACT_RELU) {
        relu(hidden);
        return;
    }
    const size_t n = hidden->rows * hidden->cols;
    act_job j = {hidden->v, n, n > ACT_SLICE ? n / ACT_SLICE : 1, act};
    // about a hundred operations a value (tanhf or erff in float32)
    workers_run(pool, j.tasks, 100.0 * (double)n, act_task, &j);
}

int mlp_forward(matrix *out, matrix *hidden, const matrix *x, const mlp *f,
                const forward_hooks *hk, const table_key *at, workers *pool,
                mx_error *err)
{
    // ffn_hidden (T, F) = act(x (T, D) @ fc + b)
    dense_forward(hidden, x, &f->fc, pool);
    activate(hidden, f->act, pool);
    if (hk != NULL) {
        const table_key key = hook_at(at, TABLE_FFN_HIDDEN);
        if (hook_point(hk, &key, hidden, err) != 0)
            return -1;
    }
    // ffn_out (T, D) = ffn_hidden (T, F) @ proj + b
    dense_forward(out, hidden, &f->proj, pool);
    if (hk != NULL) {
        const table_key key = hook_at(at, TABLE_FFN_OUT);
        return hook_point(hk, &key, out, err);
    }
    return 0;
}
