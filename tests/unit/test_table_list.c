/* test_table_list.c: --tables' names read into the model's picks
 * (cli/table_list.h): a catalogue row by its id, a parameter by its name,
 * "<name>.grad" of the lesson's modules as that name's gradient, and a
 * checkpoint's names whole; and the picks the command line hands the
 * model (run_request_of), in the order given. */
#include <stdlib.h>
#include <string.h>

#include "cli/model_options.h"
#include "cli/options.h"
#include "cli/table_list.h"
#include "tap.h"

/* Whether p is {id, name, grad}. */
static bool is(const table_pick *p, table_id id, const char *name, bool grad)
{
    return p->id == id && strcmp(p->name, name) == 0 && p->grad == grad;
}

static void test_lesson_names(void)
{
    static const char *const typed[] = {
        "attn_weights",     "W_query.weight",
        "attn_scores.grad", "heads.1.W_key.weight.grad",
        "x.grad.grad",      ".grad",
        "no_such"};
    table_list l = {0};
    mx_error err = {0};
    const int rc = table_list_read(&l, typed, 7, false, &err);
    ok(rc == 0 && l.picks != NULL, "seven names read");
    if (rc != 0)
        return;
    const table_pick *p = l.picks;
    ok(is(&p[0], TABLE_ATTN_WEIGHTS, "attn_weights", false),
       "a table of the catalogue: its row");
    ok(is(&p[1], TABLE_COUNT, "W_query.weight", false),
       "a parameter: no row, its name");
    ok(is(&p[2], TABLE_ATTN_SCORES, "attn_scores", true) &&
           table_pick_row(&p[2]) == TABLE_COUNT,
       "a table's gradient: its row, marked a gradient (no table the "
       "forward pass makes)");
    ok(is(&p[3], TABLE_COUNT, "heads.1.W_key.weight", true),
       "a parameter's gradient: its name without .grad");
    ok(is(&p[4], TABLE_COUNT, "x.grad", true),
       "only the last .grad is the gradient's");
    ok(is(&p[5], TABLE_COUNT, ".grad", false),
       ".grad alone names nothing's gradient");
    ok(is(&p[6], TABLE_COUNT, "no_such", false), "no table's name: no row");
    table_list_free(&l);
    ok(l.picks == NULL && l.names == NULL, "freed");
}

static void test_checkpoint_names(void)
{
    static const char *const typed[] = {
        "lm_head.weight", "embeddings.word_embeddings.weight.grad", "logits"};
    table_list l = {0};
    mx_error err = {0};
    if (table_list_read(&l, typed, 3, true, &err) != 0) {
        ok(0, "a checkpoint's names read");
        return;
    }
    ok(is(&l.picks[0], TABLE_LM_HEAD, "lm_head.weight", false),
       "a checkpoint's parameter named as a row keeps both");
    ok(is(&l.picks[1], TABLE_COUNT, "embeddings.word_embeddings.weight.grad",
          false),
       "a checkpoint's name is read whole: it has no gradients");
    ok(is(&l.picks[2], TABLE_LOGITS, "logits", false), "logits: its row");
    // read again (the list held before is freed)
    if (table_list_read(&l, typed, 1, false, &err) == 0)
        ok(is(&l.picks[0], TABLE_LM_HEAD, "lm_head.weight", false),
           "a list read again replaces the one before");
    table_list_free(&l);
}

static void test_request(void)
{
    char *argv[] = {"mha-explain", "--train",
                    "1",           "--grad",
                    "--tables",    "W_query.weight.grad,attn_weights,logits",
                    "o gato",      NULL};
    options opt;
    mx_error err = {0};
    if (options_parse(&opt, 7, argv, &err) != 0) {
        ok(0, "the command line parses: %s", err.msg);
        options_free(&opt);
        return;
    }
    const run_request rq = run_request_of(&opt);
    ok(rq.n_tables == 3 &&
           is(&rq.tables[0], TABLE_COUNT, "W_query.weight", true) &&
           is(&rq.tables[1], TABLE_ATTN_WEIGHTS, "attn_weights", false) &&
           is(&rq.tables[2], TABLE_LOGITS, "logits", false) && rq.logits,
       "the request carries the picks in the order given, logits among "
       "them");
    options_free(&opt);
    char *none[] = {"mha-explain", "o gato", NULL};
    if (options_parse(&opt, 2, none, &err) == 0) {
        const run_request all = run_request_of(&opt);
        ok(all.tables == NULL && all.n_tables == 0,
           "without --tables the request names none (every table)");
    }
    options_free(&opt);
}

int main(void)
{
    test_lesson_names();
    test_checkpoint_names();
    test_request();
    return tap_done();
}
