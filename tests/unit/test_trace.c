/* test_trace.c: finding a trace's tables by key (model/trace.h's
 * trace_find_step, through model/trace_index.h): the table of each key
 * and step, the first made of a key several share, none for a key not
 * made; and the same in a trace as large as a long generation's page
 * makes (N steps x L layers x H heads of tables). A layer's key
 * (layer_table_key, is_layer_table). How long the lookups
 * take is the benchmark's to measure, not this test's. */
#include <stdlib.h>

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

/* A layer's key (layer_table_key) is the block's variant with the layer
 * and the head, the values the trace, the CSV and the pages have always
 * carried; is_layer_table tells it from the keys outside the layers. */
static void layer_keys(void)
{
    const table_key k = layer_table_key(3, 1, TABLE_HEAD_CONTEXT);
    const table_key outer = {VARIANT_INPUT, 0, NO_HEAD, TABLE_INPUTS, false};
    const table_key model = {VARIANT_MODEL, 0, NO_HEAD, TABLE_LOGITS, false};
    const table_key fused = {VARIANT_ID_FUSED, 0, 1, TABLE_QUERIES, false};
    ok(k.variant == VARIANT_ID_BLOCK && k.layer == 3 && k.head == 1 &&
           k.id == TABLE_HEAD_CONTEXT && !k.grad,
       "layer_table_key: the block's variant, the layer, the head, the row");
    ok(is_layer_table(&k) && !is_layer_table(&outer) &&
           !is_layer_table(&model) && !is_layer_table(&fused),
       "is_layer_table: a layer's key, not the input's, the model's or "
       "another variant's");
}

static void large_trace(void)
{
    trace large;
    trace_init(&large);
    enum { LARGE_STEPS = 16 * 64 - 1 };
    if (ok(fill(&large, LARGE_STEPS) == 0, "a trace of %d tables",
           (LARGE_STEPS + 1) * LAYERS * HEADS))
        ok(look_up(&large, LARGE_STEPS, 100000) == 0,
           "100000 lookups in it find their tables");
    trace_free(&large);
}

int main(void)
{
    keys();
    layer_keys();
    large_trace();
    return tap_done();
}
