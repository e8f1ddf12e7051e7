/* options.h: the command line, parsed and validated once before any work.
 * The contract is docs/cli.md. */
#ifndef MHA_OPTIONS_H
#define MHA_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "cli/option_table.h"
#include "cli/table_list.h"
#include "render/heat.h"
#include "model/lesson/model.h"
#include "model/lesson/train.h"
#include "model/run_request.h"
#include "model/tokenize.h"
#include "plot/plot_style.h"

/* Documented maxima, checked before anything is allocated. */
#define MAX_WIDTH 8192 /* --d-model and --d-out */
#define MAX_HEADS 1024
#define MAX_PRECISION 12
#define MAX_SCREEN_WIDTH 100000 /* --width */
#define MIN_PLOT_SIDE 32        /* --plot-size, each side */
#define MAX_PLOT_SIDE 8192
#define MAX_BATCH 1024              /* --batch */
#define MAX_GENERATE 100000         /* --generate */
#define MAX_TOP_K ((size_t)1 << 30) /* --top-k */

enum output_format { FORMAT_TEXT, FORMAT_CSV };

enum color_mode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

/* --layout: heads side by side (grid) or one under another (stack); auto
 * is grid on a terminal, stack otherwise. */
enum layout_mode { LAYOUT_AUTO, LAYOUT_GRID, LAYOUT_STACK };

