/* run_request.h: what a run is asked for and what it reads: the model's
 * configuration (the lesson's architecture, or a checkpoint folder), the
 * tables, the interventions, generation and training (run_request), and
 * the input (model_input). The command line makes them (run_request_of,
 * in src/cli); pipeline.h runs them, and every stage below it reads
 * them from here without depending on the pipeline.
 */
#ifndef MHA_RUN_REQUEST_H
#define MHA_RUN_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "io/csv_in.h"
#include "model/catalogue.h"
#include "model/hooks.h"
#include "model/tokenize.h"
#include "model/trace.h"
#include "model/lesson/train.h"
#include "model/sampling.h"

struct weights_files; /* model/lesson/weights.h */

/* Indices lo to hi, both included: one item of a list such as 0,3,5-7
 * (the command line reads the list, cli/index_list.h). */
typedef struct {
    size_t lo, hi; /* SIZE_MAX: a number too large to read */
} index_range;

/* A head of a layered model (--ablate L.H): its layer and its number
 * in the layer. */
typedef struct {
    size_t layer, head; /* SIZE_MAX: a number too large to read */
} head_ref;

/* The mistakes in a run_request that the model returns as numbers,
 * err's detail (err_detail_set, base/error.h), for whoever made the
 * request to write the message: it holds the lists as they were given
 * and names the settings as its users know them (the command line:
 * cli/run_errors.h). item and n are the detail's. */
enum run_mistake {
    RUN_MISTAKE_NONE,
    RUN_LIST_LAYERS,         /* layers' item past n[0], the model's layers */
    RUN_LIST_SHOW_HEADS,     /* show_heads' item past n[0], its heads */
    RUN_LIST_ABLATE,         /* ablate's item past n[0] layers or n[1] heads */
    RUN_NEEDS_LM_HEAD,       /* intervention item (enum run_intervention)
                            needs a model with an lm_head; n[0] 1: the
                            family's attention looks both ways, and its
                            model predicts no next token (BERT's) */
    RUN_NOT_ON_PAGE,         /* intervention item: the page's core runs none */
    RUN_ONE_TOKEN,           /* intervention item (RUN_ABLATE's loss,
                            RUN_HEAD_SCORES) needs two tokens or more */
    RUN_REPEAT_TOO_LONG,     /* repeat_random n[0] twice passes the model's
                            n[1] positions; item: the special tokens
                            around them (BERT's [CLS] and [SEP]: 2), or 0 */
    RUN_FIXED_BY_CHECKPOINT, /* input item (enum run_input) with a
                                checkpoint, which fixes it */
    RUN_LESSON_UNTRAINED,    /* interventions on a lesson model that is
                                not trained (no lm_head); item
                                RUN_LOGIT_LENS: the lens asked, else
                                --ablate, --patch or --head-scores */
    RUN_LESSON_NOT_BLOCK,    /* ... on a lesson model of other variants */
    RUN_GENERATE_UNTRAINED,  /* generate with a lesson model not trained */
    RUN_D_MODEL_EMBEDDINGS,  /* d_model n[0] given, the embeddings n[1]
                                wide */
    RUN_HEADS_DIVIDE,        /* n[0] heads do not divide d_model n[1] */
};

/* The inputs a checkpoint refuses, as RUN_FIXED_BY_CHECKPOINT names
 * them. */
enum run_input {
    RUN_INPUT_KV,         /* model_input's kv */
    RUN_INPUT_EMBEDDINGS, /* model_input's embeddings */
};

/* The interventions of a run_request, as its mistakes name them. */
enum run_intervention {
    RUN_ABLATE,      /* ablate, ablate_all */
    RUN_PATCH,       /* patch */
    RUN_HEAD_SCORES, /* head_scores */
    RUN_LOGIT_LENS,  /* logit_lens */
};

/* One table of --tables, as the command line reads its name
 * (cli/table_list.h): a row of the catalogue, or a parameter named as its
 * model names it ("W_query.weight", a checkpoint's
 * "h.0.attn.c_attn.weight"), or for the lesson's modules with grad the
 * gradient of either ("<name>.grad", --grad). A checkpoint has no
 * gradients: its names are read whole (grad false), and one of its
 * parameters may share its name with a row ("lm_head.weight"). */
typedef struct {
    table_id id;      /* the catalogue's row; TABLE_COUNT: none (a
                         parameter's name, or no table's) */
    const char *name; /* the row's or the parameter's name, without
                         ".grad" */
    bool grad;        /* its gradient */
} table_pick;

/* The catalogue's row a pick names as a table the forward pass makes:
 * TABLE_COUNT for a gradient, a parameter or no table. */
static inline table_id table_pick_row(const table_pick *p)
{
    return p->grad ? TABLE_COUNT : p->id;
}

