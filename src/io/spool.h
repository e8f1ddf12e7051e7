/* spool.h: standard output held back until the run has succeeded.
 *
 * A run that also writes files (--csv-dir, --plot, --html) or that reads
 * many sentences (--input) renders its text into a spool, an anonymous
 * temporary file (in $TMPDIR, else /tmp) that has no name on disk, so
 * that nothing is left even if the program is killed. Only when every
 * table is rendered and every file is in place is the spool copied to
 * standard output: a run that fails before then prints nothing there.
 */
#ifndef MHA_SPOOL_H
#define MHA_SPOOL_H

#include <stdio.h>

#include "base/error.h"

/* A new, empty spool open for writing and reading; *out is NULL on
 * failure. */
int spool_open(FILE **out, mx_error *err);

/* Copies what was written to the spool onto the descriptor fd (after
 * flushing stdout, which shares it), then closes the spool. A failed
 * write is an error on "the output" (status 1). */
int spool_copy(FILE *spool, int fd, mx_error *err);

/* After a failed run: when a write to the spool itself failed (a full
 * $TMPDIR), err is set again to name the spool's folder and $TMPDIR, as
 * the renderers that wrote to it only know it as "the output". */
void spool_blame(FILE *spool, mx_error *err);

/* Closes a spool whose text is not wanted (NULL is allowed). */
void spool_discard(FILE *spool);

#endif
