/* csv_dir_stale.h: once a --csv-dir run's files are in place, a warning
 * on standard error naming the files of its folder that it did not
 * write: the tables (*.csv) and model.json in DIR, or in a folder
 * sentence<k> there (--input), left by an earlier run, such as
 * gpt2.ablation_map.csv after a run without --ablate all-heads. The
 * folder then mixes two runs; the warning says so, and nothing is removed
 * or changed. */
#ifndef MHA_CSV_DIR_STALE_H
#define MHA_CSV_DIR_STALE_H

#include <stdio.h>

#include "render/render.h"

/* The warning on out, when set's folder holds such files. */
void csv_dir_warn_stale(FILE *out, const csv_dir_set *set);

#endif
