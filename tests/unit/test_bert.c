/* test_bert.c: the BERT forward pass (model/bert/bert.h) against PyTorch,
 * bit for bit, on the small random checkpoints of
 * tests/reference/make_bert_reference.py (argv[1]: their folder), with
 * and without the masked-word head and the "bert." prefix. Every table
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

typedef struct {
    const safetensors *ref;
    const char *case_name;
    size_t tables, bad;
} checker;

/* The reference's name of the table id. */
static const char *reference_name(table_id id)
{
    switch (id) {
    case TABLE_INPUTS:
        return "embedded";
    case TABLE_CONCAT_CONTEXT:
        return "concat";
    default:
        return table_info_of(id)->name;
    }
}

static bool same(float a, float b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The recorder of the hook points: each table compared with the
 * reference's of the same name. */
static int compare(void *ctx, const table_key *at, const matrix *m,
                   mx_error *err)
{
    (void)err;
    checker *c = ctx;
    char name[96];
    const char *row = reference_name(at->id);
    if (at->head != NO_HEAD)
        snprintf(name, sizeof name, "layer.%d.head.%d.%s", at->layer, at->head,
                 row);
    else if (at->variant == VARIANT_ID_BLOCK)
        snprintf(name, sizeof name, "layer.%d.%s", at->layer, row);
    else
        snprintf(name, sizeof name, "%s", row);
    c->tables++;
    const st_tensor *t = safetensors_find(c->ref, name);
    if (t == NULL || t->ndim != 2 || t->shape[0] != m->rows ||
        t->shape[1] != m->cols) {
        ok(0, "%s: %s in the reference with shape %zu x %zu", c->case_name,
           name, m->rows, m->cols);
        c->bad++;
        return 0;
    }
    const float *want;
    float *owned;
    mx_error e;
    if (safetensors_floats(&want, &owned, c->ref, t, &e) != 0)
        return -1;
    size_t diff = 0, first = 0;
    for (size_t i = 0; i < m->rows * m->cols; i++)
        if (!same(m->v[i], want[i]) && diff++ == 0)
            first = i;
    if (diff) {
        ok(0,
           "%s: %s: %zu of %zu values differ (first at %zu: %.9g, "
           "PyTorch %.9g)",
           c->case_name, name, diff, m->rows * m->cols, first, m->v[first],
           want[first]);
        c->bad++;
    }
    free(owned);
    return 0;
}

static size_t read_ids(int32_t *ids, size_t cap, const char *path)
{
    FILE *f = fopen(path, "r");
    size_t T = 0;
    long v;
    while (f != NULL && T < cap && fscanf(f, "%ld", &v) == 1)
        ids[T++] = (int32_t)v;
    if (f != NULL)
        fclose(f);
    return T;
}

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
    snprintf(file, sizeof file, "%s/ids.txt", path);
    const size_t T = read_ids(ids, 512, file);
    snprintf(file, sizeof file, "%s/types.txt", path);
    ok(read_ids(types, 512, file) == T, "%s: a token type for each id", name);
    snprintf(file, sizeof file, "%s/reference.safetensors", path);
    safetensors ref;
    if (!ok(safetensors_open(&ref, file, &err) == 0, "%s: reference opens",
            name)) {
        bert_close(&m);
        return;
    }
    ok(m.has_mlm == (safetensors_find(&ref, "logits") != NULL),
       "%s: the masked-word head found where the checkpoint has it", name);
    checker c = {&ref, name, 0, 0};
    const forward_hooks hooks = {.record = compare, .ctx = &c};
    const bert_run run = {&hooks, true, NULL};
    matrix out = {0};
    ok(bert_forward(&out, &m, ids, types, T, &run, &err) == 0, "%s: runs",
       name);
    ok(c.bad == 0 && c.tables == ref.n,
       "%s: all %zu tables equal PyTorch's bit for bit (%zu compared)", name,
       ref.n, c.tables);
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
            diff += !same(v[i], y[i]);
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
    if (argc < 2) {
        printf("1..0 # SKIP no reference folder\n");
        return 0;
    }
    char list[512];
    snprintf(list, sizeof list, "%s/cases.txt", argv[1]);
    FILE *f = fopen(list, "r");
    if (!ok(f != NULL, "%s opens", list))
        return tap_done();
    char name[128];
    while (fscanf(f, "%127s", name) == 1)
        run_case(argv[1], name);
    fclose(f);
    check_gelu(argv[1]);
    return tap_done();
}
