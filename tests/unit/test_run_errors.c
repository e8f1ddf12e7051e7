/* test_run_errors.c: the mistakes the model tells in numbers (err's
 * detail, base/error.h) and the messages the command line writes for
 * them (cli/run_errors.h): an item of --layers, --show-heads or --ablate
 * past the model's sizes quoted as typed (cli/index_list.h's list_item),
 * the model's checks that return them (a checkpoint's shown layers and
 * heads, a lesson run's --ablate), and the other mistakes' messages with
 * the option named from its row. The messages are the English ones. */
#include <stdlib.h>
#include <string.h>

#include "cli/index_list.h"
#include "cli/options.h"
#include "cli/run_errors.h"
#include "model/checkpoint_run.h"
#include "model/lesson/lesson_ablate.h"
#include "model/lesson/model.h"
#include "tap.h"

/* Whether item k of list is want, as typed. */
static bool item_is(const char *list, size_t k, const char *want)
{
    size_t len;
    const char *p = list_item(list, k, &len);
    return len == strlen(want) && strncmp(p, want, len) == 0;
}

static void test_list_item(void)
{
    ok(item_is("0,3,5-7", 0, "0") && item_is("0,3,5-7", 1, "3") &&
           item_is("0,3,5-7", 2, "5-7"),
       "list_item: each item of 0,3,5-7 as typed");
    ok(item_is("0,3,5-7", 3, "") && item_is(NULL, 0, ""),
       "list_item: past the last item, or no list: empty");
    ok(item_is(" 2,,007", 0, " 2") && item_is(" 2,,007", 1, "") &&
           item_is(" 2,,007", 2, "007"),
       "list_item: spaces and zeros kept, an empty item empty");
    // the items the parsers read are list_item's, in order
    index_range *r = NULL;
    size_t n = 0;
    mx_error err = {0};
    const int rc = index_list_parse(&r, &n, " 1, 04-5,9", "--layers", &err);
    ok(rc == 0 && n == 3 && r[1].lo == 4 && r[1].hi == 5 &&
           item_is(" 1, 04-5,9", 1, " 04-5"),
       "index_list_parse: item 1 is 4 to 5, typed ' 04-5'");
    free(r);
}

/* err after run_error_message(opt) of the detail {what, item, a, b}. */
static mx_error message_of(const options *opt, int what, size_t item, size_t a,
                           size_t b)
{
    mx_error err = {0};
    err_detail_set(&err, what, item, a, b);
    run_error_message(&err, opt);
    return err;
}

/* Whether err is a status-2 error whose message is want, its detail
 * spent. */
static bool says(const mx_error *err, const char *want)
{
    const bool same = strcmp(err->msg, want) == 0;
    if (!same)
        diag("got: %s", err->msg);
    return same && err->status == EXIT_BAD_INPUT && err->detail.what == 0;
}

static void test_list_messages(void)
{
    options opt = {0};
    opt.layers = "0, 5-7";
    opt.show_heads = "3,12";
    opt.ablate = "0.1,01.009";
    mx_error err = message_of(&opt, RUN_LIST_LAYERS, 1, 2, 0);
    ok(says(&err, "--layers:  5-7 is out of range; the model has 2 (0 to 1)") &&
           err.usage,
       "--layers: the item as typed, the model's layers; a usage error");
    err = message_of(&opt, RUN_LIST_SHOW_HEADS, 1, 12, 0);
    ok(says(&err,
            "--show-heads: 12 is out of range; the model has 12 (0 to 11)"),
       "--show-heads: the second item");
    err = message_of(&opt, RUN_LIST_ABLATE, 1, 2, 2);
    ok(says(&err, "--ablate: 01.009 is out of range; the model has layers "
                  "0 to 1 and heads 0 to 1"),
       "--ablate: the head as typed, the model's layers and heads");
}

