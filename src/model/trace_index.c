/* trace_index.c: the trace's index of its tables by key (trace_index.h). */
#include "model/trace_index.h"

#include <stdint.h>
#include <stdlib.h>

#include "base/i18n.h"

/* A well-mixed 64-bit number from the key's fields and the step
 * (splitmix64's finalizer over each in turn). */
static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9u;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebu;
    return h ^ (h >> 31);
}

static uint64_t key_hash(const table_key *key, int step)
{
    uint64_t h = mix(0, (uint64_t)key->id);
    h = mix(h, (uint64_t)key->variant);
    h = mix(h, (uint64_t)(uint32_t)key->layer);
    h = mix(h, (uint64_t)(uint32_t)key->head);
    h = mix(h, (uint64_t)key->grad);
    return mix(h, (uint64_t)(uint32_t)step);
}

static bool same_key(const table *t, const table_key *key, int step)
{
    return t->id == key->id && t->head == key->head &&
           t->variant == key->variant && t->layer == key->layer &&
           t->grad == key->grad && t->step == step;
}

static table_key key_of(const table *t)
{
    return (table_key){t->variant, t->layer, t->head, t->id, t->grad};
}

/* The slot of slots (cap, a power of two) that holds key's table, or
 * the empty slot where it would go. */
static size_t slot_of(const table *const *slots, size_t cap,
                      const table_key *key, int step)
{
    size_t i = (size_t)key_hash(key, step) & (cap - 1);
    while (slots[i] != NULL && !same_key(slots[i], key, step))
        i = (i + 1) & (cap - 1);
    return i;
}

/* Doubles the index (64 slots at first) and puts its tables again. */
static int grow_index(trace *tr, mx_error *err)
{
    const size_t cap = tr->cap_index ? 2 * tr->cap_index : 64;
    const table **slots = calloc(cap, sizeof *slots);
    if (slots == NULL)
        return err_nomem(err, _("the trace"));
    for (size_t i = 0; i < tr->cap_index; i++) {
        const table *t = tr->index_slots[i];
        if (t != NULL) {
            const table_key key = key_of(t);
            slots[slot_of(slots, cap, &key, t->step)] = t;
        }
    }
    free(tr->index_slots);
    tr->index_slots = slots;
    tr->cap_index = cap;
    return 0;
}

int trace_index_add(trace *tr, const table *t, mx_error *err)
{
    // at most half full, so that a probe stays short
    if (2 * (tr->n_index + 1) > tr->cap_index && grow_index(tr, err) != 0)
        return -1;
    const table_key key = key_of(t);
    const size_t i = slot_of(tr->index_slots, tr->cap_index, &key, t->step);
    if (tr->index_slots[i] == NULL) {
        tr->index_slots[i] = t;
        tr->n_index++;
    }
    return 0;
}

const table *trace_index_find(const trace *tr, const table_key *key, int step)
{
    if (tr->cap_index == 0)
        return NULL;
    return tr->index_slots[slot_of(tr->index_slots, tr->cap_index, key, step)];
}

void trace_index_free(trace *tr)
{
    free(tr->index_slots);
    tr->index_slots = NULL;
    tr->cap_index = tr->n_index = 0;
}
