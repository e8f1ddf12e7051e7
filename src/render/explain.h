/* explain.h: --explain, a few plain sentences before each step.
 *
 * The notes come before the first table of each step (head 0 only) and
 * give the shapes as the notebooks draw them, e.g. for the fused module
 * (5, 4) -> view (5, 2, 2) -> transpose (2, 5, 2). */
#ifndef MHA_EXPLAIN_H
#define MHA_EXPLAIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/sampling.h"
#include "model/tokenize.h"
#include "model/trace.h"

/* What a trained folder's model.json says of its model's training
 * (model/lesson/manifest.h), when it says it in full (record). */
typedef struct {
    bool record;
    size_t steps;        /* in all */
    size_t steps_before; /* of those, the ones before the last run's,
                            which the record does not describe */
    bool adam;           /* the last run's: Adam, else SGD */
    double lr;
    const char *corpus; /* NULL: trained on a sentence */
} explain_trained;

typedef struct {
    bool checkpoint; /* a checkpoint's run (--model) */
    bool own_head;   /* its lm_head its own, not the embedding */
    size_t tokens;   /* T */
    size_t vocab;    /* V */
    size_t d_model;  /* D */
    size_t d_out;    /* O */
    size_t heads;    /* H */
    uint64_t seed;
    bool causal, scale, qkv_bias;
    bool embeddings_given; /* --embeddings: no embedding table */
    size_t kv_tokens;      /* S with --kv (cross-attention), else 0 */
    size_t ff;             /* F, the block's feed-forward width */
    size_t layers;         /* --layers N: the block stacked N times */
    bool attn_only;        /* --attn-only: blocks of attention alone */
    bool chars;            /* --tokens chars: one token per character */
    token_rules rules;     /* --lower, --punct: how words were made */
    bool unk;              /* --unk: words outside the vocabulary */
    size_t width;          /* the screen's width in cells, 0: no limit,
                              EXPLAIN_NO_WRAP: each sentence on one line */

    /* a notebook's input, order of draws and dropout (pipeline.h) */
    bool randn_input;       /* --randn-input */
    size_t batch;           /* --batch B */
    const variant_id *draw; /* --draw, n_draw items (0: none) */
    size_t n_draw;
    double dropout;      /* --dropout P */
    double attn_dropout; /* --attn-dropout P */

    /* a trained run (--train N, train.h) */
    bool train;     /* --train given (N may be 0) */
    size_t steps;   /* N */
    double lr;      /* --lr */
    bool adam;      /* --optimizer adam (else SGD) */
    bool grad;      /* --grad: the .grad tables */
    bool positions; /* --positions */
    bool corpus;    /* --corpus: trained on its sentences; with --model,
                       the texts of --ablate-mode mean */
    bool reloaded;  /* --weights of a trained run: the training starts
                       from its files, not from the seed */
    bool read_back; /* --weights: the model's parameters read from files */
    /* reloaded: what the folder's model.json says of its model's own
       training */
    explain_trained trained;
    bool seed_set; /* --seed given (else the default, or --weights'
                       model.json's) */

    sampling how; /* --generate: greedy, or --sample's warpers */
    /* --generate with --ablate L.H: every step ran with the heads
     * switched off (explain_generated) */
    bool generated_ablated;

    /* --ablate L.H in a run without an lm_head: the heads switched off
     * (explain_lesson_ablation), else 0 */
    size_t ablated;
    /* --repeat-random N: the head scores' text was drawn, else 0 */
    size_t repeat_random;
} explain_context;

/* An explain_context width: every sentence is one "# " line, however
 * long (for the --html page, which wraps them itself). */
#define EXPLAIN_NO_WRAP SIZE_MAX

/* Parameters of a variant: weights and biases, as
 * sum(p.numel() for p in module.parameters()) counts them. */
void count_parameters(variant_id variant, const explain_context *c,
                      size_t *weights, size_t *biases);

/* A before_table_fn (render.h): prints the note for t, if t starts a step.
 * ctx is an explain_context. */
void explain_before(FILE *out, const table *t, const table *prev,
                    const void *ctx);

/* One note, text, as explain_before prints its sentences: "# " lines
 * wrapped for a screen of `screen` cells (explain_context.width). */
void explain_note(FILE *out, size_t screen, const char *text);

/* The same as explain_before for a checkpoint's run (--model,
 * render/explain_checkpoint.c): its family's notes (model/family_notes.h),
 * before its tables. */
void explain_checkpoint_before(FILE *out, const table *t, const table *prev,
                               const void *ctx);

/* The note before an intervention's table t (ablation_effect,
 * patch_heads, ...; render/explain_intervene.c), the same for every
 * family with an lm_head, or NULL for another table. */
const char *explain_intervention(const table *t);
/* The same for --ablate's tables alone (ablation_effect, ablation_loss,
 * ablation_map; render/explain_ablation.c, which every page's core
 * carries), or NULL for another table. */
const char *explain_ablation(const table *t);
/* The same as explain_intervention for a trained lesson model
 * (model/lesson/lesson_lm.h), whose run shows the model as it is and
 * whose mean ablation is over the corpus it was trained on
 * (render/explain_ablation.c). */
const char *explain_lesson_intervention(const table *t);
/* The note before the first module of a lesson run without an lm_head
 * whose heads --ablate switched off (render/explain_ablation.c). */
const char *explain_lesson_ablation(void);

/* A before_table_fn: the note for t as its family's row says
 * (explain_checkpoint_before for a family with notes, else explain_before;
 * render/explain_family.c). */
void explain_table_before(FILE *out, const table *t, const table *prev,
                          const void *ctx);

#endif
