/* test_fdio.c: write_all through partial writes, EINTR and errors.
 *
 * Usage: test_fdio (the reference directory argument is not used)
 */
#define _GNU_SOURCE /* setitimer */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/fdio.h"
#include "tap.h"

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
    (void)sig;
    alarms++;
}

/* A checksum of n bytes that notices order and loss. */
static uint64_t checksum(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211u;
    return h;
}

/* Reads fd to its end slowly (a pipe fills and write blocks), then writes
 * the byte count and checksum to report. */
static void slow_reader(int fd, int report)
{
    unsigned char buf[4096];
    uint64_t result[2] = {0, 14695981039346656037u};
    for (;;) {
        const ssize_t got = read(fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        result[0] += (uint64_t)got;
        result[1] = checksum(result[1], buf, (size_t)got);
        usleep(50);
    }
    (void)write_all(report, result, sizeof result);
    _exit(0);
}

/* 2 MiB through a slowly read pipe while a timer interrupts the writes
 * (no SA_RESTART): every byte arrives in order. */
static void interrupted_pipe(void)
{
    const size_t n = (size_t)2 << 20;
    unsigned char *data = malloc(n);
    if (!ok(data != NULL, "the test's buffer"))
        return;
    for (size_t i = 0; i < n; i++)
        data[i] = (unsigned char)(i * 7 + i / 251);
    int data_pipe[2], report_pipe[2];
    if (!ok(pipe(data_pipe) == 0 && pipe(report_pipe) == 0, "pipes")) {
        free(data);
        return;
    }
    const pid_t pid = fork();
    if (pid == 0) {
        close(data_pipe[1]);
        close(report_pipe[0]);
        slow_reader(data_pipe[0], report_pipe[1]);
    }
    close(data_pipe[0]);
    close(report_pipe[1]);
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm; /* no SA_RESTART: write returns early */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, &old);
    struct itimerval every = {{0, 300}, {0, 300}}, stop = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &every, NULL);
    const int status = write_all(data_pipe[1], data, n);
    setitimer(ITIMER_REAL, &stop, NULL);
    sigaction(SIGALRM, &old, NULL);
    close(data_pipe[1]);
    uint64_t result[2] = {0, 0};
    size_t have = 0;
    while (have < sizeof result) {
        const ssize_t got =
            read(report_pipe[0], (char *)result + have, sizeof result - have);
        if (got <= 0)
            break;
        have += (size_t)got;
    }
    close(report_pipe[0]);
    waitpid(pid, NULL, 0);
    ok(status == 0, "write_all returns 0 after a slow reader took it all");
    ok(alarms > 10, "the writes were interrupted by signals (%d)", (int)alarms);
    ok(have == sizeof result && result[0] == n &&
           result[1] == checksum(14695981039346656037u, data, n),
       "the reader got all %zu bytes in order (got %llu)", n,
       (unsigned long long)result[0]);
    free(data);
}

static void errors(void)
{
    ok(write_all(-1, "", 0) == 0, "nothing to write: 0, no write made");
    errno = 0;
    ok(write_all(-1, "x", 1) == -1 && errno == EBADF,
       "a bad descriptor: -1, errno EBADF");
    const int full = open("/dev/full", O_WRONLY);
    if (full >= 0) {
        errno = 0;
        ok(write_all(full, "abc", 3) == -1 && errno == ENOSPC,
           "/dev/full: -1, errno ENOSPC");
        close(full);
    } else {
        ok(1, "# SKIP /dev/full cannot be opened");
    }
    int fds[2];
    if (pipe(fds) == 0) {
        close(fds[0]);
        signal(SIGPIPE, SIG_IGN);
        errno = 0;
        ok(write_all(fds[1], "abc", 3) == -1 && errno == EPIPE,
           "a pipe whose reader is gone: -1, errno EPIPE");
        signal(SIGPIPE, SIG_DFL);
        close(fds[1]);
    }
}

int main(void)
{
    interrupted_pipe();
    errors();
    return tap_done();
}
