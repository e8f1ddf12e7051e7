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

typedef struct {
    const safetensors *ref;
    const char *case_name;
    size_t tables, bad;
} checker;

/* The reference's name of the table id (its catalogue row's, but
 * where the reference script names it otherwise). */
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
    if (a == -INFINITY && b <= -FLT_MAX / 2)
        return true;
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The recorder of the forward pass's hook points (model/hooks.h): each
 * table compared with the reference's of the same name. */
static int compare(void *ctx, const table_key *at, const matrix *m,
                   mx_error *err)
{
    (void)err;
    checker *c = ctx;
    char name[96];
    const char *row = reference_name(at->id);
    if (at->head != NO_HEAD)
        snprintf(name, sizeof name, "%d.head.%d.%s", at->layer, at->head, row);
    else if (at->variant == VARIANT_ID_BLOCK)
        snprintf(name, sizeof name, "%d.%s", at->layer, row);
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

static void run_case(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    llama_model m;
    mx_error err;
    if (!ok(llama_open(&m, path, &err) == 0, "%s: opens (%s)", name, err.msg))
        return;
    char ids_path[600];
    snprintf(ids_path, sizeof ids_path, "%s/ids.txt", path);
    FILE *f = fopen(ids_path, "r");
    int32_t ids[1024];
    size_t T = 0;
    long v;
    while (f != NULL && T < 1024 && fscanf(f, "%ld", &v) == 1)
        ids[T++] = (int32_t)v;
    if (f != NULL)
        fclose(f);
    char ref_path[600];
    snprintf(ref_path, sizeof ref_path, "%s/reference.safetensors", path);
    safetensors ref;
    if (!ok(safetensors_open(&ref, ref_path, &err) == 0, "%s: reference opens",
            name)) {
        llama_close(&m);
        return;
    }
    checker c = {&ref, name, 0, 0};
    const forward_hooks hooks = {.record = compare, .ctx = &c};
    llama_run run = {&hooks, true, NULL, NULL};
    matrix out = {0};
    ok(llama_forward(&out, &m, ids, T, &run, &err) == 0, "%s: runs", name);
    ok(c.bad == 0 && c.tables == ref.n,
       "%s: all %zu tables equal PyTorch's bit for bit (%zu compared)", name,
       ref.n, c.tables);
    matrix_free(&out);
    safetensors_close(&ref);
    llama_close(&m);
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
    return tap_done();
}
