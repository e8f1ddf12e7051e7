/* weights_options.h: the run a --weights folder makes.
 *
 * A trained model's folder (--csv-dir of --train: it holds an
 * embedding.weight file) makes the run a trained one, with --train 0
 * unless --train N continues the training. Its model.json
 * (model/manifest.h) gives the sizes, the variants, the positions and the
 * tokens, so the run needs none of those options; an option that repeats
 * one is accepted, one that contradicts it is an error naming both
 * values. Its training's seed is the run's --seed unless --seed is
 * given (a seed is a choice of draws, not part of the model): the
 * folder read back draws what its training run drew (--repeat-random,
 * --sample). A run never mixes trained and seeded modules: without
 * --variant it runs the folder's trained variants, and a --variant that
 * names a variant the folder has not trained is an error.
 */
#ifndef MHA_WEIGHTS_OPTIONS_H
#define MHA_WEIGHTS_OPTIONS_H

#include "base/error.h"
#include "cli/options.h"
#include "model/lesson/weights.h"

/* *run = opt as the folder whose files are open in files makes it (see
 * above), checked again; files stays the caller's. */
int weights_options(options *run, const options *opt,
                    const weights_files *files, mx_error *err);

#endif
