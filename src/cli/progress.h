/* progress.h: a progress line on standard error during a long --input run,
 * a long training (--train) or a long intervention (--patch, --ablate
 * all-heads).
 *
 *   mha-explain: sentence 12 of 800
 *   mha-explain: training fused: step 3100 of 100000
 *   mha-explain: --patch: pass 140 of 496
 *
 * Shown only when standard error is a terminal and --quiet is not given,
 * only once the run has taken more than a second, redrawn in place at
 * most five times a second, and erased when the run ends (before any
 * error message), so that pipes and files never see it.
 */
#ifndef MHA_PROGRESS_H
#define MHA_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

typedef struct {
    FILE *out; /* stderr, or NULL when no line is shown */
    struct timespec start;
    struct timespec last; /* when the line was last drawn */
    bool shown;           /* a line is on the screen */
} progress;

/* Starts the clock; enabled false (a pipe, --quiet) shows nothing. */
void progress_begin(progress *p, FILE *out, bool enabled);

/* Sentence `done` (from 0) of `total` is starting. */
void progress_step(progress *p, size_t done, size_t total);

/* Step `step` (from 0) of `steps` of the variant's training (--train)
 * is starting; loss is the step before's (NaN for none yet), shown when
 * finite. */
void progress_training(progress *p, const char *variant, size_t step,
                       size_t steps, float loss);

/* `done` of an intervention's `total` passes are done (option names it:
 * "--patch", "--ablate all-heads"). */
void progress_passes(progress *p, const char *option, size_t done,
                     size_t total);

/* Erases the line, if one was drawn. */
void progress_end(progress *p);

#endif