/* The most float values a run may hold at once, checked before the model
 * is built: every table of a run that keeps its whole trace; the tables
 * kept to the end and the heads in flight of a run that streams them. */
#define MAX_TRACE_VALUES ((size_t)1 << 27)

/* Largest sum of the whole traces of all the runs of one --input file
 * (the work, whether or not the tables stream): about eight of the
 * largest runs. */
#define MAX_INPUT_VALUES ((size_t)1 << 33)

/* What --ablate all-heads measures of each head (--metric,
 * model/intervene/metric.h): the change, ablated - clean, of */
enum ablate_metric {
    METRIC_LOSS,       /* the mean loss on the text's next tokens */
    METRIC_LOGIT_DIFF, /* logits[T-1][answer] - logits[T-1][wrong] */
    METRIC_PROB,       /* softmax(logits[T-1])[answer] */
};

/* The architecture of the lesson's modules, as llm.c's GPT2Config: the
 * sizes and choices their constructors take (the notebooks'
 * MultiHeadAttention(d_in, d_out, context_length, dropout, num_heads,
 * qkv_bias), TransformerBlock, a stack of blocks) and nothing of a run. A
 * checkpoint's architecture is its config.json's, which its family reads;
 * what a run shows of either comes from the trace (trace_model). */
typedef struct {
    size_t d_model;      /* D, when no embeddings are given */
    size_t d_out;        /* O */
    size_t heads;        /* H */
    size_t ff;           /* F, the block's hidden width (0: 4 x D) */
    size_t block_layers; /* --layers N with --variant block: the block
                            stacked N times (model/lesson/stack.h); 0:
                            alone */
    bool attn_only;      /* --attn-only: the block's attention and residual
                            only (model/lesson/block.h) */
    bool qkv_bias;       /* W_query, W_key, W_value have biases */
    bool causal;         /* mask later tokens (never with keys and values
                            from another sentence) */
    bool scale;          /* divide the scores by sqrt(head width) */
    /* --positions: learned absolute positions, nn.Embedding(C, D) drawn
     * right after the embedding and added to it (C: the longest
     * sentence, the corpus's included) */
    bool positions;
    double dropout;      /* --dropout P: the block's, training mode */
    double attn_dropout; /* --attn-dropout P: the modules' on the weights */
} model_config;

/* Told, as an intervention of many passes runs (--patch, --ablate
 * all-heads), that `done` of its `total` passes are done (option names
 * it: "--patch"), and with done == total when they end (a progress line
 * on a terminal: cli/progress.h); it cannot stop the run. */
typedef struct {
    void (*fn)(void *ctx, const char *option, size_t done, size_t total);
    void *ctx;
} passes_watch;

/* Tells watch (NULL: no one) that done of total passes are done. */
static inline void passes_tell(const passes_watch *watch, const char *option,
                               size_t done, size_t total)
{
    if (watch != NULL)
        watch->fn(watch->ctx, option, done, total);
}

/* What --ablate-mode mean sets a head's z to with --corpus on a model
 * whose session does not take the mean itself (lm.h's own_corpus): each
 * head's mean over every position of every text of the corpus
 * (model/intervene/corpus_mean.h), the row of head h of layer l at
 * rows[l * heads + h] (1 x hd). */
typedef struct {
    size_t layers, heads;
    matrix *rows; /* layers * heads */
} head_means;

/* What a run computes and shows: the model (the lesson's architecture, or
 * a checkpoint folder), its variants, the tables, the interventions,
 * generation and training, and how it runs. The command line makes one
 * from what it was given (run_request_of, in src/cli). */
