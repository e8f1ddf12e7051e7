/* test_llama.c: the Llama-style forward pass (model/llama/llama.h)
 * against transformers' modeling_llama / modeling_qwen2 in PyTorch, bit
 * for bit, on the small random checkpoints of
 * tests/reference/make_llama_reference.py (argv[1]: their folder): F32,
 * F16 and BF16, tied and untied, grouped-query attention, Qwen2's
 * biases, a sharded one. Every table the pass makes is compared with the
 * reference's table of the same name; a masked score, -inf here, is the
 * score plus finfo.min there. And a replacing hook's value flows on
 * through the layer (the one block, transformer_block.h): ffn_hidden
 * zeroed makes ffn_out down_proj(0) = +0 (no bias) and the layer's output
 * its residual. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/safetensors.h"
#include "model/llama/llama.h"
#include "tap.h"
#include "reference_tables.h"

/* Where the reference script names a table otherwise than its row. */
static const reference_rename renames[] = {
    {TABLE_INPUTS, "embedded"},
    {TABLE_CONCAT_CONTEXT, "concat"},
};

static void run_case(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    llama_model m;
    mx_error err;
    if (!ok(llama_open(&m, path, &err) == 0, "%s: opens (%s)", name, err.msg))
        return;
    int32_t ids[1024];
    size_t T;
    safetensors ref;
    if (!reference_case(ids, 1024, &T, &ref, path, name)) {
        llama_close(&m);
        return;
    }
    reference_checker c = {
        .ref = &ref,
        .case_name = name,
        .layer_prefix = "",
        .renames = renames,
        .n_renames = sizeof renames / sizeof *renames,
        // a masked score is the score plus finfo.min there
        .masked = -FLT_MAX / 2,
    };
    const forward_hooks hooks = {.record = reference_check, .ctx = &c};
    llama_run run = {&hooks, true, NULL, NULL};
    matrix out = {0};
    ok(llama_forward(&out, &m, ids, T, &run, &err) == 0, "%s: runs", name);
    reference_done(&c);
    matrix_free(&out);
    safetensors_close(&ref);
    llama_close(&m);
}

/* What the recorder keeps of layer 0: copies of its residual, ffn_out and
 * output (hidden), which the pass overwrites. */
typedef struct {
    matrix residual, ffn_out, hidden;
} layer_copies;

static int keep_layer0(void *ctx, const table_key *at, const matrix *m,
                       mx_error *err)
{
    layer_copies *c = ctx;
    matrix *copy = at->layer != 0             ? NULL
                   : at->id == TABLE_RESIDUAL ? &c->residual
                   : at->id == TABLE_FFN_OUT  ? &c->ffn_out
                   : at->id == TABLE_HIDDEN   ? &c->hidden
                                              : NULL;
    if (copy == NULL || at->head != NO_HEAD || !is_layer_table(at))
        return 0;
    matrix_free(copy);
    if (matrix_alloc(copy, m->rows, m->cols, "test", err) != 0)
        return -1;
    memcpy(copy->v, m->v, m->rows * m->cols * sizeof *m->v);
    return 0;
}

/* Layer 0's ffn_hidden zeroed by a hook, on the first case. */
static void zeroed_ffn_hidden(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/llama_tied_f32", dir);
    llama_model m;
    mx_error err;
    if (!ok(llama_open(&m, path, &err) == 0, "zeroed ffn_hidden: opens (%s)",
            err.msg))
        return;
    const int32_t ids[] = {5, 17, 3, 42, 8};
    const replace_hook zero = {layer_table_key(0, NO_HEAD, TABLE_FFN_HIDDEN),
                               HOOK_ZERO, NULL};
    layer_copies c = {0};
    const forward_hooks hooks = {&zero, 1, keep_layer0, &c};
    const llama_run run = {&hooks, false, NULL, NULL};
    matrix out = {0};
    const bool ran = llama_forward(&out, &m, ids, 5, &run, &err) == 0 &&
                     c.ffn_out.v != NULL && c.residual.v != NULL &&
                     c.hidden.v != NULL;
    ok(ran, "zeroed ffn_hidden: runs");
    bool zero_out = ran;
    for (size_t i = 0; ran && i < c.ffn_out.rows * c.ffn_out.cols; i++)
        zero_out =
            zero_out && c.ffn_out.v[i] == 0.0f && !signbit(c.ffn_out.v[i]);
    ok(zero_out, "zeroed ffn_hidden: ffn_out is down_proj(0), every value +0");
    ok(ran && memcmp(c.hidden.v, c.residual.v,
                     c.hidden.rows * c.hidden.cols * sizeof(float)) == 0,
       "zeroed ffn_hidden: the layer's output is its residual");
    matrix_free(&c.residual);
    matrix_free(&c.ffn_out);
    matrix_free(&c.hidden);
    matrix_free(&out);
    llama_close(&m);
}

int main(int argc, char **argv)
{
    return reference_main(argc, argv, run_case, zeroed_ffn_hidden);
}
