/* step.h: --step, the run shown one step at a time on a terminal.
 *
 * The renderers mark where a step starts with a form feed ('\f', as pr
 * and man separate pages; labels never hold one, they are escaped), and
 * step_through shows the text between two marks as one screen, waiting
 * for a key. A step opens at its top; one taller than the screen scrolls
 * within itself: Down, j and Enter a line, PageDown, Right and space a
 * screen, then on to the next step; Up and k a line back, PageUp, Left
 * and b a screen back, then the step before; n and p step at once, Home
 * and End (g, G) go to the step's top and end, q quits. */
#ifndef MHA_STEP_H
#define MHA_STEP_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "model/trace.h"

/* The mark between two steps in rendered text. */
#define STEP_MARK '\f'

/* True when the table t, printed after prev (NULL for the first), starts
 * a new step of the computation: tokens (vocab, tokens), embeddings
 * (embedding.weight, inputs, kv_*), a module's parameters, a head's
 * projections (queries, keys, values), and each other table on its own
 * (scores, weights, context, concatenation, output, ...); another variant
 * or head is always a new step. A generation step's tables (--kv-steps:
 * every layer's and head's) are one step, a screen per generation step. */
bool step_starts(const table *t, const table *prev);

/* Shows text (len bytes, steps separated by STEP_MARK) one step at a
 * time: clears the screen, writes as much of the step as the window
 * (TIOCGWINSZ, read again after SIGWINCH) holds above a status line on
 * its last row to out_fd,
 * and reads keys from in_fd, a terminal switched to raw mode (no echo,
 * a key at a time) until the last step is left or q is pressed. The
 * terminal is restored on every way out, also when a signal ends the
 * program or stops it (Ctrl-Z). Returns 0, or -1 with err set when the
 * terminal cannot be used. */
int step_through(const char *text, size_t len, int in_fd, int out_fd,
                 mx_error *err);

#endif
