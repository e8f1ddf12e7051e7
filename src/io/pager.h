/* pager.h: output longer than the screen goes through a pager, as git
 * and man do, and --step's output is kept until it is shown.
 *
 * The run's text is spooled (spool.h) and read back; page_text then
 * writes it to standard output, through $MHA_EXPLAIN_PAGER, else $PAGER,
 * else `less -FRX`, when it has as many lines as the screen. */
#ifndef MHA_PAGER_H
#define MHA_PAGER_H

#include <stddef.h>
#include <stdio.h>

#include "base/error.h"

/* The pager when neither variable names one: colours kept (-R), quits at
 * once when the text fits after all (-F), leaves it on the screen (-X). */
#define DEFAULT_PAGER "less -FRX"

/* Reads everything written to f (a spool, spool.h) from its start into
 * a new NUL-terminated *text of *len bytes (the caller frees it), and
 * closes f. */
int read_back(char **text, size_t *len, FILE *f, mx_error *err);

/* The pager command: $MHA_EXPLAIN_PAGER, else $PAGER, else DEFAULT_PAGER;
 * NULL when the one set is empty or "cat" (no pager, as git reads it). */
const char *pager_command(void);

/* Writes text to standard output: through the pager (run by /bin/sh, its
 * standard output the terminal) when the text has at least `rows` lines,
 * else directly. A pager that quits early is not an error; one that
 * cannot start (the shell's status 126 or 127, or no pipe or process)
 * leaves the text to be written directly. Waits for the pager to end.
 * Returns 0; write errors on standard output are found when it is
 * closed. */
int page_text(const char *text, size_t len, size_t rows);

#endif
