/* family.h: the model families, each one row: how a run of the family
 * checks its input and reads what it needs (a checkpoint's config.json
 * and tokenizer) with its size estimate, its tokens, its forward pass
 * into the trace, the tables a run makes, the explanation --explain and
 * the page give it, and what headings and the CSV call its model and its
 * layers.
 *
 * Four families today, each in its folder under model/:
 *
 *   lesson   the notebooks' attention modules (model/lesson/): single,
 *            wrapper, fused and the Transformer block, drawn from the
 *            seed, trained with --train
 *   bert     a BERT checkpoint folder (--model DIR whose config.json
 *            says "model_type": "bert", model/bert/)
 *   llama    a Llama-style checkpoint folder (--model DIR whose
 *            config.json says llama, qwen2 or mistral, model/llama/)
 *   gpt2     a GPT-2 checkpoint folder (--model DIR whose config.json
 *            says "gpt2" or names no model_type, model/gpt2/)
 *
 * pipeline.h runs the row family_of gives a run's configuration; the
 * trace carries the row (trace.h), so that renderers read the names and
 * the explanation from it rather than asking which family it is. A new
 * family is a folder with its functions, one row of family.c and its
 * sources in src/meson.build (a family the page's core does not carry
 * has its page's version in its folder, named in src/wasm/meson.build,
 * as bert/bert_page.c).
 */
#ifndef MHA_FAMILY_H
#define MHA_FAMILY_H

#include <stdbool.h>

#include "base/error.h"
#include "model/catalogue.h"
#include "model/family_notes.h"
#include "model/lm.h"
#include "model/run_request.h"
#include "model/tokenizers/checkpoint_tokenizer.h"
#include "model/tokenize.h"
#include "model/trace.h"

typedef struct model_family {
    /* The name of the model outside its layers, as headings, the CSV's
     * variant column and --csv-dir's files spell it ("gpt2"), or NULL:
     * every table is named by its variant ("fused", "block"). */
    const char *model_name;
    /* The family's name in messages ("a %s model"), to translate. */
    const char *title;
    /* A layer's name in headings before its index ("h": "[h.3]"), for a
     * family whose tables have layers; NULL otherwise. */
    const char *layer_name;
    /* Its --explain notes, in its folder (family_notes.h), which
     * render/explain_checkpoint.c prints; NULL for the lesson's family,
     * whose notes are each module's, step by step (render/explain.c). */
    const family_notes *notes;
    /* The key of a checkpoint's config.json that gives the model's
     * positions, as messages name it ("n_positions"); NULL for the
     * lesson's family. */
    const char *positions_key;
    /* Whether the family continues a text (--generate, model/generate.h):
     * such a family's run then gives the generation loop its step over a
     * cache it keeps (a generate_model: GPT-2's is
     * model/gpt2/gpt2_generate.h) after its forward pass. A run of
     * --generate with another family is refused, naming it. */
    bool generates;
    /* Whether it also generates with heads switched off (--generate with
     * --ablate): its generate_model's listen applies hooks to every step
     * over its cache (generate.h); else that run is refused. */
    bool generates_ablated;

    /* The model_types of the checkpoints the family reads, as their
     * config.json names them ("bert"), ending in NULL; NULL for the
     * lesson's family, which has every run without --model. */
    const char *const *model_types;
    /* Whether the family also reads a checkpoint whose config.json names
     * no model_type (GPT-2's, the first family the program read). */
    bool untyped;
    /* Which files of its checkpoint folders hold their tokenizer
     * (checkpoint_tokenizer.h), the one place that names them: the
     * family's run and its language model open them
     * (checkpoint_run_tokenizer), and messages name them from here. The
     * core every live page carries reads a vocabulary and merges, not
     * tokenizer.json (families_page.h). NULL for the lesson's family,
     * which reads no folder. */
    const tokenizer_files *tokenizer;
    /* Reads what the run needs to start (a checkpoint's config.json, its
     * tokenizer) and checks, without running, that the input tokenizes
     * and the run fits the limits (pipeline_check); *values is about how
     * many float values its whole trace holds: its size estimate. */
    int (*check)(double *values, const run_request *rq, const model_input *in,
                 bool streamed, mx_error *err);
    /* The input's tokens, labelled as the run's tables label them
     * (pipeline_tokens). */
    int (*tokens)(tokenized *tok, size_t *n_queries, const run_request *rq,
                  const model_input *in, mx_error *err);
    /* The forward pass over the input into tr (pipeline_run). */
    int (*run)(trace *tr, const run_request *rq, const model_input *in,
               mx_error *err);
    /* Whether a run of rq over in makes the table p names (a catalogue
     * row or a parameter, or a gradient; pipeline_makes_table). */
    bool (*makes_table)(const run_request *rq, const model_input *in,
                        const table_pick *p);
    /* A family whose model has an lm_head: the model the interventions
     * run again and again (model/lm.h, model/intervene/); NULL: the
     * family cannot do them. Its run applies rq->replace (hooks.h). */
    const lm_ops *lm;
    /* A family without an lm_head whose model the head scores still
     * read (--head-scores needs each head's attention weights alone):
     * that model, without unembed and layers (lm.h; BERT's,
     * model/bert/bert_lm.h); NULL: lm, or none. */
    const lm_ops *scores_only;
    /* Whether a run takes a second text (--pair: BERT's [CLS] TEXT [SEP]
     * TEXT2 [SEP], the second of token type 1). */
    bool pairs;
    /* Whether its checkpoints' attention looks both ways (BERT's: no
     * causal mask), for messages; false: causal self-attention. */
    bool bidirectional;
    /* A run of the family without an lm_head that still switches heads
     * off in its own pass (--ablate L.H on the lesson's untrained
     * modules, model/lesson/lesson_ablate.h): 1 for such a run (its run
     * applies rq->replace; no intervention's tables), 0 for a run the
     * interventions take as lm's, -1 with err set (a head out of range).
     * NULL: every run is lm's. */
    int (*ablate_alone)(const run_request *rq, mx_error *err);
    /* Whether name is one of a checkpoint's parameters, as --tables
     * names them ("h.0.attn.c_attn.weight"); *layer (if not NULL) its
     * layer, or -1. NULL for a family whose parameters are not named so
     * (the lesson's: --tables' own names). */
    bool (*param_name)(const char *name, int *layer);
} model_family;

