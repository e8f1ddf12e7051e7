/* weights.h: --weights DIR, parameters edited by hand in a spreadsheet.
 *
 * Files are named as --csv-dir writes them: <variant>.<layer>.weight.csv
 * and <variant>.<layer>.bias.csv, e.g. fused.W_query.weight.csv or
 * wrapper.heads.1.W_key.weight.csv. Every file present replaces the values
 * drawn from the seed; the others keep their drawn values, so the
 * generator's sequence does not depend on which files exist. */
#ifndef MHA_WEIGHTS_H
#define MHA_WEIGHTS_H

#include <stdbool.h>

#include "attention.h"
#include "block.h"
#include "csv_in.h"
#include "error.h"

/* Checks DIR once: it must be a readable directory, and every file in it
 * that names a parameter of a variant being run (bits of variant_bits)
 * must name one that exists, so a misspelt file is an error rather than
 * silently ignored. With tie (--tie) the fused W_query, W_key and W_value
 * come from the wrapper's heads, so a file for one of them is an error
 * too: it would be read and then silently replaced. */
int weights_check_dir(const char *dir, unsigned variants, size_t heads,
                      bool tie, mx_error *err);

int weights_load_single(single_params *p, const char *dir,
                        const csv_style *style, mx_error *err);
int weights_load_wrapper(wrapper_params *p, const char *dir,
                         const csv_style *style, mx_error *err);
int weights_load_fused(fused_params *p, const char *dir, const csv_style *style,
                       mx_error *err);
int weights_load_block(block_params *p, const char *dir, const csv_style *style,
                       mx_error *err);

#endif
