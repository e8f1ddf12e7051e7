/* test_bert.c: the BERT forward pass (model/bert/bert.h) against PyTorch,
 * bit for bit, on the small random checkpoints of
 * tests/reference/make_bert_reference.py (argv[1]: their folder), with
 * and without the masked-word head, the pooler (pooler_output, BertPooler
 * run by the reference as transformers' file writes it) and the "bert."
 * prefix. Every table
 * the pass makes is compared with the reference's table of the same
 * name, and every table of the reference is made. The exact GELU
 * (numerics/gelu_erf.h) is checked on its own against F.gelu's values,
 * over one tensor (oneDNN's path) and over lone values (ATen's). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/safetensors.h"
#include "model/bert/bert.h"
#include "numerics/gelu_erf.h"
#include "tap.h"
#include "reference_tables.h"

/* Where the reference script names a table otherwise than its row. */
static const reference_rename renames[] = {
    {TABLE_INPUTS, "embedded"},
    {TABLE_CONCAT_CONTEXT, "concat"},
};

static void run_case(const char *dir, const char *name)
{
    char path[512], file[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    bert_model m;
    mx_error err = {0};
    const int opened = bert_open(&m, path, &err);
    if (!ok(opened == 0, "%s: opens%s%s", name, opened ? ": " : "",
            opened ? err.msg : ""))
        return;
    int32_t ids[512], types[512] = {0};
    size_t T;
    safetensors ref;
    if (!reference_case(ids, 512, &T, &ref, path, name)) {
        bert_close(&m);
        return;
    }
    snprintf(file, sizeof file, "%s/types.txt", path);
    ok(reference_ids(types, 512, file) == T, "%s: a token type for each id",
       name);
    ok(m.has_mlm == (safetensors_find(&ref, "logits") != NULL),
       "%s: the masked-word head found where the checkpoint has it", name);
    ok(m.has_pooler == (safetensors_find(&ref, "pooler_output") != NULL),
       "%s: the pooler found where the checkpoint has it", name);
    reference_checker c = {
        .ref = &ref,
        .case_name = name,
        .layer_prefix = "layer.",
        .renames = renames,
        .n_renames = sizeof renames / sizeof *renames,
        // no score is masked: -inf only as itself
        .masked = -INFINITY,
    };
    const forward_hooks hooks = {.record = reference_check, .ctx = &c};
    const bert_run run = {&hooks, true, NULL};
    matrix out = {0};
    ok(bert_forward(&out, &m, ids, types, T, &run, &err) == 0, "%s: runs",
       name);
    reference_done(&c);
    // one token past max_position_embeddings is refused
    int32_t *many = calloc(m.cfg.n_positions + 1, sizeof *many);
    int32_t *zero = calloc(m.cfg.n_positions + 1, sizeof *zero);
    matrix none = {0};
    ok(many && zero &&
           bert_forward(&none, &m, many, zero, m.cfg.n_positions + 1, &run,
                        &err) != 0 &&
           err.status == 2,
       "%s: %zu tokens refused (%s)", name, m.cfg.n_positions + 1, err.msg);
    free(many);
    free(zero);
    matrix_free(&out);
    safetensors_close(&ref);
    bert_close(&m);
}

/* F.gelu's values in gelu.safetensors: "y" of "x" as one tensor,
 * "y1" of each value of "x1" alone. */
static void check_gelu(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/gelu.safetensors", dir);
    safetensors st;
    mx_error err = {0};
    if (!ok(safetensors_open(&st, path, &err) == 0, "gelu.safetensors opens"))
        return;
    const char *names[2][2] = {{"x", "y"}, {"x1", "y1"}};
    for (size_t k = 0; k < 2; k++) {
        const st_tensor *tx = safetensors_find(&st, names[k][0]);
        const st_tensor *ty = safetensors_find(&st, names[k][1]);
        const float *x = NULL, *y = NULL;
        float *ox = NULL, *oy = NULL;
        if (!ok(tx && ty && st_tensor_count(tx) == st_tensor_count(ty) &&
                    safetensors_floats(&x, &ox, &st, tx, &err) == 0 &&
                    safetensors_floats(&y, &oy, &st, ty, &err) == 0,
                "gelu: %s and %s read", names[k][0], names[k][1]))
            continue;
        const size_t n = st_tensor_count(tx);
        float *v = malloc(n * sizeof *v);
        size_t diff = 0;
        for (size_t i = 0; v != NULL && i < n; i++) {
            v[i] = x[i];
            if (k == 1) // one value at a time
                gelu_erf(&v[i], 1);
        }
        if (v != NULL && k == 0)
            gelu_erf(v, n);
        for (size_t i = 0; v != NULL && i < n; i++)
            diff += !reference_same(v[i], y[i], -INFINITY);
        ok(v != NULL && diff == 0,
           "gelu over %s: %zu values equal F.gelu's bit for bit (%zu differ)",
           k == 0 ? "one tensor" : "lone values", n, diff);
        free(v);
        free(ox);
        free(oy);
    }
    safetensors_close(&st);
}

int main(int argc, char **argv)
{
    return reference_main(argc, argv, run_case, check_gelu);
}
