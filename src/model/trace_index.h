/* trace_index.h: where a trace's table of a key is, found without a scan.
 *
 * trace.c keeps every table it makes in an index (trace.h's
 * index_slots): an open-addressing hash table of table pointers, keyed
 * by the table's key (catalogue id, variant, layer, head, grad) and its
 * generation step. Each key holds the first table made with it, the one
 * a scan of the trace in order would find, so trace_find_step answers
 * in constant time: a generation of N steps over L layers of H heads
 * makes N·L·H tables, and the page and --check look each of them up.
 */
#ifndef MHA_TRACE_INDEX_H
#define MHA_TRACE_INDEX_H

#include "base/error.h"
#include "model/trace.h"

/* Adds t to tr's index unless a table of its key and step is there
 * already (the first made stays). Returns 0, or -1 with err set when
 * the index cannot grow. */
int trace_index_add(trace *tr, const table *t, mx_error *err);

/* The first table of tr made with key at step, or NULL. */
const table *trace_index_find(const trace *tr, const table_key *key, int step);

/* Frees tr's index (trace_free). */
void trace_index_free(trace *tr);

#endif
