/* test_trace.c: finding a trace's tables by key (model/trace.h's
 * trace_find_step, through model/trace_index.h): the table of each key
 * and step, the first made of a key several share, none for a key not
 * made; and a lookup's time that does not grow with the trace, as a
 * generation's page needs (N steps x L layers x H heads of tables, each
 * looked up): the same lookups in a trace 16 times larger must take
 * well under 16 times as long, as a scan of the trace would. */
#include <stdlib.h>
#include <time.h>

#include "model/trace.h"
#include "tap.h"

enum { LAYERS = 4, HEADS = 4 };

/* A trace of `steps` generation steps of every layer's and head's
 * attn_weights (1 x 2), after the prompt's (step 0). */
static int fill(trace *tr, int steps)
{
    mx_error err;
    const labels *one = trace_index_labels(tr, "p", 2, &err);
    const labels *row = trace_index_labels(tr, "q", 1, &err);
    if (one == NULL || row == NULL)
        return -1;
    for (int s = 0; s <= steps; s++)
        for (int l = 0; l < LAYERS; l++)
            for (int h = 0; h < HEADS; h++) {
                const table_key key = {VARIANT_MODEL, l, h, TABLE_ATTN_WEIGHTS,
                                       false};
                table *t = trace_new_at(tr, &key, s, row, one, &err);
                if (t == NULL)
                    return -1;
                t->values.v[0] = (float)s; // which step made it
                t->values.v[1] = (float)(l * HEADS + h);
            }
    return 0;
}

/* n lookups of keys spread over the trace's steps; how many found the
 * wrong table (or none). */
static size_t look_up(const trace *tr, int steps, size_t n)
{
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++) {
        const int s = (int)(i * 7919 % (size_t)(steps + 1));
        const int l = (int)(i % LAYERS), h = (int)(i / LAYERS % HEADS);
        const table_key key = {VARIANT_MODEL, l, h, TABLE_ATTN_WEIGHTS, false};
        const table *t = trace_find_step(tr, &key, s);
        wrong += t == NULL || t->values.v[0] != (float)s ||
                 t->values.v[1] != (float)(l * HEADS + h);
    }
    return wrong;
}

/* The least CPU time of three rounds of n lookups, in seconds; *wrong
 * counts the wrong answers. */
static double lookup_time(const trace *tr, int steps, size_t n, size_t *wrong)
{
    double best = 0;
    *wrong = 0;
    for (int round = 0; round < 3; round++) {
        const clock_t start = clock();
        *wrong += look_up(tr, steps, n);
        const double spent = (double)(clock() - start) / CLOCKS_PER_SEC;
        best = round == 0 || spent < best ? spent : best;
    }
    return best;
}

static void keys(void)
{
    trace tr;
    trace_init(&tr);
    mx_error err;
    const int ok_fill = fill(&tr, 3) == 0;
    ok(ok_fill && look_up(&tr, 3, 1000) == 0,
       "every step's table of every layer and head is found by its key");
    const table_key key = {VARIANT_MODEL, 1, 2, TABLE_ATTN_WEIGHTS, false};
    const table *first = trace_find(&tr, &key);
    ok(first != NULL && first->step == 0 && first == trace_at(&tr, 6),
       "trace_find finds the prompt's table (step 0), the one made first");
    const labels *l = trace_index_labels(&tr, "x", 1, &err);
    table *again = l ? trace_new_at(&tr, &key, 2, l, l, &err) : NULL;
    const table *found = trace_find_step(&tr, &key, 2);
    ok(again != NULL && found != NULL && found != again &&
           found->values.v[0] == 2.0f,
       "of two tables of one key and step, the first made is found");
    const table_key grad = {VARIANT_MODEL, 1, 2, TABLE_ATTN_WEIGHTS, true};
    const table_key other = {VARIANT_MODEL, 1, 2, TABLE_ATTN_SCORES, false};
    ok(trace_find_step(&tr, &key, 4) == NULL &&
           trace_find(&tr, &grad) == NULL && trace_find(&tr, &other) == NULL,
       "a step, a gradient or a table not made is not found");
    trace_free(&tr);
    ok(trace_find(&tr, &key) == NULL, "an emptied trace finds nothing");
    trace_free(&tr);
}

static void lookup_grows_not(void)
{
    trace small, large;
    trace_init(&small);
    trace_init(&large);
    enum { SMALL_STEPS = 63, LARGE_STEPS = 16 * 64 - 1 };
    const size_t n = 100000;
    if (ok(fill(&small, SMALL_STEPS) == 0 && fill(&large, LARGE_STEPS) == 0,
           "traces of %d and %d tables", (SMALL_STEPS + 1) * LAYERS * HEADS,
           (LARGE_STEPS + 1) * LAYERS * HEADS)) {
        size_t wrong_small, wrong_large;
        const double a = lookup_time(&small, SMALL_STEPS, n, &wrong_small);
        const double b = lookup_time(&large, LARGE_STEPS, n, &wrong_large);
        ok(wrong_small == 0 && wrong_large == 0,
           "%zu lookups in each find their tables", 3 * n);
        // a scan takes some 16 times as long in the larger trace
        ok(b < 5 * a + 0.002,
           "%zu lookups take %.4f s in the trace 16 times larger, %.4f s "
           "in the smaller: they do not scan the trace",
           n, b, a);
    }
    trace_free(&small);
    trace_free(&large);
}

int main(void)
{
    keys();
    lookup_grows_not();
    return tap_done();
}
