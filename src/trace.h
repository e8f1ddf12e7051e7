/* trace.h: the unit every renderer understands, and the trace that a
 * forward pass fills with them.
 *
 * A table is a named matrix with labelled rows and columns, belonging to a
 * variant ("input", "single", "wrapper", "fused") and maybe to a head.
 * The trace owns every table and every label set; tables only point at
 * label sets, which many tables share (all "Q:<token>" rows, say).
 */
#ifndef MHA_TRACE_H
#define MHA_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "tensor.h"

#define NO_HEAD (-1)

typedef struct {
    size_t n;
    char **s;  /* n NUL-terminated UTF-8 strings, owned */
    char *key; /* what the set was made from, for sharing; owned */
} labels;

typedef struct {
    char variant[16];
    int head;           /* NO_HEAD or 0..heads-1 */
    char name[64];      /* state_dict name or intermediate's name */
    bool integral;      /* values are ids: print without decimals */
    const labels *rows; /* owned by the trace */
    const labels *cols; /* owned by the trace */
    matrix values;      /* owned */
} table;

typedef struct {
    table *tables;
    size_t n_tables, cap_tables;
    labels **label_sets;
    size_t n_label_sets, cap_label_sets;
} trace;

void trace_init(trace *tr);
void trace_free(trace *tr);

/* Labels "<prefix><word>" for each word, e.g. "Q:gato". The set is made
 * once per trace and shared. Returns NULL on failure. */
const labels *trace_word_labels(trace *tr, const char *prefix,
                                const char *const *words, size_t n,
                                mx_error *err);

/* Labels "<prefix>0" .. "<prefix>(n-1)", e.g. "dim0". */
const labels *trace_index_labels(trace *tr, const char *prefix, size_t n,
                                 mx_error *err);

/* Labels given literally (one label: "bias", "id"). */
const labels *trace_literal_label(trace *tr, const char *text, mx_error *err);

/* Appends a copy of m as a table. rows->n and cols->n must equal m's
 * shape. head is NO_HEAD for tables of no head. */
int trace_add(trace *tr, const char *variant, int head, const char *name,
              const labels *rows, const labels *cols, const matrix *m,
              mx_error *err);

/* The table with this variant, head and name, or NULL. */
const table *trace_find(const trace *tr, const char *variant, int head,
                        const char *name);

#endif
