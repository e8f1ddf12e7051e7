/* step.c: --step, one step of the run per screen, keys to move. */
#include "render/step.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "io/fdio.h"
#include "cli/i18n.h"

/* ---- where a step starts ---------------------------------------------- */

bool step_starts(const table *t, const table *prev)
{
    // a step of the catalogue (catalogue.h), for one variant and head
    return prev == NULL || t->variant != prev->variant ||
           t->head != prev->head ||
           table_step(t->id, t->variant) != table_step(prev->id, prev->variant);
}

/* ---- the terminal ------------------------------------------------------ */

/* The terminal's settings before raw mode and the signal actions before
 * step_through, for the signal handlers: the only state a handler can
 * reach. */
static struct termios saved_termios;
static volatile sig_atomic_t saved_fd = -1;

static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define N_FATAL (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction old_fatal[N_FATAL], old_stop;

static int raw_mode(int fd)
{
    struct termios raw = saved_termios;
    raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    return tcsetattr(fd, TCSAFLUSH, &raw);
}

/* Sets the action of sig, without SA_RESTART: a read waiting for a key
 * returns EINTR after a handler ran. */
static void install(int sig, void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = handler;
    sigaction(sig, &sa, NULL);
}

/* Delivers sig now, with the action it had before step_through (the
 * default, or the program's clean-up, cleanup.h): it is blocked while
 * this handler runs, so it is unblocked here. */
static void raise_again(int sig, const struct sigaction *before)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigaction(sig, before, NULL);
    raise(sig);
    /* raise() returns here: the signal stays pending until unblocked. */
    // cppcheck-suppress unreachableCode
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* A signal that ends the program: the terminal as it was, then the
 * signal's own action (so the exit status says which signal). */
static void on_fatal(int sig)
{
    if (saved_fd >= 0)
        tcsetattr(saved_fd, TCSAFLUSH, &saved_termios);
    for (size_t i = 0; i < N_FATAL; i++)
        if (fatal_signals[i] == sig)
            raise_again(sig, &old_fatal[i]);
}

/* Ctrl-Z: the terminal as it was while stopped, raw again after. */
static void on_stop(int sig)
{
    const int fd = saved_fd;
    const int saved_errno = errno;
    if (fd >= 0)
        tcsetattr(fd, TCSAFLUSH, &saved_termios);
    raise_again(sig, &old_stop); /* stops here until SIGCONT */
    install(sig, on_stop);
    if (fd >= 0)
        raw_mode(fd);
    errno = saved_errno;
}

/* Installs the handlers, keeping the actions they replace. */
static void set_handlers(void)
{
    for (size_t i = 0; i < N_FATAL; i++) {
        sigaction(fatal_signals[i], NULL, &old_fatal[i]);
        if (old_fatal[i].sa_handler != SIG_IGN) /* nohup stays nohup */
            install(fatal_signals[i], on_fatal);
    }
    sigaction(SIGTSTP, NULL, &old_stop);
    if (old_stop.sa_handler != SIG_IGN)
        install(SIGTSTP, on_stop);
}

/* The actions as they were before set_handlers. */
static void restore_handlers(void)
{
    for (size_t i = 0; i < N_FATAL; i++)
        sigaction(fatal_signals[i], &old_fatal[i], NULL);
    sigaction(SIGTSTP, &old_stop, NULL);
}

/* ---- the steps ---------------------------------------------------------- */

/* Writes all n bytes of s; false when the terminal went away. */
static bool put(int fd, const char *s, size_t n)
{
    return write_all(fd, s, n) == 0;
}

/* The start of each step in text: starts[k] for k < n, starts[n] = len + 1
 * (one past its mark). Steps with nothing in them are skipped. */
static size_t *split_steps(const char *text, size_t len, size_t *n)
{
    size_t marks = 0;
    for (size_t i = 0; i < len; i++)
        marks += text[i] == STEP_MARK;
    size_t *starts = malloc((marks + 2) * sizeof *starts);
    if (starts == NULL)
        return NULL;
    size_t k = 0, from = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && text[i] != STEP_MARK)
            continue;
        if (i > from)
            starts[k++] = from;
        from = i + 1;
    }
    if (k == 0)
        starts[k++] = 0;
    starts[k] = len + 1;
    *n = k;
    return starts;
}

/* Shows step k of n (starting at text + from, until the next mark). */
static bool show(int fd, const char *text, size_t from, size_t to, size_t k,
                 size_t n)
{
    static const char clear[] = "\x1b[H\x1b[2J";
    char status[256];
    size_t end = to - 1; /* the mark, or len */
    while (end > from && text[end - 1] == '\n')
        end--;
    snprintf(status, sizeof status,
             k + 1 < n ? _("[step %zu of %zu: Enter or space: next, b: back, "
                           "q: quit]")
                       : _("[step %zu of %zu, the last: Enter, space or q: "
                           "quit, b: back]"),
             k + 1, n);
    return put(fd, clear, sizeof clear - 1) &&
           put(fd, text + from, end - from) && put(fd, "\n\n", 2) &&
           put(fd, status, strlen(status));
}

/* What a key asks for. */
enum action { ACT_NONE, ACT_NEXT, ACT_BACK, ACT_QUIT };

static enum action action_of(unsigned char c)
{
    switch (c) {
    case '\n':
    case '\r':
    case ' ':
    case 'n':
    case 'j':
        return ACT_NEXT;
    case 'b':
    case 'B':
    case 'p':
    case 'k':
    case 0x7f: /* Backspace */
        return ACT_BACK;
    case 'q':
    case 'Q':
    case 0x04: /* Ctrl-D */
        return ACT_QUIT;
    default:
        return ACT_NONE;
    }
}

int step_through(const char *text, size_t len, int in_fd, int out_fd,
                 mx_error *err)
{
    size_t n = 0;
    size_t *starts = split_steps(text, len, &n);
    if (starts == NULL)
        return err_nomem(err, _("the steps"));
    if (tcgetattr(in_fd, &saved_termios) != 0) {
        free(starts);
        return err_usage(err,
                         _("--step: cannot read the terminal's settings: "
                           "%s"),
                         strerror(errno));
    }
    saved_fd = in_fd;
    set_handlers();
    if (raw_mode(in_fd) != 0) {
        const int e = errno;
        saved_fd = -1;
        restore_handlers();
        free(starts);
        return err_usage(err, _("--step: cannot set up the terminal: %s"),
                         strerror(e));
    }
    size_t k = 0;
    bool redraw = true, running = true;
    while (running) {
        if (redraw && !show(out_fd, text, starts[k], starts[k + 1], k, n))
            break; /* the terminal is gone */
        redraw = false;
        unsigned char c;
        ssize_t got = read(in_fd, &c, 1);
        if (got < 0 && errno == EINTR) {
            redraw = true; /* back from Ctrl-Z: the screen may be another */
            continue;
        }
        if (got <= 0)
            break; /* end of input */
        switch (action_of(c)) {
        case ACT_NEXT:
            running = k + 1 < n;
            k += running;
            redraw = running;
            break;
        case ACT_BACK:
            redraw = k > 0;
            k -= k > 0;
            break;
        case ACT_QUIT:
            running = false;
            break;
        case ACT_NONE:
            break;
        }
    }
    put(out_fd, "\n", 1);
    tcsetattr(in_fd, TCSAFLUSH, &saved_termios);
    saved_fd = -1;
    restore_handlers();
    free(starts);
    return 0;
}
