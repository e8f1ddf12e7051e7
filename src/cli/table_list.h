/* table_list.h: the names --tables gives, such as
 * attn_weights,W_query.weight,context.grad, read into what the model is
 * asked for (model/pipeline.h's table_pick): a row of the catalogue or a
 * parameter, and for the lesson's modules "<name>.grad", the gradient of
 * one (--grad). A checkpoint has no gradients: its names are read whole,
 * as its family names its parameters. The names as typed stay in the
 * options, for the filter of the output and the messages. */
#ifndef MHA_TABLE_LIST_H
#define MHA_TABLE_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "model/run_request.h"

/* The names read: one pick per name, in the order given. */
typedef struct {
    table_pick *picks; /* owned */
    char *names;       /* the picks' names one after another, each ended
                          by '\0'; owned */
} table_list;

/* Whether name is "<base>.grad" with a base of at least one character;
 * *base_len (if not NULL) is the base's length. */
bool table_name_is_grad(const char *name, size_t *base_len);

/* Reads typed[0..n) into *out (a list held before is freed); whole: the
 * names of a checkpoint's run (--model), read whole. Fails only when
 * memory runs out. */
int table_list_read(table_list *out, const char *const *typed, size_t n,
                    bool whole, mx_error *err);

void table_list_free(table_list *l);

#endif
