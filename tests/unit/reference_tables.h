/* reference_tables.h: a checkpoint family's forward pass compared with
 * PyTorch's, table by table and bit for bit, on the small random
 * checkpoints of a reference folder (tests/reference/make_*_reference.py:
 * DIR/cases.txt names the cases, DIR/CASE/ids.txt the text's ids,
 * DIR/CASE/reference.safetensors PyTorch's tables). Used by test_gpt2.c,
 * test_bert.c and test_llama.c; include it after tap.h.
 *
 *   reference_check  the hook points' recorder (model/hooks.h): each table
 *                    the pass hands it compared with the reference's of
 *                    the same name ("h.3.head.1.queries", "h.3.hidden",
 *                    "logits" with the prefix "h.")
 *   reference_case   a case's ids and PyTorch's tables
 *   reference_done   every table compared equal, and every reference
 *                    table made
 *   reference_main   a run_case per case of cases.txt
 */
#ifndef MHA_REFERENCE_TABLES_H
#define MHA_REFERENCE_TABLES_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/safetensors.h"
#include "model/catalogue.h"
#include "model/hooks.h"

/* A table the reference names otherwise than its catalogue row. */
typedef struct {
    table_id id;
    const char *name;
} reference_rename;

typedef struct {
    const safetensors *ref;
    const char *case_name;
    const char *layer_prefix; /* before a layer's number: "h.", "layer." */
    const reference_rename *renames;
    size_t n_renames;
    float masked; /* a masked score, -inf here, is at most this there */
    size_t tables, bad;
} reference_checker;

/* a equals b bit for bit (NaN any NaN), or a is -inf and b at most
 * masked. */
static bool reference_same(float a, float b, float masked)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (a == -INFINITY && b <= masked)
        return true;
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The reference's name of the table id. */
static const char *reference_name(const reference_checker *c, table_id id)
{
    for (size_t i = 0; i < c->n_renames; i++)
        if (c->renames[i].id == id)
            return c->renames[i].name;
    return table_info_of(id)->name;
}

/* The recorder of the forward pass's hook points: each table compared
 * with the reference's of the same name; ctx is a reference_checker. */
static int reference_check(void *ctx, const table_key *at, const matrix *m,
                           mx_error *err)
{
    (void)err;
    reference_checker *c = ctx;
    char name[96];
    const char *row = reference_name(c, at->id);
    if (at->head != NO_HEAD)
        snprintf(name, sizeof name, "%s%d.head.%d.%s", c->layer_prefix,
                 at->layer, at->head, row);
    else if (is_layer_table(at))
        snprintf(name, sizeof name, "%s%d.%s", c->layer_prefix, at->layer, row);
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
        if (!reference_same(m->v[i], want[i], c->masked) && diff++ == 0)
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

/* One test: every table compared was equal, and as many were compared as
 * the reference has. */
static void reference_done(const reference_checker *c)
{
    ok(c->bad == 0 && c->tables == c->ref->n,
       "%s: all %zu tables equal PyTorch's bit for bit (%zu compared)",
       c->case_name, c->ref->n, c->tables);
}

/* The numbers of the file path into ids (at most cap); how many. */
static size_t reference_ids(int32_t *ids, size_t cap, const char *path)
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

/* The case folder path's ids (ids.txt: at most cap, *T of them) and
 * PyTorch's tables (reference.safetensors, into ref: one test); false
 * when they do not open. */
static bool reference_case(int32_t *ids, size_t cap, size_t *T,
                           safetensors *ref, const char *path, const char *name)
{
    char file[600];
    snprintf(file, sizeof file, "%s/ids.txt", path);
    *T = reference_ids(ids, cap, file);
    snprintf(file, sizeof file, "%s/reference.safetensors", path);
    mx_error err;
    return ok(safetensors_open(ref, file, &err) == 0, "%s: reference opens",
              name);
}

/* The test's main: run_case(DIR, CASE) for each case of DIR/cases.txt
 * (DIR is argv[1]; without it the test is skipped), then after(DIR) when
 * given. */
static int reference_main(int argc, char **argv,
                          void (*run_case)(const char *dir, const char *name),
                          void (*after)(const char *dir))
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
    if (after != NULL)
        after(argv[1]);
    return tap_done();
}

#endif
