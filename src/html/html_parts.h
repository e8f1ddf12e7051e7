/* html_parts.h: the pieces html.c puts into the --html page.
 *
 * html_data.c writes the run's numbers as JSON (each matrix as the
 * little-endian bytes of its float32 values in base64, json_out.h), and
 * calls each view's writer for its part; html_steps.c
 * writes the step-through: each step's --explain note and its tables as
 * the text output prints them. */
#ifndef MHA_HTML_PARTS_H
#define MHA_HTML_PARTS_H

#include <stdbool.h>
#include <stdio.h>

#include "base/error.h"
#include "html/html.h"
#include "html/json_out.h"
#include "model/trace.h"

/* ,"training":{...}: a trained variant's heads at the training's kept
 * steps and its loss (html_training.c), after the variant's heads; w0 is
 * its head 0's attn_weights. Nothing for a variant not trained. */
void html_write_training(FILE *out, const trace *tr, const table *w0);

/* Whether tr is a trained run's with the training's kept steps
 * (attn_weights_steps): its page also holds the training view's script
 * and style (page/training.js, page/training.css) and data. */
bool html_has_training(const trace *tr);

/* ,"text":"translation" for each word of the training view, in a trained
 * run's page only (html_training.c): inside the page's "labels". */
void html_write_training_words(FILE *out, const trace *tr);

/* "maps":[...], the maps of the interventions the run made, and
 * "kvHeads":[...], the key/value head of each query head when some share
 * one, each followed by a comma; nothing for a run without them
 * (html_maps.c). */
void html_write_maps(FILE *out, const trace *tr);

/* Whether the run made a map of the interventions, or has query heads
 * that share key/value heads: its page holds maps.js and maps.css, and
 * their words (html_maps.c). */
bool html_has_maps(const trace *tr);

/* ,"text":"translation" for each word of the Interventions view and the
 * model view's marks, inside the page's "labels", in a run with maps or
 * key/value heads only (html_maps.c). */
void html_write_maps_words(FILE *out, const trace *tr);

/* "generation":{...}, a generation run's new tokens, their likeliest
 * alternatives and each step's heads' rows, followed by a comma; nothing
 * for a run that did not generate (html_generation.c). */
int html_write_generation(FILE *out, const trace *tr, mx_error *err);

/* Whether the run generated (--generate N): its page holds
 * generation.js and generation.css (html_generation.c). */
bool html_has_generation(const trace *tr);

/* "logitLens":{...}, --logit-lens's likeliest next token at each layer
 * and position with its probability, followed by a comma; nothing for a
 * run without it (html_lens.c). */
int html_write_lens(FILE *out, const trace *tr, mx_error *err);

/* Whether the run made the logit lens: its page holds lens.js and its
 * words (html_lens.c). */
bool html_has_lens(const trace *tr);

/* ,"text":"translation" for each word of the Logit lens view, inside the
 * page's "labels", in a run with the logit lens only (html_lens.c). */
void html_write_lens_words(FILE *out, const trace *tr);

/* The page's data object (docs/html.md): tokens, flags, and for each
 * variant with attention weights its heads' matrices and its steps. */
int html_write_data(FILE *out, const trace *tr, const html_page *page,
                    mx_error *err);

/* The steps of the run's input (variant "input"), or of one variant (of
 * one block of a stack: its layer), as a JSON list [{"step": id, "note":
 * [sentences], "text": tables}, ...]. */
int html_write_steps(FILE *out, const trace *tr, variant_id variant, int layer,
                     const html_page *page, mx_error *err);

/* The trained model a model run's page carries (html.h), in base64: its
 * files as a --weights folder holds them, each its name ('\0'-ended),
 * its length (4 bytes, little-endian) and its bytes: model.json's text,
 * then each of the trace's model tables (manifest_table), named
 * "<variant>.<name>.csv" as --csv-dir names it, in the page's own form:
 * rows and cols (4 bytes each, little-endian), the rows' labels (each
 * '\0'-ended) and the rows x cols float32 values (little-endian). The
 * WebAssembly core reads it as the run's --weights folder
 * (src/wasm/page_folder.c). A model trained on a corpus carries its
 * sentences last, as the file PAGE_CORPUS_NAME: each sentence's line in
 * the corpus's file (4 bytes, little-endian) and its text ('\0'-ended),
 * which the core reads as --corpus's sentences. An error when it would
 * pass HTML_MODEL_MAX_BYTES. */
#define PAGE_CORPUS_NAME "corpus"

int html_model_size(size_t *bytes, const trace *tr, const html_model *model,
                    mx_error *err);
void html_write_model(FILE *out, const trace *tr, const html_model *model);

#endif
