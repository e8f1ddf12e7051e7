/* cleanup.c: the signal handler that removes unfinished files. */
#include "base/cleanup.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* Every signal whose default is to end the program and that a user, a
 * timer or a limit sends: the crash signals (SIGSEGV, SIGABRT, ...) are
 * left to their handlers (a sanitizer's). */
static const int caught_signals[] = {SIGINT,  SIGTERM,   SIGHUP,  SIGPIPE,
                                     SIGQUIT, SIGUSR1,   SIGUSR2, SIGALRM,
                                     SIGXCPU, SIGVTALRM, SIGPROF};
#define N_CAUGHT (sizeof caught_signals / sizeof caught_signals[0])

/* The registered hooks, newest first: the program's one piece of global
 * mutable state, since a signal handler has no other way to reach what
 * it must remove. Changed only with the signals blocked. */
static cleanup_hook *volatile newest;

/* A supervising process's child (cli/supervise.h), or 0: a signal is
 * passed on to it, and its clean-up waited for, before this process ends.
 * Set once, before any signal can need it. */
static volatile pid_t child;

/* In a supervised child: where it notes each file and folder it makes
 * (cleanup_note), or -1. */
static int notes = -1;

static void on_signal(int sig)
{
    if (child > 0) {
        kill(child, sig);
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    for (cleanup_hook *h = newest; h != NULL; h = h->next)
        h->fn(h->ctx);
    /* end as the signal asks: delivered again when the handler returns */
    signal(sig, SIG_DFL);
    raise(sig);
}

void cleanup_init(void)
{
    /* past the file size limit (ulimit -f), a write fails with EFBIG and
     * is reported as any failed write, instead of SIGXFSZ ending the
     * program with its files unfinished */
    signal(SIGXFSZ, SIG_IGN);
    /* `ulimit -t N` sets the hard CPU limit with the soft one, and at the
     * hard limit the kernel sends SIGKILL, which cannot be caught: one
     * second earlier, SIGXCPU ends the run with its files removed */
    struct rlimit cpu;
    if (getrlimit(RLIMIT_CPU, &cpu) == 0 && cpu.rlim_max != RLIM_INFINITY &&
        cpu.rlim_cur == cpu.rlim_max && cpu.rlim_max >= 2) {
        cpu.rlim_cur = cpu.rlim_max - 1;
        setrlimit(RLIMIT_CPU, &cpu);
    }
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_handler = on_signal;
    sigemptyset(&act.sa_mask);
    for (size_t i = 0; i < N_CAUGHT; i++)
        sigaddset(&act.sa_mask, caught_signals[i]);
    for (size_t i = 0; i < N_CAUGHT; i++) {
        struct sigaction old;
        if (sigaction(caught_signals[i], NULL, &old) == 0 &&
            old.sa_handler != SIG_IGN)
            sigaction(caught_signals[i], &act, NULL);
    }
}

void cleanup_block(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < N_CAUGHT; i++)
        sigaddset(&set, caught_signals[i]);
    sigprocmask(SIG_BLOCK, &set, old);
}

void cleanup_unblock(const sigset_t *old)
{
    sigprocmask(SIG_SETMASK, old, NULL);
}

void cleanup_push(cleanup_hook *hook, cleanup_fn fn, const void *ctx)
{
    sigset_t old;
    cleanup_block(&old);
    hook->fn = fn;
    hook->ctx = ctx;
    hook->prev = NULL;
    hook->next = newest;
    if (newest != NULL)
        newest->prev = hook;
    newest = hook;
    cleanup_unblock(&old);
}

void cleanup_pop(cleanup_hook *hook)
{
    sigset_t old;
    cleanup_block(&old);
    if (hook->prev != NULL)
        hook->prev->next = hook->next;
    else if (newest == hook)
        newest = hook->next;
    if (hook->next != NULL)
        hook->next->prev = hook->prev;
    hook->prev = hook->next = NULL;
    cleanup_unblock(&old);
}

bool cleanup_caught(int sig)
{
    for (size_t i = 0; i < N_CAUGHT; i++)
        if (caught_signals[i] == sig)
            return true;
    return false;
}

void cleanup_forward_to(pid_t pid)
{
    child = pid;
}

void cleanup_notes_to(int fd)
{
    notes = fd;
}

void cleanup_note(char kind, dev_t dev, ino_t ino, const char *dir,
                  const char *name)
{
    if (notes < 0)
        return;
    char record[4200];
    const int n =
        snprintf(record, sizeof record, "%c %llu %llu %s%s%s", kind,
                 (unsigned long long)dev, (unsigned long long)ino,
                 dir != NULL ? dir : "", dir != NULL ? "/" : "", name);
    /* a record too long for the buffer is not written: its file is left,
     * as without a supervisor */
    if (n > 0 && (size_t)n < sizeof record &&
        write(notes, record, (size_t)n + 1) < 0)
        return;
}