typedef struct {
    size_t d_model;    /* --d-model, D */
    size_t d_out;      /* --d-out, O */
    size_t heads;      /* --heads, H */
    uint64_t seed;     /* --seed, as torch.manual_seed */
    bool causal;       /* off with --no-causal */
    bool scale;        /* off with --no-scale */
    bool qkv_bias;     /* --qkv-bias */
    unsigned variants; /* --variant, a set of variant_bits */
    size_t ff;         /* --ff, the block's hidden width (0: 4 x D) */
    bool attn_only;    /* --attn-only: the block without its feed-forward
                          network and norms (model/lesson/block.h) */

    /* a notebook's order of draws, its input and its dropout */
    variant_id draw[VARIANT_ID_COUNT]; /* --draw ORDER, n_draw items */
    size_t n_draw;                     /* 0 without --draw */
    double dropout;                    /* --dropout P, 0 to below 1 */
    double attn_dropout;               /* --attn-dropout P */
    bool randn_input;                  /* --randn-input */
    bool positions;                    /* --positions */
    bool train;                        /* --train N was given */
    train_options training;            /* --train N, --lr, --optimizer */
    const char *corpus;                /* --corpus FILE, or NULL */
    bool grad;                         /* --grad */
    size_t batch;                      /* --batch B, 1 to MAX_BATCH */

    /* generation (cli/generate_options.h) */
    size_t generate;    /* --generate N; 0: none */
    bool sample;        /* --sample */
    double temperature; /* --temperature T (its row's default: 1) */
    size_t top_k;       /* --top-k K */
    double top_p;       /* --top-p P (its row's default: 1) */
    const char *stop;   /* --stop TEXT, or NULL */
    bool kv_steps;      /* --kv-steps: each step's tables kept */

    char **tables; /* --tables as typed, owned; NULL means every table */
    size_t n_tables;
    table_list tables_read; /* the same names read for the model
                               (table_list.h), once every option is */
    enum output_format format;
    int precision;        /* --precision, decimals in text */
    bool full;            /* --full: never summarise */
    bool torch_style;     /* --style torch: tables as print(tensor) */
    const char *csv_dir;  /* --csv-dir, points into argv */
    const char *html;     /* --html FILE, points into argv, or NULL */
    const char *plot;     /* --plot FILE (.png, .svg, .pdf), or NULL */
    size_t plot_width;    /* --plot-size W x H: pixels for PNG, points for */
    size_t plot_height;   /* SVG and PDF; 0 for the drawing's own size */
    plot_style plot_look; /* --cmap, --numbers, --colorbar, and
                             --color-scale and --precision for --plot */

    const char *embeddings;  /* --embeddings FILE, or NULL */
    const char *input;       /* --input FILE, or NULL */
    const char *column;      /* --column NAME, with --input */
    const char *weights;     /* --weights DIR, or NULL */
    const char *model;       /* --model DIR (a GPT-2 checkpoint), or NULL */
    const char *pair;        /* --pair TEXT: BERT's second text, or NULL */
    const char *layers;      /* --layers LIST, or NULL: every layer */
    size_t block_layers;     /* --layers N without --model: the block
                               stacked N times; 0: one block */
    const char *show_heads;  /* --show-heads LIST, or NULL: every head */
    index_range *layer_list; /* with --model, --layers read (n_layer_list
                                ranges, owned; 0: every layer) */
    size_t n_layer_list;
    index_range *head_list; /* --show-heads read (n_head_list, owned) */
    size_t n_head_list;
    const char *ablate;     /* --ablate HEADS, or NULL */
    head_ref *ablate_heads; /* --ablate L.H,... read (n_ablate_heads,
                                owned) */
    size_t n_ablate_heads;
    bool ablate_all;           /* --ablate all-heads */
    hook_action ablate_mode;   /* --ablate-mode: HOOK_ZERO or HOOK_MEAN */
    enum ablate_metric metric; /* --metric: what ablation_map measures */
    bool patch;                /* --patch */
    const char *patch_clean;   /* --clean TEXT, or NULL */
    const char *patch_corrupt; /* --corrupt TEXT, or NULL */
    const char *patch_answer;  /* --answer TOKEN, or NULL */
    const char *patch_wrong;   /* --wrong TOKEN, or NULL */
    bool head_scores;          /* --head-scores */
    bool logit_lens;           /* --logit-lens */
    size_t repeat_random;      /* --repeat-random N, 0: not given */
    char csv_delimiter;        /* --csv-delimiter, ',' (';' with
                                --decimal-comma) */
    bool decimal_comma;        /* --decimal-comma */
    bool bom;                  /* --bom */

    /* --weights DIR's parameter files, opened by run_job's check
     * (model/lesson/weights.h), or NULL: a caller that runs the model without
     * run_job opens them itself (weights_open_dir), or the model runs on
     * the seeded values */
    const struct weights_files *weight_files;
    bool weights_read; /* the folder has set the sizes it holds, and
                          they are checked (cli/weights_options.h) */

    bool tie;          /* --tie: fused W_q/W_k/W_v = stacked wrapper heads */
    bool check;        /* --check: verify the invariants */
    bool average;      /* --average: head-averaged attention weights */
    bool explain;      /* --explain: notes before each step */
    bool quiet;        /* --quiet: no progress line on stderr */
    const char *focus; /* --focus WORD or WORD@POSITION, or NULL */
    const char *kv;    /* --kv SENTENCE: keys and values from it */
    enum token_mode tokens;       /* --tokens words|chars */
    token_rules rules;            /* --lower, --punct */
    bool unk;                     /* --unk */
    const char *lang;             /* --lang CODE (main.c applies it), or NULL */
    enum color_mode color;        /* --color */
    enum color_scale color_scale; /* --color-scale */
    size_t width;                 /* --width: text columns, 0 unlimited */
    size_t threads;               /* --threads, 1 to MAX_THREADS; 0 when
                                     not given: the processors available */
    enum layout_mode layout;      /* --layout */
    bool no_pager;                /* --no-pager */
    bool step;                    /* --step: pause after each step */

    char *sentence;           /* the words joined by spaces, owned; NULL
                                with --embeddings or --input */
    bool sentence_from_stdin; /* the sentence was "-" */

    bool show_help;
    bool show_version;
    bool show_man;

    /* each option_id given on the command line, and its value as given
     * (the last one; NULL for an option without a value) */
    bool given[N_OPTIONS];
    const char *arg[N_OPTIONS];
} options;

/* Parses argv into *opt (which it owns afterwards: options_free). On a
 * mistake fills err (status 2, usage set) and returns -1. */
int options_parse(options *opt, int argc, char **argv, mx_error *err);

void options_free(options *opt);

/* Nonzero when the table name passes the --tables filter. */
int options_wants_table(const options *opt, const char *name);

/* The checks of --train and the options that go with it
 * (options_validate runs them; run.c again once a --weights folder of a
 * trained run turns training on). */
int options_validate_training(options *opt, mx_error *err);

/* Every option given goes with what its row says it goes with
 * (option_list.h's GOES_WITH), else the row's message. */
int options_goes_with(const options *opt, mx_error *err);

/* Every check of the options together (options_parse runs them; run.c
 * again once a trained model's folder has set the sizes). */
int options_validate(options *opt, mx_error *err);

/* The first option given that a trained run does not take ("--kv",
 * "--layers", ...), or NULL. */
const char *options_training_conflict(const options *opt);

#endif