typedef struct {
    /* the lesson's modules (a checkpoint's own architecture is read from
     * its folder) */
    model_config model;
    uint64_t seed;           /* torch.manual_seed(seed) before each variant
                                (once, with --draw) */
    bool d_model_given;      /* D was asked for: the embeddings must agree */
    enum token_mode tokens;  /* how a sentence becomes tokens */
    token_rules rules;       /* --lower, --punct: how words are made */
    bool unk;                /* --unk: a trained run's words outside its
                                vocabulary are the word "<unk>" */
    unsigned variants;       /* the variants to run, a set of variant_bits */
    bool average;            /* attn_weights_avg, the heads' mean weights */
    bool tie;                /* the fused module takes the wrapper's heads */
    size_t threads;          /* 0: as many as the processors available */
    csv_style weights_style; /* how those files are written */
    bool randn_input;        /* the input is torch.randn(B, T, D) instead
                                of an embedding lookup (--randn-input) */
    size_t batch;            /* B, the batch the input and the dropout
                                masks are drawn for (0 or 1: one) */
    variant_id draw[VARIANT_ID_COUNT]; /* --draw: the order of the draws
                                          (draws.h); n_draw 0: each
                                          variant from the seed, input
                                          first */
    size_t n_draw;
    const char *checkpoint;    /* --model: a checkpoint folder, which its
                               family (model/family.h) runs instead of the
                               variants, or NULL */
    const index_range *layers; /* its layers to show (n_layers ranges; 0:
                                  every layer) */
    size_t n_layers;
    const index_range *show_heads; /* its heads to show (n_show_heads
                                      ranges; 0: every head) */
    size_t n_show_heads;
    bool logits;              /* its table "logits" is asked for */
    const table_pick *tables; /* --tables, in the order given (n_tables;
                                 its parameters are shown by name), or
                                 NULL */
    size_t n_tables;

    /* the parameter files of a --weights folder, opened by its check
     * (model/lesson/weights.h), or NULL */
    const struct weights_files *weights;

    bool train;               /* --train N given (N may be 0) */
    train_options training;   /* --train N, --lr, --optimizer (train.h) */
    const train_watch *watch; /* --train: told of each step, or NULL */
    bool grad;                /* --grad: gradients at the final parameters */
    bool checkpoints;         /* attn_weights_steps and head_scores_steps
                                 (catalogue.h), for --plot and --html or
                                 when --tables names one */

    /* --ablate: the heads switched off (n_ablate of them; the run's
     * tables are the ablated model's) or, with ablate_all, each head in
     * turn; how (--ablate-mode); model/intervene/ablate.h */
    const head_ref *ablate;
    size_t n_ablate;
    bool ablate_all;
    hook_action ablate_mode; /* HOOK_ZERO or HOOK_MEAN */
    /* HOOK_MEAN's means over --corpus (set by pipeline.c from the
     * input's corpus), or NULL: a mean is over the text's own positions
     * (or, for a lesson model, over the corpus it trained on) */
    const head_means *ablate_means;
    /* what ablation_map measures (--metric); its answer and wrong tokens
     * are patch_answer and patch_wrong (--answer, --wrong) */
    enum ablate_metric metric;
    /* --patch: activation patching from the clean text into the
     * corrupted one (same token count), measured by the logit difference
     * of answer against wrong (model/intervene/patch.h), or NULL */
    const char *patch_clean, *patch_corrupt, *patch_answer, *patch_wrong;
    bool patch;
    /* --head-scores: each head's previous-token, duplicate-token and
     * induction score (model/intervene/head_scores.h) */
    bool head_scores;
    /* --patch and --ablate all-heads: told of their passes, or NULL */
    const passes_watch *passes;
    /* --logit-lens: the lm_head over the residual stream after each
     * layer (model/intervene/logit_lens.h) */
    bool logit_lens;
    /* --repeat-random N: the text is N token ids drawn as
     * torch.randint(0, V, (N,)) after manual_seed(seed), then the same N
     * again; no sentence (0: the sentence) */
    size_t repeat_random;
    /* the hooks a family's run applies to its activations (hooks.h):
     * pipeline_run sets them from --ablate */
    const replace_hook *replace;
    size_t n_replace;
    /* --generate N: the model continues the text by at most N tokens
     * (model/generate.h), picked as `sampling` says, the generator seeded
     * with seed; 0: no generation */
    size_t generate;
    sampling sampling;
    const char *stop; /* --stop TEXT, or NULL */
    /* --kv-steps: each generation step's tables kept (generate.h) */
    bool kv_steps;
    /* --html: each generation step's attn_weights kept for the page's
     * Generation view (all the steps' tables with kv_steps); text and CSV
     * show a step's tables only with kv_steps */
    bool page_steps;
    /* the input a lesson model is trained on (its corpus, its sentence),
     * which the interventions' lesson model reads (its vocabulary, the
     * corpus's means) and trains on when the run trained none
     * (model/lesson/lesson_lm.h): set by pipeline.c for them, else NULL */
    const struct model_input *trained_on;
    /* where a run that trains the interventions' model leaves it for
     * their sessions (model/lm.h): set by pipeline.c for them, else
     * NULL */
    struct lm_made *made;
} run_request;

/* What the model reads: a sentence, or rows of given embeddings. */
typedef struct model_input {
    const char *sentence; /* the text, when embeddings is NULL */
    size_t len;
    const char *const *words; /* with --embeddings: a label per row */
    const matrix *embeddings; /* (T, D) rows from the file, or NULL */
    const char *kv;           /* --kv: keys and values from this sentence,
                                  or NULL for self-attention */
    /* --pair: a BERT checkpoint's second text (token type 1), or NULL */
    const char *pair;
    const char *const *corpus; /* --corpus: the sentences trained on, in
                                  order (n_corpus), or NULL: the sentence */
    size_t n_corpus;
    /* where the corpus's sentences come from, for the messages about
     * them ("FILE:LINE: column 'NAME': ..."): each one's line in the
     * file, or NULL ("--corpus: sentence K", K from 0) */
    const size_t *corpus_lines;
    const char *corpus_file;
    const char *corpus_column;
} model_input;

#endif