/* The family of a run of rq: the lesson's without --model, else the row
 * that lists the model_type of the checkpoint's config.json, or the one
 * that reads a config.json naming none. NULL, with err saying so (naming
 * the model_type and those the rows list), for a model_type no row
 * lists. */
const model_family *family_of(const run_request *rq, mx_error *err);

/* Whether some family names a checkpoint parameter name (--tables with
 * --model, checked before the folder says which family it is). */
bool family_param_name(const char *name);

/* The model_types of the rows that generate with heads switched off
 * (generates_ablated), joined with ", " into out (size bytes). */
void family_types_generating_ablated(char *out, size_t size);

/* Which families family_titles names: the checkpoint families (those
 * with model_types, or untyped), all of them or some. */
enum family_pick {
    FAMILIES_CHECKPOINT,    /* every one (--model's help) */
    FAMILIES_PAIRING,       /* those that take a second text (pairs) */
    FAMILIES_VOCAB_MERGES,  /* those whose tokenizer has a vocabulary
                               and merges (GPT-2's vocab.json and
                               merges.txt) */
    FAMILIES_TOKENIZER_JSON /* those whose tokenizer is tokenizer.json
                               alone */
};

/* The titles of the families `pick` names, translated, each followed
 * with_types by the model_types it reads in parentheses ("Llama-style
 * (llama, qwen2, mistral)"), joined with ", " into out (size bytes),
 * the last row first: GPT-2, the first family the program read, before
 * those added after it. */
void family_titles(char *out, size_t size, enum family_pick pick,
                   bool with_types);

/* The tokenizer files of the first family `pick` names (the last row
 * first, as family_titles lists them), or NULL when it names none. */
const tokenizer_files *family_tokenizer_files(enum family_pick pick);

/* The family of a trace no run has filled: the lesson's, the last row. */
const model_family *family_default(void);

#endif
