/* generate_ablate.c: the hooks of a generation with heads switched off
 * (generate_ablate.h). */
#include "model/generate_ablate.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"

int generate_ablation_init(generate_ablation *a, const replace_hook *given,
                           size_t n, mx_error *err)
{
    *a = (generate_ablation){.given = given, .n = n};
    if (n == 0)
        return 0;
    a->later = calloc(n, sizeof *a->later);
    a->kept = calloc(n, sizeof *a->kept);
    if (a->later == NULL || a->kept == NULL) {
        generate_ablation_free(a);
        return err_nomem(err, _("a hook's mean"));
    }
    for (size_t i = 0; i < n; i++) {
        a->later[i] = given[i];
        if (given[i].action == HOOK_MEAN) {
            a->later[i].action = HOOK_SET;
            a->later[i].value = &a->kept[i];
        }
    }
    return 0;
}

static bool same_place(const table_key *a, const table_key *b)
{
    return a->variant == b->variant && a->layer == b->layer &&
           a->head == b->head && a->id == b->id && !a->grad && !b->grad;
}

/* The prompt's recorder: m is the activation at `at` after the hooks,
 * each of whose rows is a mean hook's mean; its first row kept. */
static int keep_mean(void *ctx, const table_key *at, const matrix *m,
                     mx_error *err)
{
    generate_ablation *a = ctx;
    for (size_t i = 0; i < a->n; i++) {
        if (a->given[i].action != HOOK_MEAN ||
            !same_place(&a->given[i].at, at) || m->rows == 0)
            continue;
        matrix_free(&a->kept[i]);
        if (matrix_alloc(&a->kept[i], 1, m->cols, N_("a hook's mean"), err) !=
            0)
            return -1;
        memcpy(a->kept[i].v, m->v, m->cols * sizeof *m->v);
    }
    return 0;
}

forward_hooks generate_ablation_prompt(generate_ablation *a)
{
    bool means = false;
    for (size_t i = 0; i < a->n; i++)
        means = means || a->given[i].action == HOOK_MEAN;
    return (forward_hooks){.replace = a->given,
                           .n_replace = a->n,
                           .record = means ? keep_mean : NULL,
                           .ctx = a};
}

forward_hooks generate_ablation_later(const generate_ablation *a)
{
    return (forward_hooks){.replace = a->later, .n_replace = a->n};
}

void generate_ablation_free(generate_ablation *a)
{
    for (size_t i = 0; a->kept != NULL && i < a->n; i++)
        matrix_free(&a->kept[i]);
    free(a->kept);
    free(a->later);
    *a = (generate_ablation){0};
}
