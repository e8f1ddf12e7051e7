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
#include <stddef.h>

#include "io/csv_in.h"
#include "cli/error.h"
#include "model/model.h"

/* Checks DIR once: it must be a readable directory, and every file in it
 * that names a parameter of a variant being run (bits of variant_bits)
 * must name one that exists (model_params_each), so a misspelt file is an
 * error rather than silently ignored. With tie (--tie) the fused W_query,
 * W_key and W_value come from the wrapper's heads, so a file for one of
 * them is an error too: it would be read and then silently replaced. */
int weights_check_dir(const char *dir, unsigned variants, size_t heads,
                      bool tie, mx_error *err);

/* Reads <dir>/<variant>.<name>.csv over each parameter of module (the
 * module of `variant`, one bit: model_params_each) whose file is present;
 * a file for a bias the module lacks is an error. */
int weights_load(unsigned variant, const model_dims *dims, void *module,
                 const char *dir, const csv_style *style, mx_error *err);

#endif
