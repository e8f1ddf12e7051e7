/* test_catalogue.c: the catalogue of tables (model/catalogue.h) against
 * what a run makes: every table a run makes has its row's shape in the
 * notebook's letters, pipeline_makes_table names exactly the tables made,
 * and the rows themselves are consistent (unique names, a head's tables
 * side by side). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/model_options.h"
#include "cli/options.h"
#include "model/catalogue.h"
#include "model/lesson/variants.h"
#include "model/pipeline.h"
#include "model/trace.h"
#include "tap.h"

/* The sizes of a run, each letter of the catalogue's shapes. */
typedef struct {
    size_t V, T, S, D, O, H, F;
    size_t L; /* a stack's blocks (--layers N) */
} sizes;

/* The value of one letter of a shape for a table of variant v. */
static size_t letter(const char *l, size_t n, const sizes *z, variant_id v)
{
    // as the module's row says: the block's attention is d_model wide;
    // the single head is one head
    const variant_row *row =
        v > VARIANT_INPUT && v < VARIANT_ID_COUNT ? variant_row_of(v) : NULL;
    const size_t O = row != NULL && row->d_model_wide ? z->D : z->O;
    const size_t H = row != NULL && row->heads == HEADS_ONE ? 1 : z->H;
    static const char *const names[] = {"V",  "T", "S", "D", "O",
                                        "hd", "F", "1", "L", "H"};
    const size_t values[] = {z->V,  z->T, z->S, z->D, O,
                             O / H, z->F, 1,    z->L, H};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == n && strncmp(l, names[i], n) == 0)
            return values[i];
    printf("Bail out! unknown letter %.*s\n", (int)n, l);
    exit(1);
}

/* Whether t has the shape its row gives, "rows x cols". */
static bool has_shape(const table *t, const sizes *z)
{
    const char *shape = table_info_for(t)->shape;
    const char *x = strstr(shape, " x ");
    if (x == NULL)
        return false;
    const size_t rows = letter(shape, (size_t)(x - shape), z, t->variant);
    const size_t cols = letter(x + 3, strlen(x + 3), z, t->variant);
    return t->values.rows == rows && t->values.cols == cols;
}

/* Parses args (NULL-terminated) into opt, from copies in argv (which
 * the options may point into: free them after opt); bails out on failure. */
static void parse(options *opt, char **argv, const char *const *args)
{
    int argc = 0;
    for (; args[argc] != NULL; argc++)
        if ((argv[argc] = strdup(args[argc])) == NULL)
            abort();
    argv[argc] = NULL;
    mx_error err = {0};
    if (options_parse(opt, argc, argv, &err) != 0) {
        printf("Bail out! %s\n", err.msg);
        exit(1);
    }
}

/* Runs argv and checks every table's shape against z, and that
 * pipeline_makes_table answers for every row as the run did. */
static void check_shapes(const char *const *args, const sizes *z,
                         const char *what)
{
    options opt;
    char *argv[32];
    parse(&opt, argv, args);
    const model_input in = {
        .sentence = opt.sentence, .len = strlen(opt.sentence), .kv = opt.kv};
    const run_request rq = run_request_of(&opt);
    trace tr;
    trace_init(&tr);
    mx_error err = {0};
    if (pipeline_run(&tr, &rq, &in, &err) != 0) {
        printf("Bail out! %s\n", err.msg);
        exit(1);
    }
    size_t wrong = 0, shaped = 0;
    bool made[TABLE_COUNT] = {false};
    for (size_t i = 0; i < trace_count(&tr); i++) {
        const table *t = trace_at(&tr, i);
        made[t->id] = true;
        if (t->id == TABLE_PARAM)
            continue; /* model.h gives their shapes */
        shaped++;
        if (!has_shape(t, z)) {
            wrong++;
            printf("# [%s] %s is %zu x %zu, its row says %s\n",
                   variant_id_name(t->variant), table_name(t), t->values.rows,
                   t->values.cols, table_info_for(t)->shape);
        }
    }
    ok(shaped > 0 && wrong == 0,
       "%s: the %zu tables made have their rows' shapes", what, shaped);
    size_t disagree = 0;
    for (size_t id = 0; id < TABLE_COUNT; id++) {
        if (id == TABLE_PARAM)
            continue;
        const char *name = table_info_of((table_id)id)->name;
        const table_pick pick = {(table_id)id, name, false};
        if (pipeline_makes_table(&rq, &in, &pick) != made[id]) {
            disagree++;
            printf("# %s: made %d, pipeline_makes_table says %d\n", name,
                   made[id], !made[id]);
        }
    }
    ok(disagree == 0, "%s: pipeline_makes_table names the tables made", what);
    trace_free(&tr);
    options_free(&opt);
    for (size_t i = 0; argv[i] != NULL; i++)
        free(argv[i]);
}

