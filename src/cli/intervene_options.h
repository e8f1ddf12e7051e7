/* intervene_options.h: the options of the interventions on a model with
 * an lm_head (model/intervene/): --ablate and --ablate-mode, --patch
 * with --clean, --corrupt, --answer and --wrong, read and checked
 * together. */
#ifndef MHA_INTERVENE_OPTIONS_H
#define MHA_INTERVENE_OPTIONS_H

#include "base/error.h"
#include "cli/options.h"

/* Reads --ablate (all-heads, or a list of heads) and refuses the
 * options of an intervention given without it. */
int validate_interventions(options *opt, mx_error *err);

/* With --patch the run's sentence is --clean's text: n_words words
 * given besides (the first, first) are refused. */
int patch_sentence(options *opt, int n_words, const char *first, mx_error *err);

/* --patch's texts are --clean's and --corrupt's, --repeat-random's is
 * drawn: a file of inputs (file_option, --input or --embeddings) given
 * too is refused. */
int patch_file_input(const options *opt, const char *file_option,
                     mx_error *err);

/* --clean, --corrupt, --answer or --wrong given without what they go
 * with (--patch, or a --metric that measures the token) is refused. */
int patch_parts_alone(const options *opt, mx_error *err);

/* Frees what validate_interventions read. */
void interventions_free(options *opt);

#endif
