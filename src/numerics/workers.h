/* workers.h: a few threads that share out independent tasks.
 *
 * A run with --threads N has one pool of N threads: the caller and N - 1
 * helpers. workers_run hands out tasks 0, 1, 2, ... one at a time to
 * whichever thread is free next, so a thread slowed down by another
 * program on its core simply takes fewer tasks. Idle helpers sleep on a
 * condition variable (no spinning), and the helpers are only started by
 * the first run that is big enough to be worth them: a small run stays on
 * one thread.
 *
 * Tasks must be independent: each writes its own part of the output, so
 * the result is the same whatever thread runs it and in whatever order.
 */
#ifndef MHA_WORKERS_H
#define MHA_WORKERS_H

#include <stddef.h>

#include "base/error.h"

typedef struct workers workers;

/* The largest --threads accepted. */
#define MAX_THREADS 256

/* Work below this many floating-point operations runs on the caller
 * alone: waking a helper costs more than it saves. */
#define WORKERS_MIN_FLOPS 2.0e6

/* The number of processors this process may use: the CPUs of its affinity
 * mask (sched_getaffinity), at most its cgroups' CPU quota rounded up
 * (cgroup.h), at most MAX_THREADS, at least 1. */
size_t workers_available(void);

/* A pool of `threads` threads (brought into 1 to MAX_THREADS), the caller
 * being one of them. No helper is started here. *out is NULL after a
 * failure; workers_free accepts NULL. */
int workers_init(workers **out, size_t threads, mx_error *err);
void workers_free(workers *w);

/* The pool's number of threads; 1 for NULL. */
size_t workers_threads(const workers *w);

/* Calls task(ctx, i) once for each i in [0, n) and returns when all have
 * returned. `flops` estimates the whole work: below WORKERS_MIN_FLOPS,
 * with a NULL pool, a one-thread pool, or when called from inside a task
 * of the same pool, the tasks run in order on the caller. A helper that
 * cannot be started leaves its share to the others. */
void workers_run(workers *w, size_t n, double flops,
                 void (*task)(void *ctx, size_t i), void *ctx);

#endif