static void test_rows(void)
{
    size_t unnamed = 0, not_found = 0, per_head = 0, outside = 0;
    for (size_t id = 0; id < TABLE_COUNT; id++) {
        const table_info *t = table_info_of((table_id)id);
        if (t->kind == KIND_PARAMETER) {
            unnamed += t->name[0] == '\0';
            continue;
        }
        not_found += table_by_name(t->name, strlen(t->name)) != id;
        if (t->kind == KIND_PER_HEAD) {
            per_head++;
            outside += id < TABLE_QUERIES || id > TABLE_HEAD_CONTEXT;
        }
    }
    ok(unnamed == 1 && not_found == 0,
       "every table has one row, found by its name; one row of parameters");
    ok(per_head == HEAD_TABLE_COUNT && outside == 0,
       "a head's tables are the rows queries to head_context");
    ok(table_by_name("W_query.weight", 14) == TABLE_COUNT &&
           table_by_name("", 0) == TABLE_COUNT,
       "a parameter's name, or none, is no row's");
    size_t masked = 0;
    for (size_t id = 0; id < TABLE_COUNT; id++)
        masked += (table_info_of((table_id)id)->mask != MASK_NONE) !=
                  (table_info_of((table_id)id)->shade != SHADE_NONE);
    ok(masked == 0, "the shaded tables are the masked ones");
    // a checkpoint's outputs after its layers: their own variant, not a
    // module's, and tables of the catalogue, not parameters or dropout's
    const table_set checkpoint =
        CHECKPOINT_INPUT_TABLES | CHECKPOINT_HEAD_TABLES |
        CHECKPOINT_LAYER_TABLES | CHECKPOINT_MODEL_TABLES;
    ok(strcmp(variant_id_name(VARIANT_MODEL), "model") == 0 &&
           VARIANT_MODEL == VARIANT_ID_COUNT &&
           table_step(TABLE_OUT, VARIANT_MODEL) == STEP_OUTPUT &&
           !(checkpoint & (table_bit(TABLE_PARAM) | DROPOUT_TABLES |
                           table_bit(TABLE_DROPOUT_MASK))) &&
           (CHECKPOINT_MODEL_TABLES & CHECKPOINT_LAYER_TABLES) == 0,
       "a checkpoint's outputs: variant model, after the modules' ids");
    // every variant's row names what a run, --train and --explain call
    size_t complete = 0;
    for (size_t v = VARIANT_INPUT + 1; v < VARIANT_ID_COUNT; v++)
        complete += variant_row_complete(variant_row_of((variant_id)v));
    ok(complete == VARIANT_ID_COUNT - 1,
       "every variant's row is complete, its training pass included");
    // a table's column groups: each of its columns in one group (as
    // many as its shape's columns), some of them quantities
    size_t grouped = 0, wrong = 0;
    for (size_t id = 0; id < TABLE_COUNT; id++) {
        size_t n;
        const column_group *g = table_column_groups((table_id)id, &n);
        if (g == NULL)
            continue;
        grouped++;
        const char *x = strstr(table_info_of((table_id)id)->shape, " x ");
        const unsigned long cols = x != NULL ? strtoul(x + 3, NULL, 10) : 0;
        uint64_t all = 0;
        bool quantity = false;
        for (size_t k = 0; k < n; k++) {
            wrong += (all & g[k].cols) != 0 || g[k].cols == 0;
            quantity |= g[k].unit != UNIT_ID;
            all |= g[k].cols;
        }
        wrong += cols == 0 || cols >= 64 || all != ((uint64_t)1 << cols) - 1 ||
                 !quantity;
    }
    ok(grouped >= 2 && wrong == 0,
       "a table's column groups hold each of its columns once, some of "
       "them quantities");
}

int main(void)
{
    test_rows();
    // T = 7 tokens, V = 6 words, D = 8, O = 12, H = 2 (hd = 6; the
    // block's attention 8 wide, hd = 4), F = 9
    static const char *const self[] = {
        "mha-explain", "a b c a d e f",
        "--variant",   "single,wrapper,fused,block",
        "--d-model",   "8",
        "--d-out",     "12",
        "--heads",     "2",
        "--ff",        "9",
        "--average",   NULL};
    const sizes z = {.V = 6, .T = 7, .S = 7, .D = 8, .O = 12, .H = 2, .F = 9};
    check_shapes(self, &z, "self-attention");
    // with --kv: S = 3 key/value tokens, V = 6 + 2 new words
    static const char *const cross[] = {
        "mha-explain", "a b c a d e f",
        "--kv",        "x y a",
        "--variant",   "single,wrapper,fused,block",
        "--d-model",   "8",
        "--d-out",     "12",
        "--heads",     "2",
        "--ff",        "9",
        NULL};
    const sizes c = {.V = 8, .T = 7, .S = 3, .D = 8, .O = 12, .H = 2, .F = 9};
    check_shapes(cross, &c, "cross-attention");
    // --randn-input, the dropout tables: the same sizes, B = 3
    static const char *const dropped[] = {"mha-explain",
                                          "a b c a d e f",
                                          "--variant",
                                          "single,wrapper,fused,block",
                                          "--d-model",
                                          "8",
                                          "--d-out",
                                          "12",
                                          "--heads",
                                          "2",
                                          "--ff",
                                          "9",
                                          "--randn-input",
                                          "--batch",
                                          "3",
                                          "--dropout",
                                          "0.5",
                                          "--attn-dropout",
                                          "0.25",
                                          NULL};
    check_shapes(dropped, &z, "a random input and dropout");
    // --layers 3: three blocks stacked, each with its tables and masks,
    // then the stack's attn_entropy (L x H)
    static const char *const stacked[] = {"mha-explain", "a b c a d e f",
                                          "--variant",   "fused,block",
                                          "--layers",    "3",
                                          "--d-model",   "8",
                                          "--d-out",     "12",
                                          "--heads",     "2",
                                          "--ff",        "9",
                                          "--dropout",   "0.5",
                                          NULL};
    sizes three = z;
    three.L = 3;
    check_shapes(stacked, &three, "a stack of three blocks");
    static const char *const fused[] = {"mha-explain", "a b",     "--variant",
                                        "fused",       "--heads", "2",
                                        "--d-out",     "4",       NULL};
    const sizes f = {.V = 2, .T = 2, .S = 2, .D = 3, .O = 4, .H = 2, .F = 12};
    check_shapes(fused, &f, "the fused module alone");
    return tap_done();
}
