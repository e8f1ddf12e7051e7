/* run_errors.c: the messages of the model's mistakes told in numbers
 * (run_errors.h). */
#include "cli/run_errors.h"

#include <stdio.h>

#include "base/i18n.h"
#include "cli/index_list.h"
#include "cli/option_table.h"
#include "model/family.h"
#include "model/run_request.h"

/* The option that asks for intervention i (enum run_intervention). */
static enum option_id intervention_option(size_t i)
{
    static const enum option_id of[] = {
        [RUN_ABLATE] = OPT_ABLATE,
        [RUN_PATCH] = OPT_PATCH,
        [RUN_HEAD_SCORES] = OPT_HEAD_SCORES,
        [RUN_LOGIT_LENS] = OPT_LOGIT_LENS,
    };
    return i < sizeof of / sizeof of[0] ? of[i] : OPT_ABLATE;
}

/* The family of opt's checkpoint by its name in messages ("BERT"),
 * translated; "this checkpoint" when the folder names none. */
static const char *family_title(const options *opt)
{
    mx_error ignored;
    const model_family *row =
        opt->model != NULL
            ? family_of(&(run_request){.checkpoint = opt->model}, &ignored)
            : NULL;
    return row != NULL && row->title != NULL ? _(row->title)
                                             : _("this checkpoint");
}

/* "--name" of option id into flag. */
static void flag_of(char *flag, size_t size, enum option_id id)
{
    snprintf(flag, size, "--%s", option_rows[id].name);
}

/* An item of --layers, --show-heads or --ablate past the model's sizes,
 * quoted as typed. */
static void list_message(mx_error *err, const err_detail *d, const options *opt)
{
    size_t len;
    if (d->what == RUN_LIST_ABLATE) {
        const char *typed = list_item(opt->ablate, d->item, &len);
        err_usage(
            err,
            _("--ablate: %.*s is out of range; the model has layers 0 to %zu and heads 0 to %zu"),
            (int)len, typed, d->n[0] - 1, d->n[1] - 1);
        return;
    }
    // a list such as 0,3,5-7 (index_list.h)
    const bool layers = d->what == RUN_LIST_LAYERS;
    const char *typed =
        list_item(layers ? opt->layers : opt->show_heads, d->item, &len);
    char flag[64];
    flag_of(flag, sizeof flag, layers ? OPT_LAYERS : OPT_SHOW_HEADS);
    err_usage(err, _("%s: %.*s is out of range; the model has %zu (0 to %zu)"),
              flag, (int)len, typed, d->n[0], d->n[0] - 1);
}

/* The mistakes of a lesson model's run (model/lesson/). */
static void lesson_message(mx_error *err, const err_detail *d)
{
    switch ((enum run_mistake)d->what) {
    case RUN_LESSON_UNTRAINED:
        if (d->item == RUN_LOGIT_LENS)
            err_usage(err,
                      _("%s: a lesson model has an lm_head only once "
                        "trained (--train N, or a trained --weights DIR)"),
                      "--logit-lens");
        else
            err_usage(err, _("--ablate, --patch and --head-scores: a lesson "
                             "model has an lm_head only once trained "
                             "(--train N, or a trained --weights DIR)"));
        return;
    case RUN_LESSON_NOT_BLOCK:
        if (d->item == RUN_LOGIT_LENS)
            err_usage(err,
                      _("%s: a lesson model is one --variant block (a "
                        "block, or --layers N of them)"),
                      "--logit-lens");
        else
            err_usage(err, _("--ablate, --patch and --head-scores: a lesson "
                             "model is one --variant block (a block, or "
                             "--layers N of them)"));
        return;
    case RUN_GENERATE_UNTRAINED:
        err_usage(err, _("--generate: a lesson model has an lm_head only "
                         "once trained: it goes with --train N, a trained "
                         "--weights DIR, or --model DIR"));
        return;
    case RUN_D_MODEL_EMBEDDINGS:
        err_usage(err,
                  ngettext("--d-model %zu: the embeddings have %zu column "
                           "(d_model is taken from the file)",
                           "--d-model %zu: the embeddings have %zu columns "
                           "(d_model is taken from the file)",
                           d->n[1]),
                  d->n[0], d->n[1]);
        return;
    case RUN_HEADS_DIVIDE:
        err_usage(err,
                  _("--heads: %zu heads do not divide --d-model %zu "
                    "(the block's attention is d_model wide: each "
                    "head needs d_model / heads columns)"),
                  d->n[0], d->n[1]);
        return;
    default:
        return;
    }
}

void run_error_message(mx_error *err, const options *opt)
{
    const err_detail d = err->detail;
    char flag[64];
    switch ((enum run_mistake)d.what) {
    case RUN_MISTAKE_NONE:
        return;
    case RUN_LIST_LAYERS:
    case RUN_LIST_SHOW_HEADS:
    case RUN_LIST_ABLATE:
        list_message(err, &d, opt);
        return;
    case RUN_NEEDS_LM_HEAD:
        flag_of(flag, sizeof flag, intervention_option(d.item));
        if (d.n[0] == 1)
            err_usage(
                err,
                _("%s: reads the model's next-token predictions, which %s does not make: its attention looks both ways, so each token already sees the one after it (--head-scores runs on it)"),
                flag, family_title(opt));
        else
            err_usage(
                err,
                _("%s: needs a model with an lm_head (--model DIR); this family cannot run it"),
                flag);
        return;
    case RUN_NOT_ON_PAGE:
        flag_of(flag, sizeof flag, intervention_option(d.item));
        err_usage(err,
                  _("%s: the page runs no interventions; run "
                    "mha-explain on the command line"),
                  flag);
        return;
    case RUN_ONE_TOKEN:
        if (d.item == RUN_HEAD_SCORES)
            err_input(err, _("--head-scores: the text has one token; a "
                             "head's pattern needs two or more"));
        else
            err_input(err, _("--ablate: the text has one token; the loss "
                             "needs a next token to predict"));
        return;
    case RUN_REPEAT_TOO_LONG:
        if (d.item > 0)
            err_input(
                err,
                ngettext(
                    "--repeat-random: %zu tokens twice and the %zu special tokens around them are more than the model's %zu position",
                    "--repeat-random: %zu tokens twice and the %zu special tokens around them are more than the model's %zu positions",
                    d.n[1]),
                d.n[0], d.item, d.n[1]);
        else
            err_input(
                err,
                ngettext(
                    "--repeat-random: %zu tokens twice are more than the model's %zu position",
                    "--repeat-random: %zu tokens twice are more than the model's %zu positions",
                    d.n[1]),
                d.n[0], d.n[1]);
        return;
    case RUN_FIXED_BY_CHECKPOINT:
        flag_of(flag, sizeof flag,
                d.item == RUN_INPUT_KV ? OPT_KV : OPT_EMBEDDINGS);
        err_usage(
            err,
            _("%s: does not go with --model (the checkpoint fixes its sizes, parameters and tokens)"),
            flag);
        return;
    case RUN_LESSON_UNTRAINED:
    case RUN_LESSON_NOT_BLOCK:
    case RUN_GENERATE_UNTRAINED:
    case RUN_D_MODEL_EMBEDDINGS:
    case RUN_HEADS_DIVIDE:
        lesson_message(err, &d);
        return;
    }
}
