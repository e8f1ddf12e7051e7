/* error.h: how library code reports what went wrong.
 *
 * Every function that can fail takes an `mx_error *err` as its last
 * argument, fills it and returns -1 (or NULL). Only main.c turns an error
 * into a message on stderr and an exit status.
 */
#ifndef MHA_ERROR_H
#define MHA_ERROR_H

#include <stddef.h>

enum {
    EXIT_OUTPUT_ERROR = 1, /* the output could not be written */
    EXIT_BAD_INPUT = 2,    /* bad usage or bad input */
    EXIT_CHECK_FAILED = 3, /* --check found an invariant that does not hold */
};

/* A mistake in what the caller gave, told in numbers: an item of the
 * command line's --layers 0,3,5-7 past the model's layers, an
 * intervention the model cannot run. The callee knows which mistake and
 * its own numbers; the caller knows what it gave and how its users name
 * it (the item as typed, the option), so the caller writes the message
 * (err_detail_set). */
typedef struct {
    int what;    /* which mistake, a number caller and callee share
                    (model/pipeline.h's run_mistake); 0: none */
    size_t item; /* which item of a list (from 0) or part of the request */
    size_t n[2]; /* the callee's numbers the message tells (its sizes) */
} err_detail;

typedef struct {
    int status;    /* exit status this error leads to: 1 or 2 */
    int usage;     /* nonzero: a command-line mistake, worth a --help hint */
    int sys_errno; /* errno of a failed write, or 0 */
    char msg[512]; /* one line, without the "mha-explain: " prefix */
    err_detail detail; /* a mistake whose message msg does not hold yet:
                          the caller writes it (what 0: none, msg is the
                          message) */
} mx_error;

/* Fills err with a printf-style message and an exit status; returns -1 so
 * callers can write `return err_set(err, ...)`. */
int err_set(mx_error *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The same for input errors (status 2): the common case. */
int err_input(mx_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The same for a command-line mistake: main.c adds a --help hint. */
int err_usage(mx_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* An error of status 2 without its message: mistake `what` of item or
 * part `item`, with the numbers a and b (0 when unused). The caller
 * that gave what was wrong writes msg (a code that puts err's msg into
 * a message of its own passes such an error on untouched); err->detail
 * is cleared by every function that fills msg. */
int err_detail_set(mx_error *err, int what, size_t item, size_t a, size_t b);

/* An allocation of `what` failed: status 2 so a too-large request from the
 * user is reported as bad input rather than a crash. */
int err_nomem(mx_error *err, const char *what);

/* Sets err for a failed write to `what` (status 1), keeping errno's
 * reason. */
int err_write(mx_error *err, const char *what, int errnum);

/* Whether errnum says a path cannot take a file or folder at all (a part
 * missing or not a folder, no permission, a read-only file system, a
 * loop of links, a name too long, a folder or another file in the way):
 * the path given is wrong, not the writing. */
int err_errno_is_path(int errnum);

/* err_write's message for a file or folder that cannot be made at
 * `what`: status 2 when errnum says the path is wrong
 * (err_errno_is_path), else 1 (a full disk, an I/O error). */
int err_path(mx_error *err, const char *what, int errnum);

#endif
