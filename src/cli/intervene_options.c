/* intervene_options.c: --ablate, --ablate-mode and --patch with its texts
 * (intervene_options.h). */
#include "cli/intervene_options.h"

#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "cli/head_list.h"

/* --ablate's word for every head, one at a time. */
static const char ALL_HEADS[] = "all-heads";

/* The options that go with --patch only. */
static const int PATCH_PARTS[] = {OPT_CLEAN, OPT_CORRUPT, OPT_ANSWER,
                                  OPT_WRONG};
#define N_PATCH_PARTS (sizeof PATCH_PARTS / sizeof PATCH_PARTS[0])

/* Whether option id (--answer, --wrong) names a token --metric
 * measures. */
static bool measured(const options *opt, int id)
{
    return (id == OPT_ANSWER && opt->metric != METRIC_LOSS) ||
           (id == OPT_WRONG && opt->metric == METRIC_LOGIT_DIFF);
}

int patch_parts_alone(const options *opt, mx_error *err)
{
    for (size_t i = 0; i < N_PATCH_PARTS; i++) {
        const int id = PATCH_PARTS[i];
        if (!opt->patch && opt->given[id] && !measured(opt, id))
            return err_usage(
                err,
                id == OPT_ANSWER ? _("--%s: goes with --patch, or with "
                                     "--metric logit-diff or prob")
                : id == OPT_WRONG
                    ? _("--%s: goes with --patch, or with --metric logit-diff")
                    : _("--%s: goes with --patch"),
                option_rows[id].name);
    }
    return 0;
}

static int validate_patch(const options *opt, mx_error *err)
{
    if (patch_parts_alone(opt, err) != 0)
        return -1;
    for (size_t i = 0; i < N_PATCH_PARTS; i++) {
        const int id = PATCH_PARTS[i];
        if (opt->patch && !opt->given[id])
            return err_usage(err,
                             _("--patch: needs --clean TEXT, --corrupt TEXT, "
                               "--answer TOKEN and --wrong TOKEN (--%s is "
                               "missing)"),
                             option_rows[id].name);
    }
    if (opt->repeat_random > 0 && !opt->head_scores)
        return err_usage(err, _("%s: goes with --head-scores"),
                         "--repeat-random");
    if (opt->patch + (opt->ablate != NULL) + opt->head_scores > 1)
        return err_usage(err, _("--ablate, --patch and --head-scores: one "
                                "intervention at a time"));
    // the lens reads the model as it is: not an ablated or patched one
    if (opt->logit_lens && (opt->patch || opt->ablate != NULL))
        return err_usage(err,
                         _("--logit-lens: reads the model as it is, so "
                           "it does not go with %s"),
                         opt->patch ? "--patch" : "--ablate");
    // generation runs one model step by step: the model as it is, or
    // with the heads of --ablate L.H switched off
    if (opt->generate > 0 && (opt->patch || opt->head_scores))
        return err_usage(err,
                         _("--generate: generates with the model as it is, "
                           "so it does not go with %s"),
                         opt->patch ? "--patch" : "--head-scores");
    if (opt->generate > 0 && opt->ablate != NULL &&
        strcmp(opt->ablate, ALL_HEADS) == 0)
        return err_usage(err,
                         _("--generate: generates with the heads of --ablate "
                           "L.H[,L.H...] switched off, one model, so it does "
                           "not go with --ablate all-heads"));
    // the scores read one text: BERT's second one would not be scored
    if (opt->head_scores && opt->pair != NULL)
        return err_usage(err,
                         _("--head-scores: scores one text, so it does not "
                           "go with %s"),
                         "--pair");
    if (opt->logit_lens && opt->repeat_random > 0)
        return err_usage(err, _("--logit-lens: reads the sentence, so it "
                                "does not go with --repeat-random"));
    // the page shows a sentence's tables; a drawn text makes none
    if (opt->html != NULL && opt->repeat_random > 0)
        return err_usage(err, _("--html: the page shows a sentence's "
                                "tables, which --repeat-random does not "
                                "make: draw its scores with --plot FILE or "
                                "write them with --csv-dir DIR"));
    return 0;
}

int patch_sentence(options *opt, int n_words, const char *first, mx_error *err)
{
    if (n_words > 0 && opt->patch)
        return err_usage(err,
                         _("--patch: the texts are --clean's and "
                           "--corrupt's, so '%s' cannot be a sentence too"),
                         first);
    if (n_words > 0)
        return err_usage(err,
                         _("--repeat-random: the text is drawn, so '%s' "
                           "cannot be a sentence too"),
                         first);
    // the run's tables are the clean text's (an empty text when --clean
    // is missing, which validate_patch refuses)
    opt->sentence = strdup(opt->patch_clean != NULL ? opt->patch_clean : "");
    if (opt->sentence == NULL)
        return err_nomem(err, _("the sentence"));
    return 0;
}

int patch_file_input(const options *opt, const char *file_option, mx_error *err)
{
    if (opt->patch)
        return err_usage(err,
                         _("--patch: the texts are --clean's and "
                           "--corrupt's, so %s cannot give sentences too"),
                         file_option);
    if (opt->repeat_random > 0)
        return err_usage(err,
                         _("--repeat-random: the text is drawn, so %s "
                           "cannot give sentences too"),
                         file_option);
    return 0;
}

/* --metric: with --ablate all-heads, and the tokens it measures. */
static int validate_metric(const options *opt, mx_error *err)
{
    if (!opt->given[OPT_METRIC])
        return 0;
    if (opt->ablate == NULL || strcmp(opt->ablate, ALL_HEADS) != 0)
        return err_usage(err, _("%s: goes with --ablate all-heads"),
                         "--metric");
    if (opt->metric == METRIC_LOGIT_DIFF &&
        (opt->patch_answer == NULL || opt->patch_wrong == NULL))
        return err_usage(err, _("--metric logit-diff: needs --answer TOKEN "
                                "and --wrong TOKEN"));
    if (opt->metric == METRIC_PROB && opt->patch_answer == NULL)
        return err_usage(err, _("--metric prob: needs --answer TOKEN"));
    return 0;
}

int validate_interventions(options *opt, mx_error *err)
{
    if (validate_patch(opt, err) != 0 || validate_metric(opt, err) != 0)
        return -1;
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
