/* trace.c: the trace and its shared label sets. */
#include "model/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/family.h"
#include "model/trace_index.h"

void trace_init(trace *tr)
{
    memset(tr, 0, sizeof *tr);
    tr->family = family_default();
}

static void labels_free(labels *l)
{
    if (l == NULL)
        return;
    for (size_t i = 0; i < l->n; i++)
        free(l->s[i]);
    free(l->s);
    free(l->key);
    free(l);
}

void trace_free(trace *tr)
{
    if (tr == NULL)
        return;
    for (size_t i = 0; i < tr->n_tables; i++) {
        matrix_free(&tr->tables[i]->values);
        free(tr->tables[i]);
    }
    free(tr->tables);
    for (size_t i = 0; i < tr->n_label_sets; i++)
        labels_free(tr->label_sets[i]);
    free(tr->label_sets);
    trace_index_free(tr);
    trace_init(tr);
}

void trace_set_sink(trace *tr, trace_sink_fn sink, void *ctx)
{
    tr->sink = sink;
    tr->sink_ctx = ctx;
}

/* Frees t's values; its name, labels and shape stay for the headings. */
static void drop_values(table *t)
{
    free(t->values.v);
    t->values.v = NULL;
}

int trace_flush(trace *tr, mx_error *err)
{
    if (tr->sink == NULL)
        return 0;
    const size_t first = tr->n_emitted;
    for (; tr->n_emitted < tr->n_tables; tr->n_emitted++) {
        table *t = tr->tables[tr->n_emitted];
        if (tr->sink(tr->sink_ctx, t, err) != 0)
            return -1;
        t->emitted = true;
    }
    /* only after the whole batch: the sink may read one table's
     * neighbours (attn_weights is shaded by its head's attn_scores) */
    for (size_t i = first; i < tr->n_tables; i++)
        if (tr->tables[i]->released)
            drop_values(tr->tables[i]);
    return 0;
}

void trace_release(trace *tr, table *t)
{
    if (tr->sink == NULL)
        return;
    t->released = true;
    if (t->emitted)
        drop_values(t);
}

/* Grows an array of `size`-byte items so that one more fits. */
static int grow(void *items_ptr, size_t *cap, size_t len, size_t size,
                mx_error *err)
{
    void **items = items_ptr;
    if (len < *cap)
        return 0;
    size_t new_cap = *cap ? *cap * 2 : 16;
    int overflow = 0;
    size_t bytes = size_mul(new_cap, size, &overflow);
    void *p = overflow ? NULL : realloc(*items, bytes);
    if (p == NULL)
        return err_nomem(err, _("the trace"));
    *items = p;
    *cap = new_cap;
    return 0;
}

static const labels *find_labels(const trace *tr, const char *key)
{
    for (size_t i = 0; i < tr->n_label_sets; i++)
        if (strcmp(tr->label_sets[i]->key, key) == 0)
            return tr->label_sets[i];
    return NULL;
}

/* Makes an empty set of n labels under key and hands it to the trace. */
static labels *new_labels(trace *tr, const char *key, size_t n, mx_error *err)
{
    if (grow(&tr->label_sets, &tr->cap_label_sets, tr->n_label_sets,
             sizeof *tr->label_sets, err) != 0)
        return NULL;
    labels *l = calloc(1, sizeof *l);
    if (l != NULL) {
        l->key = strdup(key);
        l->s = calloc(n > 0 ? n : 1, sizeof *l->s);
    }
    if (l == NULL || l->key == NULL || l->s == NULL) {
        labels_free(l);
        err_nomem(err, _("labels"));
        return NULL;
    }
    tr->label_sets[tr->n_label_sets++] = l;
    return l;
}

/* Sets label i to prefix followed by text; l->n counts the labels made. */
static int set_label(labels *l, const char *prefix, const char *text,
                     mx_error *err)
{
    size_t a = strlen(prefix), b = strlen(text);
    char *s = malloc(a + b + 1);
    if (s == NULL)
        return err_nomem(err, _("a label"));
    memcpy(s, prefix, a);
    memcpy(s + a, text, b + 1);
    l->s[l->n++] = s;
    return 0;
}

