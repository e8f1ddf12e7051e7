/* progress.c: the progress line of a long --input run. */
#include "cli/progress.h"

#include "base/i18n.h"

#include <math.h>

#define PROGRESS_AFTER 1.0 /* seconds before the first line */
#define PROGRESS_EVERY 0.2 /* seconds between redraws */

static double seconds_between(const struct timespec *a,
                              const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) +
           (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

void progress_begin(progress *p, FILE *out, bool enabled)
{
    p->out = enabled ? out : NULL;
    p->shown = false;
    clock_gettime(CLOCK_MONOTONIC, &p->start);
    p->last = p->start;
}

/* Whether a line is due now: after the first second, at most every
 * PROGRESS_EVERY; then it is erased, to be redrawn in place. */
static bool progress_due(progress *p)
{
    if (p->out == NULL)
        return false;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (seconds_between(&p->start, &now) < PROGRESS_AFTER ||
        (p->shown && seconds_between(&p->last, &now) < PROGRESS_EVERY))
        return false;
    /* \r and "erase to the end of the line": the line is redrawn in place */
    fputs("\r\033[K", p->out);
    p->shown = true;
    p->last = now;
    return true;
}

void progress_step(progress *p, size_t done, size_t total)
{
    if (!progress_due(p))
        return;
    /* TRANSLATORS: the progress line of a long --input run */
    fprintf(p->out, _("mha-explain: sentence %zu of %zu"), done + 1, total);
    fflush(p->out);
}

void progress_training(progress *p, const char *variant, size_t step,
                       size_t steps, float loss)
{
    if (!progress_due(p))
        return;
    if (isfinite(loss))
        /* TRANSLATORS: the progress line of a long training (--train); %s
         * is the variant (single, wrapper, fused, block), %.4f the loss of
         * the step before */
        fprintf(p->out,
                _("mha-explain: training %s: step %zu of %zu, loss "
                  "%.4f"),
                variant, step + 1, steps, (double)loss);
    else
        /* TRANSLATORS: the progress line of a long training (--train); %s
         * is the variant (single, wrapper, fused, block) */
        fprintf(p->out, _("mha-explain: training %s: step %zu of %zu"), variant,
                step + 1, steps);
    fflush(p->out);
}

void progress_passes(progress *p, const char *option, size_t done, size_t total)
{
    if (!progress_due(p))
        return;
    /* TRANSLATORS: the progress line of a long intervention; %s is its
     * option (--patch, --ablate all-heads), then the passes done and
     * all of them */
    fprintf(p->out, _("mha-explain: %s: pass %zu of %zu"), option, done, total);
    fflush(p->out);
}

void progress_end(progress *p)
{
    if (p->out != NULL && p->shown) {
        fputs("\r\033[K", p->out);
        fflush(p->out);
    }
    p->shown = false;
}
