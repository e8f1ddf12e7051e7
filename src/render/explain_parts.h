/* explain_parts.h: what the files of --explain share (explain.h): the
 * notes' sentences wrapped as "# " lines (explain_say.c), a module's
 * opening words (explain_module.c) and a trained run's notes
 * (explain_training.c). Not for use outside src/render/. */
#ifndef MHA_EXPLAIN_PARTS_H
#define MHA_EXPLAIN_PARTS_H

#include <stdbool.h>
#include <stdio.h>

#include "render/explain.h"

/* Prints a note as "# " lines of at most 76 display cells (an ideograph
 * counts two), fewer on a screen narrower than that (screen 0: no limit;
 * EXPLAIN_NO_WRAP: one line). Lines break at spaces, or between Chinese
 * characters, never inside a shape "(5, 2, 2)". */
/* clang-format off */
__attribute__((format(printf, 3, 4)))
void explain_say(FILE *out, size_t screen, const char *fmt, ...);
/* clang-format on */

/* A module's opening words, at its first table: its sentence (its row's,
 * variants.h), then its parameters counted. */
void explain_module(FILE *out, variant_id variant, const explain_context *c);

/* With --batch B > 1: the masks cover the batch, element 0's shown. */
void explain_batch_masks(FILE *out, const explain_context *c);

/* The inputs: looked up, given in a file or drawn (--randn-input); then
 * the order of --draw. */
void explain_inputs(FILE *out, const explain_context *c);

/* The rules that made the words (--lower, --punct, --unk), after the
 * tokens' note. */
void explain_rules(FILE *out, const explain_context *c);

/* What --train did, before the tables (which are the trained model's). */
void explain_training(FILE *out, const explain_context *c);

/* The loss table's note: the loss, what one step does, and without
 * --grad the backward pass the steps ran; whether its last row is
 * another sentence's than the steps' (--corpus). width: a head's
 * width. */
void explain_loss(FILE *out, const explain_context *c, const table *loss,
                  size_t width);

/* The note before a gradient table t (--grad), or false for none. */
bool explain_grad(FILE *out, const table *t, const table *prev,
                  const explain_context *c, size_t width);

/* How each generated token was picked (generated, N x 15,
 * model/generate.h): greedy, or the warpers with each step's numbers read
 * from the table (explain_training.c; a checkpoint's note ends with it
 * too). */
void explain_picking(FILE *out, const table *t, const explain_context *c);

/* A trained lesson model's generated table: each step runs the whole
 * sequence again, then how each word was picked (explain_training.c). */
void explain_lesson_generated(FILE *out, const table *t,
                              const explain_context *c);

#endif