/* Whether the set l holds prefix followed by each of the n words. */
static bool same_words(const labels *l, const char *prefix,
                       const char *const *words, size_t n)
{
    const size_t a = strlen(prefix);
    if (l->n != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (strncmp(l->s[i], prefix, a) != 0 || strcmp(l->s[i] + a, words[i]))
            return false;
    return true;
}

const labels *trace_word_labels(trace *tr, const char *prefix,
                                const char *const *words, size_t n,
                                mx_error *err)
{
    /* Word lists are told apart by address: one list per sentence. A
     * list freed and another made at its address is told apart by its
     * words: it gets a set of its own, under a key no other set has. */
    char key[128];
    snprintf(key, sizeof key, "words:%s:%p:%zu", prefix, (const void *)words,
             n);
    const labels *found = find_labels(tr, key);
    if (found != NULL && same_words(found, prefix, words, n))
        return found;
    if (found != NULL)
        snprintf(key, sizeof key, "words:%s:%p:%zu#%zu", prefix,
                 (const void *)words, n, tr->n_label_sets);
    labels *l = new_labels(tr, key, n, err);
    if (l == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (set_label(l, prefix, words[i], err) != 0)
            return NULL;
    return l;
}

const labels *trace_new_word_labels(trace *tr, const char *prefix,
                                    const char *const *words, size_t n,
                                    mx_error *err)
{
    /* a key no other set has: the count of sets so far */
    char key[48];
    snprintf(key, sizeof key, "new:%zu", tr->n_label_sets);
    labels *l = new_labels(tr, key, n, err);
    if (l == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (set_label(l, prefix, words[i], err) != 0)
            return NULL;
    return l;
}

const labels *trace_index_labels(trace *tr, const char *prefix, size_t n,
                                 mx_error *err)
{
    char key[96];
    snprintf(key, sizeof key, "index:%s:%zu", prefix, n);
    const labels *found = find_labels(tr, key);
    if (found != NULL)
        return found;
    labels *l = new_labels(tr, key, n, err);
    if (l == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        char num[32];
        snprintf(num, sizeof num, "%zu", i);
        if (set_label(l, prefix, num, err) != 0)
            return NULL;
    }
    return l;
}

const labels *trace_literal_label(trace *tr, const char *text, mx_error *err)
{
    /* The key holds the text's first bytes only: a set found under it
     * is this text's when its whole text is the same; two texts that
     * share their start (a long prompt continued two ways) get a set
     * each, the second under a key no other set has. */
    char key[96];
    snprintf(key, sizeof key, "literal:%s", text);
    const labels *found = find_labels(tr, key);
    if (found != NULL && strcmp(found->s[0], text) == 0)
        return found;
    if (found != NULL)
        snprintf(key, sizeof key, "literal#%zu", tr->n_label_sets);
    labels *l = new_labels(tr, key, 1, err);
    if (l == NULL || set_label(l, "", text, err) != 0)
        return NULL;
    return l;
}

const char *table_name(const table *t)
{
    return t->id == TABLE_PARAM || t->grad ? t->param
                                           : table_info_of(t->id)->name;
}

const char *table_model_name(const table *t)
{
    return t->family != NULL ? t->family->model_name : NULL;
}

const char *table_layer_name(const table *t)
{
    return t->family != NULL ? t->family->layer_name : NULL;
}

bool trace_layered(const trace *tr)
{
    return tr->family->layer_name != NULL || tr->model.layers > 0 ||
           tr->layer_maps;
}

bool table_in_layered_model(const table *t)
{
    return table_layer_name(t) != NULL;
}

int table_model_layer(const table *t)
{
    return t->stacked ||
                   (table_in_layered_model(t) && t->variant != VARIANT_INPUT &&
                    t->variant != VARIANT_MODEL)
               ? t->layer
               : -1;
}

/* The variant that names t: its own, or for a table of the whole model
 * (VARIANT_MODEL) in a family that names no model, the variant whose
 * module its language model is (lm.h: the lesson's block). */
static variant_id naming_variant(const table *t)
{
    const lm_ops *lm = t->family != NULL ? t->family->lm : NULL;
    return t->variant == VARIANT_MODEL && lm != NULL &&
                   lm->variant != VARIANT_INPUT
               ? lm->variant
               : t->variant;
}

const char *table_variant_name(const table *t)
{
    const char *model = table_model_name(t);
    return t->variant == VARIANT_MODEL && model != NULL
               ? model
               : variant_id_name(naming_variant(t));
}

const char *table_source_name(const table *t)
{
    const char *model = table_model_name(t);
    return model != NULL ? model : variant_id_name(naming_variant(t));
}

const char *table_place(char *buf, size_t size, const table *t)
{
    if (t->stacked) {
        snprintf(buf, size, "%s.%d", variant_id_name(t->variant), t->layer);
        return buf;
    }
    if (table_model_layer(t) >= 0) {
        snprintf(buf, size, "%s.%d", table_layer_name(t), t->layer);
        return buf;
    }
    return table_source_name(t);
}

/* trace_new, with a parameter's state_dict() name (or NULL), set before
 * the values are allocated: a failure names the table. */
static table *new_table(trace *tr, const table_key *key, int step,
                        const char *param, const labels *rows,
                        const labels *cols, mx_error *err)
{
    if (grow(&tr->tables, &tr->cap_tables, tr->n_tables, sizeof *tr->tables,
             err) != 0)
        return NULL;
    table *t = calloc(1, sizeof *t);
    if (t == NULL) {
        err_nomem(err, _("the trace"));
        return NULL;
    }
    t->variant = key->variant;
    t->layer = key->layer;
    t->head = key->head;
    t->id = key->id;
    t->grad = key->grad;
    t->step = step;
    t->stacked = tr->stacked_variant != VARIANT_INPUT &&
                 key->variant == tr->stacked_variant;
    t->family = tr->family;
    if (param != NULL)
        snprintf(t->param, sizeof t->param, "%s", param);
    else if (key->grad)
        // a gradient is named as PyTorch's: "attn_weights.grad"
        snprintf(t->param, sizeof t->param, "%s.grad",
                 table_info_of(key->id)->name);
    t->rows = rows;
    t->cols = cols;
    if (matrix_alloc(&t->values, rows->n, cols->n, table_name(t), err) != 0 ||
        trace_index_add(tr, t, err) != 0) {
        matrix_free(&t->values);
        free(t);
        return NULL;
    }
    tr->tables[tr->n_tables++] = t;
    return t;
}

table *trace_new(trace *tr, const table_key *key, const labels *rows,
                 const labels *cols, mx_error *err)
{
    return new_table(tr, key, 0, NULL, rows, cols, err);
}

table *trace_new_at(trace *tr, const table_key *key, int step,
                    const labels *rows, const labels *cols, mx_error *err)
{
    return new_table(tr, key, step, NULL, rows, cols, err);
}

int trace_add_param(trace *tr, const table_key *key, const char *name,
                    const labels *rows, const labels *cols, const matrix *m,
                    mx_error *err)
{
    table *t = new_table(tr, key, 0, name, rows, cols, err);
    if (t == NULL)
        return -1;
    memcpy(t->values.v, m->v, m->rows * m->cols * sizeof *m->v);
    return 0;
}

const table *trace_find_step(const trace *tr, const table_key *key, int step)
{
    return trace_index_find(tr, key, step);
}

const table *trace_find(const trace *tr, const table_key *key)
{
    return trace_find_step(tr, key, 0);
}

const table *trace_find_input(const trace *tr, table_id id)
{
    const table_key key = {VARIANT_INPUT, 0, NO_HEAD, id, false};
    const table *t = trace_find(tr, &key);
    // a trained run (--train) has each variant's own inputs: the first's
    for (size_t i = 0; t == NULL && id == TABLE_INPUTS && i < tr->n_tables; i++)
        if (tr->tables[i]->id == TABLE_INPUTS && !tr->tables[i]->grad)
            t = tr->tables[i];
    return t;
}

const table *trace_find_tokens(const trace *tr)
{
    const table *t = trace_find_input(tr, TABLE_INPUTS);
    return t != NULL ? t : trace_find_input(tr, TABLE_TOKENS);
}

const table *trace_find_beside(const trace *tr, const table *t, int head,
                               table_id id)
{
    const table_key key = {t->variant, t->layer, head, id, false};
    return trace_find_step(tr, &key, t->step);
}

bool trace_cell_masked(const table *t, size_t r, size_t c)
{
    return !t->grad && table_info_for(t)->mask == MASK_LATER &&
           c > t->first_query + r && isnan(*matrix_at(&t->values, r, c));
}

float trace_cell(const table *t, size_t r, size_t c)
{
    return trace_cell_masked(t, r, c) ? 0.0f : *matrix_at(&t->values, r, c);
}

const table *trace_mask_of(const trace *tr, const table *t)
{
    const table *m = NULL;
    if (t->grad) // a gradient (--grad) has no -inf cells
        return NULL;
    switch (table_info_for(t)->mask) {
    case MASK_NONE:
        return NULL;
    case MASK_OWN:
    case MASK_LATER:
        return t;
    case MASK_HEAD:
        m = tr == NULL ? NULL
                       : trace_find_beside(tr, t, t->head, TABLE_ATTN_SCORES);
        break;
    case MASK_FIRST_HEAD:
        m = tr == NULL ? NULL : trace_find_beside(tr, t, 0, TABLE_ATTN_SCORES);
        break;
    }
    if (m == NULL || m->values.v == NULL || m->values.rows != t->values.rows ||
        m->values.cols != t->values.cols)
        return NULL;
    return m;
}
