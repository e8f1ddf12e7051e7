/* text_rounds.h: the line under a map of the interventions whose every
 * value prints as 0 at --precision although some is not 0 (--metric prob
 * over GPT-2's 50257 words: changes near 5e-06), saying so, with the
 * largest value and the --precision that shows it; and exact zeros
 * printed without a sign. */
#ifndef MHA_TEXT_ROUNDS_H
#define MHA_TEXT_ROUNDS_H

#include <stdio.h>

#include "model/trace.h"

/* The tables besides the maps whose text gets the line: next_tokens'
 * probabilities over GPT-2's 50257 words are near 2e-05. */
#define ROUNDS_NOTE_TABLES TABLE_BIT(NEXT_TOKENS)

/* Writes the line (and its line end) under t, a table printed with
 * `precision` decimals, when t is a map (render/map_axes.h) or one of
 * ROUNDS_NOTE_TABLES whose every finite value rounds to 0 there and one
 * is not 0; else nothing. */
void text_rounds_note(FILE *out, const table *t, int precision);

/* v, with -0.0 made 0.0: the text prints an exact zero without a sign
 * ("0.0000", as the pictures print "0.00"); a value below 0 that rounds
 * to 0 keeps its "-". */
float unsigned_zero(float v);

#endif
