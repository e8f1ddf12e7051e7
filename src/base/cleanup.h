/* cleanup.h: what a signal removes before it ends the program.
 *
 * SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
 * SIGXCPU, SIGVTALRM and SIGPROF end the program as usual (no message;
 * the shell sees the signal), but first every unfinished file the program
 * made is removed: temporary files, the private folder of --csv-dir,
 * folders it created; files already put in place whose text is still
 * being copied to standard output are taken back, and the files they
 * replaced put back. A signal that was ignored when the program started
 * (nohup, or SIGPIPE ignored by the parent) stays ignored; a write to a
 * closed pipe is then an error like any other. SIGXFSZ is ignored: a
 * write past the file size limit fails (EFBIG) and is reported.
 *
 * Code that makes files registers a hook while they are unfinished:
 *
 *   cleanup_hook hook;                 (lives in the owner's struct)
 *   cleanup_push(&hook, remove_fn, owner);
 *   ... make and write files ...
 *   cleanup_pop(&hook);
 *
 * A hook's function runs inside a signal handler: it may call only
 * async-signal-safe functions (lstat, rename, unlink, rmdir and their
 * *at forms) and read only what the owner changes between cleanup_block
 * and cleanup_unblock. The one owner today is a run's transaction
 * (io/outputs.h).
 */
#ifndef MHA_CLEANUP_H
#define MHA_CLEANUP_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

typedef void (*cleanup_fn)(const void *ctx);

typedef struct cleanup_hook {
    cleanup_fn fn;
    const void *ctx;
    struct cleanup_hook *prev, *next;
} cleanup_hook;

/* Installs the handler for those signals (those not ignored now) and
 * ignores SIGXFSZ. Called once, at the start of main. */
void cleanup_init(void);

/* Adds hook (owned by the caller, which must pop it before freeing ctx);
 * the newest hook runs first. */
void cleanup_push(cleanup_hook *hook, cleanup_fn fn, const void *ctx);
void cleanup_pop(cleanup_hook *hook);

/* Holds those signals back while an owner changes what its hook reads;
 * a signal that arrives meanwhile is handled at unblock. */
void cleanup_block(sigset_t *old);
void cleanup_unblock(const sigset_t *old);

/* Whether sig is one of those signals: a process ended by it removed its
 * own unfinished files. */
bool cleanup_caught(int sig);

/* In a process that supervises a run (cli/supervise.h): each of those
 * signals is first passed on to pid, and pid's clean-up waited for. */
void cleanup_forward_to(pid_t pid);

/* In the supervised run: each file (kind 'F', its device and inode; 'P'
 * for a file of a private folder and 'T' for a temporary file beside its
 * name, both noted by their path before they are made) and folder (kind
 * 'D', noted before it is made) it makes, at dir/name (dir NULL: name),
 * is noted on fd, so that its supervisor can remove what a crash or
 * SIGKILL left unfinished. Async-signal-safe; without cleanup_notes_to,
 * nothing. */
void cleanup_notes_to(int fd);
void cleanup_note(char kind, dev_t dev, ino_t ino, const char *dir,
                  const char *name);

#endif
