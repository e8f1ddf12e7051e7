/* test_gpt2.c: the GPT-2 forward pass (model/gpt2/gpt2.h) against PyTorch, bit
 * for bit, on the small random checkpoints of
 * tests/reference/make_gpt2_reference.py (argv[1]: their folder). Every
 * table the pass makes is compared with the reference's table of the
 * same name; a masked score, -inf here, is finfo.min there. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/safetensors.h"
#include "model/gpt2/gpt2.h"
#include "tap.h"
#include "reference_tables.h"

/* Where the reference script names a table otherwise than its row. */
static const reference_rename renames[] = {
    {TABLE_INPUTS, "embedded"},     {TABLE_CONCAT_CONTEXT, "concat"},
    {TABLE_RESIDUAL, "residual_1"}, {TABLE_FFN_HIDDEN, "mlp_hidden"},
    {TABLE_FFN_OUT, "mlp_out"},
};

static void run_case(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    gpt2_model m;
    mx_error err;
    if (!ok(gpt2_open(&m, path, &err) == 0, "%s: opens (%s)", name, err.msg))
        return;
    int32_t ids[1024];
    size_t T;
    safetensors ref;
    if (!reference_case(ids, 1024, &T, &ref, path, name)) {
        gpt2_close(&m);
        return;
    }
    reference_checker c = {
        .ref = &ref,
        .case_name = name,
        .layer_prefix = "h.",
        .renames = renames,
        .n_renames = sizeof renames / sizeof *renames,
        // a masked score is finfo.min there
        .masked = -FLT_MAX,
    };
    const forward_hooks hooks = {.record = reference_check, .ctx = &c};
    gpt2_run run = {&hooks, true, NULL, NULL};
    matrix out = {0};
    ok(gpt2_forward(&out, &m, ids, T, &run, &err) == 0, "%s: runs", name);
    reference_done(&c);
    matrix_free(&out);
    safetensors_close(&ref);
    gpt2_close(&m);
}

int main(int argc, char **argv)
{
    return reference_main(argc, argv, run_case, NULL);
}