static void test_other_messages(void)
{
    const options opt = {0};
    mx_error err = message_of(&opt, RUN_NEEDS_LM_HEAD, RUN_LOGIT_LENS, 0, 0);
    ok(says(&err, "--logit-lens: needs a model with an lm_head (--model "
                  "DIR); this family cannot run it"),
       "an lm_head missing: the intervention's option by its row");
    err = message_of(&opt, RUN_NEEDS_LM_HEAD, RUN_PATCH, 1, 0);
    ok(says(&err, "--patch: reads the model's next-token predictions, "
                  "which this checkpoint does not make: its attention looks "
                  "both ways, so each token already sees the one after it "
                  "(--head-scores runs on it)") &&
           err.usage,
       "a model whose attention looks both ways: no next-token "
       "predictions, --head-scores named");
    err = message_of(&opt, RUN_NOT_ON_PAGE, RUN_PATCH, 0, 0);
    ok(says(&err, "--patch: the page runs no interventions; run "
                  "mha-explain on the command line"),
       "the page's refusal names the option");
    err = message_of(&opt, RUN_ONE_TOKEN, RUN_HEAD_SCORES, 0, 0);
    ok(says(&err, "--head-scores: the text has one token; a head's pattern "
                  "needs two or more") &&
           !err.usage,
       "one token for --head-scores: an input error");
    err = message_of(&opt, RUN_ONE_TOKEN, RUN_ABLATE, 0, 0);
    ok(says(&err, "--ablate: the text has one token; the loss needs a next "
                  "token to predict"),
       "one token for --ablate's loss");
    err = message_of(&opt, RUN_REPEAT_TOO_LONG, 2, 12, 24);
    ok(says(&err, "--repeat-random: 12 tokens twice and the 2 special "
                  "tokens around them are more than the model's 24 "
                  "positions") &&
           !err.usage,
       "--repeat-random: the special tokens around the words counted");
    err = message_of(&opt, RUN_REPEAT_TOO_LONG, 0, 9, 16);
    ok(says(&err, "--repeat-random: 9 tokens twice are more than the "
                  "model's 16 positions"),
       "--repeat-random: its count and the positions");
    err = message_of(&opt, RUN_REPEAT_TOO_LONG, 0, 1, 1);
    ok(says(&err, "--repeat-random: 1 tokens twice are more than the "
                  "model's 1 position"),
       "--repeat-random: one position, in the singular");
    err = message_of(&opt, RUN_REPEAT_TOO_LONG, 2, 1, 1);
    ok(says(&err, "--repeat-random: 1 tokens twice and the 2 special "
                  "tokens around them are more than the model's 1 "
                  "position"),
       "--repeat-random with special tokens: one position, in the singular");
    err = message_of(&opt, RUN_FIXED_BY_CHECKPOINT, RUN_INPUT_EMBEDDINGS, 0, 0);
    ok(says(&err, "--embeddings: does not go with --model (the checkpoint "
                  "fixes its sizes, parameters and tokens)"),
       "an input a checkpoint fixes, by its option's row");
    err = message_of(&opt, RUN_D_MODEL_EMBEDDINGS, 0, 7, 1);
    ok(says(&err, "--d-model 7: the embeddings have 1 column (d_model is "
                  "taken from the file)"),
       "--d-model against the embeddings: one column, singular");
    err = message_of(&opt, RUN_HEADS_DIVIDE, 0, 2, 3);
    ok(says(&err, "--heads: 2 heads do not divide --d-model 3 (the block's "
                  "attention is d_model wide: each head needs d_model / "
                  "heads columns)"),
       "heads that do not divide d_model");
    err = (mx_error){0};
    err_input(&err, "%s", "as it was");
    run_error_message(&err, &opt);
    ok(strcmp(err.msg, "as it was") == 0, "an error without detail is kept");
    err_detail_set(&err, RUN_LIST_LAYERS, 0, 1, 0);
    err_input(&err, "%s", "another");
    ok(err.detail.what == 0, "a message written clears the detail");
}

static void test_model_checks(void)
{
    // a checkpoint of 2 layers and 12 heads: --layers 0,1-2
    const index_range layers[] = {{0, 0}, {1, 2}};
    const index_range heads[] = {{11, 11}};
    run_request rq = {.layers = layers, .n_layers = 2};
    checkpoint_run r = {0};
    mx_error err = {0};
    ok(checkpoint_run_shown(&r, 2, 12, &rq, &err) != 0 &&
           err.detail.what == RUN_LIST_LAYERS && err.detail.item == 1 &&
           err.detail.n[0] == 2 && err.msg[0] == '\0',
       "a checkpoint's shown layers: item 1 past its 2 layers");
    checkpoint_run_free(&r);
    rq = (run_request){.show_heads = heads, .n_show_heads = 1};
    ok(checkpoint_run_shown(&r, 2, 12, &rq, &err) == 0 && r.heads[11] &&
           !r.heads[10],
       "a head in range is shown, alone");
    checkpoint_run_free(&r);
    // the wrapper of 2 heads: one layer; --ablate 0.1,0.2
    const head_ref ablate[] = {{0, 1}, {0, 2}};
    rq = (run_request){.model = {.heads = 2},
                       .variants = VARIANT_WRAPPER,
                       .ablate = ablate,
                       .n_ablate = 2};
    ok(lesson_ablate_alone(&rq, &err) < 0 &&
           err.detail.what == RUN_LIST_ABLATE && err.detail.item == 1 &&
           err.detail.n[0] == 1 && err.detail.n[1] == 2,
       "a lesson run's --ablate: item 1 past 1 layer and 2 heads");
}

int main(void)
{
    test_list_item();
    test_list_messages();
    test_other_messages();
    test_model_checks();
    return tap_done();
}
