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
#include <stdio.h>

#include "io/csv_in.h"
#include "base/error.h"
#include "model/lesson/manifest.h"
#include "model/lesson/model.h"

/* A parameter file the folder check found, open for reading. */
typedef struct {
    char *name; /* "<variant>.<layer>.weight.csv", in the folder */
    FILE *f;
} weights_file;

/* The parameter files of a --weights folder, each opened once by the
 * check: what the check saw is what the run reads, even if a file is
 * removed or replaced in between (no silent fall back on seeded values). */
typedef struct weights_files {
    char *dir; /* the folder, as given */
    weights_file *files;
    size_t n;
    trained_manifest manifest; /* the folder's model.json, if any */
} weights_files;

/* Checks DIR once and opens its parameter files into *w (which the caller
 * frees with weights_files_free, on success only): it must be a readable
 * directory holding at least one parameter file of the variants being
 * run (bits of variant_bits), and every file in it that names a parameter
 * of a variant being run must name one that exists
 * (model_params_each, with --heads heads and --layers layers: a stack's
 * files name its blocks, "block.1.norm1.weight.csv"), so a misspelt
 * file is an error rather than
 * silently ignored, and must open as a regular file, else the run fails
 * naming it. With tie (--tie) the fused W_query, W_key and W_value come
 * from the wrapper's heads, so a file for one of them is an error too: it
 * would be read and then silently replaced. */
/*
 * The folder is read as one: listed and its files opened under a shared
 * lock (flock) on it, which a run putting its --csv-dir files there holds
 * exclusively while it moves them in (io/outputs.h), so the files opened
 * all come from one run. A trained model's folder holds model.json
 * (manifest.h): its variants and sizes then replace the run's in the
 * check (variants, heads, layers), and every file of its model must be
 * there: its parameters, embedding, lm_head and, with positions, its
 * pos_embedding; a file of the model it does not describe is an error. */
int weights_open_dir(weights_files *w, const char *dir, unsigned variants,
                     size_t heads, size_t layers, bool tie, mx_error *err);

/* The tables of a trained run (--train) that --csv-dir saves:
 * <variant>.embedding.weight.csv (its rows labelled by the vocabulary),
 * <variant>.pos_embedding.weight.csv and <variant>.lm_head.weight.csv.
 *
 * weights_read_table reads one whole, with its row labels (*n of them,
 * owned by the caller, as read_embeddings does): 1 when read, 0 when
 * the folder has no such file, -1 on an error. weights_load_table reads
 * one into m, whose shape it must have: 0 when read or absent, -1 on an
 * error. */
int weights_read_table(char ***rows, size_t *n, matrix *m,
                       const weights_files *w, variant_id v, table_id id,
                       const csv_style *style, size_t max_width, mx_error *err);
int weights_load_table(matrix *m, const weights_files *w, variant_id v,
                       table_id id, const csv_style *style, mx_error *err);
bool weights_has_table(const weights_files *w, variant_id v, table_id id);

/* weights_load_table for a table whose rows are the trained vocabulary
 * (embedding.weight, lm_head.weight): row i must be labelled words[i],
 * so rows sorted in a spreadsheet are an error, never vectors paired
 * with other words. */
int weights_load_words(matrix *m, const char *const *words,
                       const weights_files *w, variant_id v, table_id id,
                       const csv_style *style, mx_error *err);

/* Closes the files and frees w. */
void weights_files_free(weights_files *w);

/* Reads each parameter of module (the module of `variant`, one bit:
 * model_params_each) that has a file in files, from that file's start
 * (so every sentence of --input reads the same values); a file for a bias
 * the module lacks is an error. */
int weights_load(unsigned variant, const model_dims *dims, void *module,
                 const weights_files *files, const csv_style *style,
                 mx_error *err);

#endif
