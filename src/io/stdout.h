/* stdout.h: standard output: held when closed, the text of a run written
 * straight or through a spool (copied, paged or a step at a time), and
 * closed with its write errors counted. */
#ifndef MHA_STDOUT_H
#define MHA_STDOUT_H

#include <stdbool.h>
#include <stdio.h>

#include "base/error.h"

/* A standard descriptor that is closed (prog >&-) is held by /dev/null
 * opened the wrong way, so that no file the run opens takes its number
 * and every read or write on it fails (EBADF) as on a closed one. */
void hold_closed_std_fds(void);

/* Whether the text may go through the pager: on a terminal, without
 * --no-pager (no_pager) or --step (step). */
bool may_page(bool no_pager, bool step);

/* The text print writes, on stdout: through the pager when page is set
 * and it is longer than the screen (--help). */
void print_paged(void (*print)(FILE *out), bool page);

/* Where a run's text goes: *out is stdout, or with spooled a new spool
 * (*spool, spool.h) copied to stdout once everything else has
 * succeeded; *spool is NULL otherwise. */
int route_output(FILE **out, FILE **spool, bool spooled, mx_error *err);

/* Whether standard output can take the spooled text: open for writing.
 * A closed or read-only standard output fails the run before any file
 * is put in place (a full one is found only by writing). */
int check_stdout(mx_error *err);

/* Shows text (len bytes) one step at a time, reading keys from in_fd and
 * writing to out_fd, as --step does (render/step.h's step_through). */
typedef int step_fn(const char *text, size_t len, int in_fd, int out_fd,
                    mx_error *err);

/* The spooled text on stdout: as it is, through the pager (page), or a
 * step at a time by step (--step; NULL when not stepping). Closes the
 * spool. */
int spool_to_stdout(FILE *spool, step_fn *step, bool page, mx_error *err);

/* Flushes and closes stdout after a run that ended with `status`. Any
 * write error is a failure (status 1): a full disk, or a closed pipe when
 * SIGPIPE is ignored (otherwise SIGPIPE ends the program, see cleanup.h).
 * A run that failed already said why. Returns the program's status. */
int close_stdout(int status);

#endif
