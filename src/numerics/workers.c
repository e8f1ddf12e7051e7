/* workers.c: the thread pool behind --threads (see workers.h).
 *
 * One mutex guards the job: which task comes next, how many have
 * finished. A thread claims a task under the mutex and runs it without;
 * tasks are coarse (a head, a panel of a product), so the mutex is taken
 * a few hundred times per run at most. A helper that wakes after the
 * caller has finished every task finds nothing left and sleeps again; the
 * caller never waits for a helper that has not started a task.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "numerics/workers.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "numerics/cgroup.h"
#include "base/i18n.h"

struct workers {
    size_t threads;    /* the caller and threads - 1 helpers */
    size_t started;    /* helpers running */
    pthread_t *helper; /* threads - 1 entries */
    pthread_mutex_t lock;
    pthread_cond_t wake; /* a job was posted, or stop */
    pthread_cond_t done; /* the job's last task finished */
    bool stop;
    bool running; /* a workers_run is in progress */
    /* the job: tasks [0, n) of task(ctx, i) */
    void (*task)(void *ctx, size_t i);
    void *ctx;
    size_t n, next, finished;
};

/* Runs tasks of the current job until none is left; called and returns
 * with the lock held. */
static void take_tasks(workers *w)
{
    while (w->next < w->n) {
        const size_t i = w->next++;
        void (*task)(void *, size_t) = w->task;
        void *ctx = w->ctx;
        pthread_mutex_unlock(&w->lock);
        task(ctx, i);
        pthread_mutex_lock(&w->lock);
        if (++w->finished == w->n)
            pthread_cond_signal(&w->done);
    }
}

static void *helper_main(void *arg)
{
    workers *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->stop) {
        take_tasks(w);
        if (!w->stop)
            pthread_cond_wait(&w->wake, &w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int workers_init(workers **out, size_t threads, mx_error *err)
{
    *out = NULL;
    if (threads < 1) /* options.c has checked the range: keep to it */
        threads = 1;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    workers *w = calloc(1, sizeof *w);
    if (w == NULL)
        return err_nomem(err, _("the threads"));
    w->threads = threads;
    if (threads > 1) {
        w->helper = calloc(threads - 1, sizeof *w->helper);
        if (w->helper == NULL) {
            free(w);
            return err_nomem(err, _("the threads"));
        }
    }
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    pthread_cond_init(&w->done, NULL);
    *out = w;
    return 0;
}

void workers_free(workers *w)
{
    if (w == NULL)
        return;
    pthread_mutex_lock(&w->lock);
    w->stop = true;
    pthread_cond_broadcast(&w->wake);
    pthread_mutex_unlock(&w->lock);
    for (size_t i = 0; i < w->started; i++)
        pthread_join(w->helper[i], NULL);
    pthread_cond_destroy(&w->done);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w->helper);
    free(w);
}

size_t workers_threads(const workers *w)
{
    return w == NULL ? 1 : w->threads;
}

/* Starts the helpers not yet running; called with the lock held. One that
 * cannot be started leaves its share of the tasks to the others. The
 * helpers start with every signal blocked, and keep it so: a signal is
 * always handled by the thread that runs the program, so that the
 * clean-up a signal runs (base/cleanup.h) never interrupts it halfway
 * through a change it made with the signals blocked. */
static void start_helpers(workers *w)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (w->started + 1 < w->threads) {
        if (pthread_create(&w->helper[w->started], NULL, helper_main, w) != 0)
            break;
        w->started++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void workers_run(workers *w, size_t n, double flops,
                 void (*task)(void *ctx, size_t i), void *ctx)
{
    bool shared = false;
    if (w != NULL && w->threads > 1 && n > 1 && flops >= WORKERS_MIN_FLOPS) {
        pthread_mutex_lock(&w->lock);
        if (!w->running) { /* not a task of this pool asking again */
            w->running = true;
            shared = true;
            start_helpers(w);
            w->task = task;
            w->ctx = ctx;
            w->n = n;
            w->next = 0;
            w->finished = 0;
            pthread_cond_broadcast(&w->wake);
        }
        if (!shared)
            pthread_mutex_unlock(&w->lock);
    }
    if (!shared) {
        for (size_t i = 0; i < n; i++)
            task(ctx, i);
        return;
    }
    take_tasks(w);
    while (w->finished < w->n)
        pthread_cond_wait(&w->done, &w->lock);
    w->n = w->next = w->finished = 0;
    w->task = NULL;
    w->ctx = NULL;
    w->running = false;
    pthread_mutex_unlock(&w->lock);
}

size_t workers_available(void)
{
    size_t cpus = 0;
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        cpus = (size_t)CPU_COUNT(&set);
#endif
    /* Always true where sched_getaffinity is not compiled in. */
    // cppcheck-suppress knownConditionTrueFalse
    if (cpus == 0) {
        const long online = sysconf(_SC_NPROCESSORS_ONLN);
        cpus = online > 0 ? (size_t)online : 1;
    }
    const size_t quota = cgroup_cpu_limit();
    if (quota > 0 && quota < cpus)
        cpus = quota;
    if (cpus > MAX_THREADS)
        cpus = MAX_THREADS;
    return cpus > 0 ? cpus : 1;
}
