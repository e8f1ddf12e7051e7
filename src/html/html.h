/* html.h: --html FILE, one self-contained interactive page.
 *
 * The page holds its style, its script (src/html/page/, compiled into the
 * program) and the run's data as JSON, and asks for nothing from any
 * network. With --input, one page per sentence. Its views and the DOM contract tests rely on are described in
 * docs/html.md.
 */
#ifndef MHA_HTML_H
#define MHA_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "io/outputs.h"
#include "render/explain.h"
#include "render/render.h"
#include "model/trace.h"
#include "plot/plot_style.h"

/* The most arguments of html_run's fixed, and the longest. */
#define HTML_RUN_FIXED 16
#define HTML_RUN_ARG 64
/* The most options of html_run's map_name (option_list.h's PAGE_MAP
 * rows) */
#define HTML_RUN_MAP 4
/* The most defaults of html_run's defaults, and the longest */
#define HTML_RUN_DEFAULTS 24
#define HTML_RUN_DEFAULT 24

/* The command line the live page's editor starts from (docs/html.md):
 * the settings it shows, and the run's other options that shape the
 * page, kept as they are. */
typedef struct {
    const char *sentence;
    const char *kv; /* --kv, or NULL */
    uint64_t seed;
    size_t d_model, d_out, heads;
    unsigned variants; /* a set of variant_bits */
    bool causal, scale, qkv_bias;
    bool chars; /* --tokens chars */
    bool train; /* --train N, of train_steps steps */
    size_t train_steps;
    double lr; /* --lr, when lr_given */
    bool lr_given;
    bool adam;          /* --optimizer adam (sgd: false) */
    bool positions;     /* --positions */
    bool grad;          /* --grad */
    bool queries_first; /* --qkv-order qkv: kept, the editor shows no field */
    size_t layers;      /* --layers N with --variant block; 0: not given */
    char fixed[HTML_RUN_FIXED][HTML_RUN_ARG];
    size_t n_fixed;
    bool editable; /* false: the run has an option the editor cannot
                      keep (an input file, --weights, --draw, ...) */
    /* A trained run from a corpus or a --weights folder: the page carries
     * the trained model (html_page's model) and its editor runs the
     * sentence over it (--weights model_dir and the kept options), with
     * the word rules below. model_dir is the folder's name on the
     * command line the page shows (--weights', else --csv-dir's, else
     * NULL: the model is in the page only). */
    bool model;
    const char *model_dir;
    bool lower, unk;   /* --lower, --unk */
    const char *punct; /* --punct keep|split|drop */
    /* --model DIR: the checkpoint folder the run read (the page asks for
     * it: model_open.js), or NULL */
    const char *checkpoint;
    /* --corpus FILE --column NAME of a model run trained on a corpus (the
     * page carries its sentences, and its editor keeps training on them:
     * --train K --corpus FILE), or NULL */
    const char *corpus, *column;
    /* --generate N (0: none), --sample, and --temperature, --top-k,
     * --top-p and --stop as given (NULL: not given): the editor's
     * generation settings (page/generation.js) */
    size_t generate;
    bool sample;
    const char *temperature, *top_k, *top_p, *stop;
    /* --ablate L.H,... and --ablate-mode as given (NULL: not given): the
     * heads a lesson page's head view switches off (page/head_view.js) */
    const char *ablate, *ablate_mode;
    /* A --model run's intervention (--patch, --head-scores: the
     * options' rows say which) as given, which each folder's run on
     * the page repeats (model_open.js): runs[k] an option's name
     * ("corrupt", without its dashes) and its argument (NULL: none);
     * text_as the option whose argument is the run's text ("clean"), or
     * NULL: the text is the sentence */
    struct {
        const char *name, *arg;
    } runs[HTML_RUN_FIXED];
    size_t n_runs;
    const char *text_as;
    /* the options given that say what --ablate all-heads' map measures
     * (--metric, --answer, --wrong; "metric") and their values: a --model
     * page's run of all-heads keeps them (page/model_switches.js) */
    const char *map_name[HTML_RUN_MAP], *map_value[HTML_RUN_MAP];
    size_t n_map;
    /* the defaults of the options the editor edits, from their rows
     * (cli/page_run.c): the option's name ("seed"), the choice of another
     * option the default goes with ("sgd" for --lr's; NULL: none) and
     * the default as the option is given ("42", "0.1", "zero"); the
     * editor leaves a default off the command line and shows it as a
     * field's placeholder */
    struct {
        const char *name, *choice;
        char value[HTML_RUN_DEFAULT];
    } defaults[HTML_RUN_DEFAULTS];
    size_t n_defaults;
} html_run;

/* The trained model a page of a model run carries (html_model.c): its
 * model.json (model/lesson/manifest.h), and its tables, taken from the
 * run's trace. */
typedef struct {
    const char *manifest; /* model.json's text, len bytes */
    size_t len;
    /* the sentences it was trained on (--corpus, n_corpus of them, each
     * with the line of the file it came from), or NULL */
    const char *const *corpus;
    const size_t *corpus_lines;
    size_t n_corpus;
} html_model;

/* The largest trained model a page carries, in bytes before base64 (a
 * page under 2 MB: the rest of a classroom page is about 400 kB). */
#define HTML_MODEL_MAX_BYTES ((size_t)1 << 20)

/* What the page says about the run besides its tables. */
typedef struct {
    bool masked;            /* the causal mask applies (causal, no --kv) */
    bool scaled;            /* scores divided by sqrt(head_dim) */
    const text_style *text; /* the step-through's tables: precision,
                                      full (colour and width are the page's) */
    const explain_context *explain; /* the step-through's notes, with
                                      width EXPLAIN_NO_WRAP */
    const plot_style *look;         /* the matrix view's colours and numbers, as
                               --plot draws them (NULL: the defaults) */
    const html_run *run;     /* the editor's command line (html.c), or NULL */
    const html_model *model; /* with run->model: the model it carries */
} html_page;

/* The pages of a run: one, or with --input one per sentence. */
typedef struct html_set html_set;

/* Begins `pages` pages: path itself for one page, else
 * "<stem>.sentence<i><ext>" for i = 0 .. pages - 1 (page.html gives
 * page.sentence0.html, ...), files of the run's transaction tx
 * (io/outputs.h): nothing is at those names until it commits. */
int html_open(html_set **set, outputs *tx, const char *path, size_t pages,
              mx_error *err);

/* Writes the next page, for every variant of tr that has attention
 * weights, into a new file of the transaction. The same trace gives the
 * same bytes. Called once per page. */
int html_add(html_set *set, const trace *tr, const html_page *page,
             mx_error *err);

/* Frees the set (NULL: nothing); its files are the transaction's. */
void html_free(html_set *set);

#endif
