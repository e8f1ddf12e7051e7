/* intervene_options.c: --ablate and --ablate-mode (intervene_options.h). */
#include "cli/intervene_options.h"

#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "cli/head_list.h"

/* --ablate's word for every head, one at a time. */
static const char ALL_HEADS[] = "all-heads";

int validate_interventions(options *opt, mx_error *err)
{
    if (opt->ablate == NULL) {
        if (opt->given[OPT_ABLATE_MODE])
            return err_usage(err, _("%s: goes with --ablate"), "--ablate-mode");
        return 0;
    }
    opt->ablate_all = strcmp(opt->ablate, ALL_HEADS) == 0;
    if (opt->ablate_all)
        return 0;
    return head_list_parse(&opt->ablate_heads, &opt->n_ablate_heads,
                           opt->ablate, "--ablate", err);
}

void interventions_free(options *opt)
{
    free(opt->ablate_heads);
    opt->ablate_heads = NULL;
    opt->n_ablate_heads = 0;
}
