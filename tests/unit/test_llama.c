/* test_llama.c: the Llama-style forward pass (model/llama/llama.h)
 * against transformers' modeling_llama / modeling_qwen2 in PyTorch, bit
 * for bit, on the small random checkpoints of
 * tests/reference/make_llama_reference.py (argv[1]: their folder): F32,
 * F16 and BF16, tied and untied, grouped-query attention, Qwen2's
 * biases, a sharded one. Every table the pass makes is compared with the
 * reference's table of the same name; a masked score, -inf here, is the
 * score plus finfo.min there. */
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
    llama_run run = {&hooks, true, NULL};
    matrix out = {0};
    ok(llama_forward(&out, &m, ids, T, &run, &err) == 0, "%s: runs", name);
    reference_done(&c);
    matrix_free(&out);
    safetensors_close(&ref);
    llama_close(&m);
}

int main(int argc, char **argv)
{
    return reference_main(argc, argv, run_case, NULL);
}
