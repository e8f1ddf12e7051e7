/* supervise.h: a run that writes files runs in a child process, watched
 * by the process the user started.
 *
 * The picture libraries (cairo, pango, fontconfig, GLib) may abort or
 * crash when an allocation fails, and SIGKILL (`ulimit -t`'s hard limit,
 * the out-of-memory killer) cannot be caught: either would leave the
 * run's temporary files behind. So the run goes on in a child that notes
 * every file and folder it makes (cleanup_note), and the parent waits:
 *   - the child's exit status is the program's;
 *   - a child ended by a signal it handles itself (cleanup.h) has removed
 *     its files: the parent ends by the same signal;
 *   - a child ended by any other signal (a crash, SIGKILL) has not: the
 *     parent removes the files and folders it noted that are still
 *     there (a file only if it is still the one the child made), says so
 *     in one line (not for SIGKILL), and ends by the same signal.
 * A signal sent to the parent is passed on to the child first
 * (cleanup_forward_to); a child whose parent is gone ends as on SIGTERM.
 */
#ifndef MHA_SUPERVISE_H
#define MHA_SUPERVISE_H

/* Forks the run. Returns -1 in the child, or where no child could be
 * made (the run then goes on unsupervised in this process); in the
 * parent, waits for the child and returns the program's exit status, or
 * ends the parent by the child's signal. */
int supervise_run(void);

#endif
