/* manifest.h: model.json, what a trained model's folder says about
 * itself.
 *
 * --csv-dir of a trained run (--train) writes, beside the parameter
 * files, a small JSON object (docs/cli.md, "A trained model's folder"):
 *
 *   {"format": "mha-explain trained model", "version": 1,
 *    "variants": ["fused"], "d_model": 16, "d_out": 16, "heads": 2,
 *    "ff": 0, "layers": 0, "attn_only": false,
 *    "qkv_bias": false, "causal": true, "scale": true,
 *    "positions": 12, "context_length": 12, "tokens": "words",
 *    "lower": false,
 *    "punct": "keep", "unk": false,
 *    "csv": {"delimiter": ",", "decimal_comma": false},
 *    "vocab": ["the", "cat", ...],
 *    "training": {"steps": 300, "optimizer": "adam", "lr": 0.01,
 *                 "seed": 42, "corpus": "corpus.csv"},
 *    (or, trained further: {"steps": 300, "steps_before": 200, ...})
 *    "final_loss": {"fused": 0.1234}}
 *
 * --weights reads it back (manifest_parse): the sizes, the variants, the
 * positions, the tokenizing rules and the vocabulary the folder's files
 * hold, so a reloaded run needs none of those options ("layers" and
 * "attn_only", the block's --layers N and --attn-only, may be missing
 * in a folder written before them: 0 and false). "context_length", the
 * longest sentence trained on, bounds --generate's sequence in a model
 * without learned positions; a folder written before it lacks it (not
 * known: generation is bounded by MAX_TOKENS, and its note says so).
 * "csv" is how the folder's CSV files are written (--csv-delimiter,
 * --decimal-comma of the run that saved it): --weights reads the files
 * so, whatever the options of the run reading them; a folder written
 * before it lacks it (read with the options' --csv-delimiter and
 * --decimal-comma).
 * "d_out" is the attention's width: d_model in a folder of d_model-wide
 * variants alone (the block, variants.h), and read so whatever it says
 * (a folder written before wrote --d-out's value there, which the block
 * does not use).
 * "training" and "final_loss" tell how the model was made. "training"'s
 * "seed" is read back (the --seed of a run of the folder that gives
 * none, cli/weights_options.c). It may be missing (a folder written by
 * hand); present, it is a whole number from 0 to 2^64 - 1 as written
 * (--seed -1 is written 18446744073709551615), read exactly. The rest of
 * the record (steps, optimizer, lr, corpus) and "final_loss" are read
 * for what they say, not for the run: --explain tells how the folder's
 * model was trained, and a run that reads the folder and trains it no
 * further (no --train) writes them back unchanged in its own --csv-dir's
 * model.json, so a copy still says how its model was made. A run that
 * reads the folder and trains it N steps further writes "steps" as the
 * folder's steps plus N and "steps_before" as the folder's steps (written
 * only when more than 0): optimizer, lr, seed and corpus are then those
 * of the last N steps; the record does not say how the earlier steps
 * were taken. "steps" is at most MANIFEST_MAX_STEPS, so that a further
 * run's sum stays a size_t. A record that
 * is missing or that says it otherwise is left unread (record false):
 * it changes no number.
 */
#ifndef MHA_MANIFEST_H
#define MHA_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "io/csv_in.h"
#include "model/run_request.h"
#include "model/tokenize.h"
#include "model/trace.h"

/* The file's name in the folder. */
#define MANIFEST_NAME "model.json"

/* The largest model.json read (its vocabulary of at most MAX_TOKENS
 * words of at most a CSV cell each stays far below). */
#define MANIFEST_MAX_BYTES ((size_t)16 << 20)

/* The most steps a record says (manifest.h): a further --train N adds
 * at most TRAIN_MAX_STEPS. */
#define MANIFEST_MAX_STEPS (SIZE_MAX / 2)

/* What model.json describes. */
typedef struct {
    bool present;      /* the folder holds a model.json */
    unsigned variants; /* the trained variants, a set of variant_bits */
    size_t d_model, d_out, heads;
    size_t ff;      /* the block's feed-forward width (0 without a block) */
    size_t layers;  /* --layers N: the block stacked N times; 0: alone */
    bool attn_only; /* --attn-only: blocks without feed-forward network */
    bool qkv_bias, causal, scale;
    size_t positions; /* C, the learned positions' rows; 0: none */
    size_t context;   /* "context_length": the longest sentence trained
                         on, which bounds generation without positions;
                         0: not recorded (a folder written before it) */
    enum token_mode tokens;
    token_rules rules; /* --lower, --punct */
    bool unk;          /* --unk: the vocabulary has UNK_WORD */
    char **vocab;      /* the V words, in id order; owned */
    size_t n_vocab;
    bool has_csv; /* "csv" gives how the folder's files are written: */
    csv_style csv;
    bool has_seed; /* "training" gives the training's --seed: */
    uint64_t seed;
    /* "training" gives the rest of the record, and "final_loss" each
     * trained variant's (NAN where null): */
    bool record;
    size_t steps;        /* every step the model took, in all its runs */
    size_t steps_before; /* those before the last run's (0: one run) */
    bool adam;           /* "optimizer": "adam" (else "sgd") */
    double lr;
    char *corpus; /* owned; NULL: null (trained on a sentence) */
    float final_loss[MODEL_N_VARIANTS];
} trained_manifest;

/* model.json's text for the trained run rq whose tables are in tr (its
 * vocabulary, positions and losses), into *text (len bytes, owned by the
 * caller), for a folder whose CSV files are written in style csv. corpus
 * is --corpus's file, or NULL. from is the model.json of the --weights
 * folder the run read, or NULL: a run of no step writes from's record
 * and final losses, when it has them, as its own. */
int manifest_text(char **text, size_t *len, const run_request *rq,
                  const trace *tr, const csv_style *csv, const char *corpus,
                  const trained_manifest *from, mx_error *err);

/* Parses model.json's text (len bytes; path names it in messages) into
 * *m, which owns the vocabulary afterwards (manifest_free). Anything
 * missing, of the wrong type or out of range is an error naming the
 * field. */
int manifest_parse(trained_manifest *m, const char *text, size_t len,
                   const char *path, mx_error *err);

void manifest_free(trained_manifest *m);

/* Whether t, a table of a trained run, is one of its model's files: a
 * variant's embedding, positions, parameters or lm_head (not a
 * gradient), which its --csv-dir folder always holds and a live page of
 * the run carries (html.h), so that --weights can read the model back. */
bool manifest_table(const table *t);

#endif
