/* generate_ablate.h: the hooks of a generation that switches heads off
 * (--generate with --ablate, generate_options.replace), step by step
 * over the key/value cache.
 *
 * The prompt's step runs the hooks as the run gives them: a zero sets
 * the head's output z (T x hd) to 0, a mean sets each column to its mean
 * over the prompt's T positions (hooks.h's HOOK_MEAN). Each later step
 * feeds one new position (z is 1 x hd), whose mean over itself would
 * be itself; so the mean is the one taken on the prompt, kept and set
 * at every later step (HOOK_SET), as a PyTorch hook that keeps the mean
 * of the first forward does (tests/reference/make_generate_reference.py).
 * A zero stays a zero, and a mean over --corpus, taken before the run
 * (model/intervene/corpus_mean.h, hooks.h's HOOK_ROW), is set as given
 * at every step, as a PyTorch hook setting the corpus's mean at every
 * forward does (tests/reference/make_intervention_reference.py's
 * CORPUS_GENERATE_CASES).
 *
 *   prompt   hooks: the given ones, and a recorder keeping each mean
 *   later    hooks: the zeros as given, the means set to what was kept
 */
#ifndef MHA_GENERATE_ABLATE_H
#define MHA_GENERATE_ABLATE_H

#include <stddef.h>

#include "base/error.h"
#include "model/hooks.h"
#include "numerics/tensor.h"

typedef struct {
    const replace_hook *given; /* n: the run's hooks; the caller's */
    replace_hook *later;       /* n: the later steps' hooks; owned */
    matrix *kept;              /* n: a mean's row (1 x hd), else empty;
                                  owned */
    size_t n;
} generate_ablation;

/* a over the n hooks given (n may be 0: no hooks). */
int generate_ablation_init(generate_ablation *a, const replace_hook *given,
                           size_t n, mx_error *err);

/* The hooks of the prompt's step (given, and the recorder keeping the
 * means into a) and of every later step (a's later ones). */
forward_hooks generate_ablation_prompt(generate_ablation *a);
forward_hooks generate_ablation_later(const generate_ablation *a);

void generate_ablation_free(generate_ablation *a);

#endif
