/* step.c: --step, one step of the run per screen, keys to move. */
#include "render/step.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <termios.h>
#include <unistd.h>

#include "base/i18n.h"
#include "io/fdio.h"
#include "io/keys.h"
#include "render/layout.h"
#include "render/textwidth.h"

/* ---- the terminal ------------------------------------------------------ */

/* The terminal's settings before raw mode and the signal actions before
 * step_through, for the signal handlers: the only state a handler can
 * reach. */
static struct termios saved_termios;
static volatile sig_atomic_t saved_fd = -1;

static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define N_FATAL (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction old_fatal[N_FATAL], old_stop, old_winch;

/* The signal mask before set_handlers. A new window size (SIGWINCH) and
 * Ctrl-Z (SIGTSTP) are held back while a screen is drawn, and let
 * through only while a key is awaited (next_key's pselect), so that
 * neither can come between the drawing and the wait unseen. */
static sigset_t wait_mask;

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

/* A new window size: nothing to do here; the read waiting for a key
 * returns EINTR and the step is drawn again for the new size. */
static void on_winch(int sig)
{
    (void)sig;
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
    sigaction(SIGWINCH, NULL, &old_winch);
    install(SIGWINCH, on_winch);
    sigset_t held;
    sigemptyset(&held);
    sigaddset(&held, SIGWINCH);
    sigaddset(&held, SIGTSTP);
    sigprocmask(SIG_BLOCK, &held, &wait_mask);
}

/* The actions as they were before set_handlers. */
static void restore_handlers(void)
{
    for (size_t i = 0; i < N_FATAL; i++)
        sigaction(fatal_signals[i], &old_fatal[i], NULL);
    sigaction(SIGTSTP, &old_stop, NULL);
    sigaction(SIGWINCH, &old_winch, NULL);
    sigprocmask(SIG_SETMASK, &wait_mask, NULL);
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

/* ---- one step on the screen -------------------------------------------- */

/* The screen's size in cells (TIOCGWINSZ), 80 x 24 when unknown. */
static void screen_size(int fd, size_t *columns, size_t *rows)
{
    struct winsize ws;
    *columns = 80;
    *rows = 24;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
        *columns = ws.ws_col;
        *rows = ws.ws_row;
    }
}

/* The lines of a step: starts[i] and ends[i] (its '\n' or the step's end)
 * for i < n, its trailing blank lines left out; rows[i] the screen rows
 * line i takes at the width it was measured for (a line wider than the
 * screen wraps). */
typedef struct {
    size_t n;
    size_t *starts, *ends, *rows;
} step_lines;

static void lines_free(step_lines *l)
{
    free(l->starts);
    free(l->ends);
    free(l->rows);
    *l = (step_lines){0};
}

/* The lines of text[from, to) (to: the step's mark, or one past the
 * text), each measured for a screen `columns` wide; false when out of
 * memory. */
static bool lines_of(step_lines *l, const char *text, size_t from, size_t to,
                     size_t columns)
{
    size_t end = to - 1; /* the mark, or len */
    while (end > from && text[end - 1] == '\n')
        end--;
    size_t count = 1;
    for (size_t i = from; i < end; i++)
        count += text[i] == '\n';
    *l = (step_lines){0};
    l->starts = malloc(count * sizeof *l->starts);
    l->ends = malloc(count * sizeof *l->ends);
    l->rows = malloc(count * sizeof *l->rows);
    if (l->starts == NULL || l->ends == NULL || l->rows == NULL) {
        lines_free(l);
        return false;
    }
    for (size_t at = from; l->n < count;) {
        const char *nl = memchr(text + at, '\n', end - at);
        const size_t stop = nl != NULL ? (size_t)(nl - text) : end;
        const size_t cells = visible_width(text + at, stop - at);
        l->starts[l->n] = at;
        l->ends[l->n] = stop;
        l->rows[l->n] = cells == 0 ? 1 : (cells + columns - 1) / columns;
        l->n++;
        at = stop + 1;
    }
    return true;
}

/* How many lines from `top` fit in `room` rows (at least one). */
static size_t lines_fitting(const step_lines *l, size_t top, size_t room)
{
    size_t used = 0, k = top;
    while (k < l->n && used + l->rows[k] <= room)
        used += l->rows[k++];
    return k > top ? k - top : (top < l->n ? 1 : 0);
}

/* The top line that shows the step's last line at the screen's bottom:
 * how far the step scrolls. */
static size_t last_top(const step_lines *l, size_t room)
{
    size_t used = 0, k = l->n;
    while (k > 0 && used + l->rows[k - 1] <= room)
        used += l->rows[--k];
    return k < l->n ? k : l->n - 1;
}

/* The first line a page up from top shows. */
static size_t page_up(const step_lines *l, size_t top, size_t room)
{
    size_t used = 0, k = top;
    while (k > 0 && used + l->rows[k - 1] <= room)
        used += l->rows[--k];
    return k < top ? k : top - 1;
}

/* status, cut to fit in `columns` cells less one, into out (of size n). */
static void fit_status(char *out, size_t n, const char *status, size_t columns)
{
    snprintf(out, n, "%s", status);
    size_t len = strlen(out);
    while (len > 0 && display_width(out) + 1 > columns) {
        do /* back to the start of a UTF-8 character */
            len--;
        while (len > 0 && ((unsigned char)out[len] & 0xc0) == 0x80);
        out[len] = '\0';
    }
}

/* The status line's forms, whole and brief, of a step whose lines fill
 * more than a screen (before its last screen, on it) and of one on a
 * screen (before the last step, the last): the brief form where the
 * whole one is wider than the screen, so that "q" stays on it. */
static const struct {
    const char *whole, *brief;
} status_forms[] = {
    {N_("[step %zu of %zu, lines %zu-%zu of %zu: space/Down: more, b/Up: "
        "back, q: quit]"),
     N_("[%zu/%zu, lines %zu-%zu/%zu: space: more, b: back, q: quit]")},
    {N_("[step %zu of %zu, lines %zu-%zu of %zu: space/Down: next, b/Up: "
        "back, q: quit]"),
     N_("[%zu/%zu, lines %zu-%zu/%zu: space: next, b: back, q: quit]")},
    {N_("[step %zu of %zu: Enter or space: next, b: back, q: quit]"),
     N_("[%zu/%zu: space: next, b: back, q: quit]")},
    {N_("[step %zu of %zu, the last: Enter, space or q: quit, b: back]"),
     N_("[%zu/%zu, the last: q: quit, b: back]")},
};

/* What the screen shows: step k of n, from line top of its lines. */
typedef struct {
    size_t k, n, top;
} step_view;

/* The status line of view v into out (of size n), fitting in `columns`
 * cells less one: lines first to last of the step's all (first 0: the
 * step fits the screen). */
static void status_line(char *out, size_t n, const step_view *v, size_t first,
                        size_t last, size_t all, size_t columns)
{
    const bool last_step = v->k + 1 == v->n;
    const size_t form = first == 0   ? (last_step ? 3 : 2)
                        : last < all ? 0
                        : !last_step ? 1
                                     : 3;
    char status[512];
    for (int brief = 0; brief < 2; brief++) {
        const char *f =
            _(brief ? status_forms[form].brief : status_forms[form].whole);
        // the form is the table's: -Wformat-nonliteral cannot check it, the
        // po test's msgfmt -c checks its translations
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        if (form < 2)
            snprintf(status, sizeof status, f, v->k + 1, v->n, first, last,
                     all);
        else
            snprintf(status, sizeof status, f, v->k + 1, v->n);
#pragma GCC diagnostic pop
        if (display_width(status) + 1 <= columns)
            break;
    }
    fit_status(out, n, status, columns);
}

/* Shows the view: the screen cleared, the lines of the step from v->top
 * that fit, and on the last row a status line with the keys. */
static bool show(int fd, const char *text, const step_lines *l,
                 const step_view *v, size_t columns, size_t rows)
{
    static const char clear[] = "\x1b[H\x1b[2J";
    const size_t room = rows > 1 ? rows - 1 : 1;
    const size_t shown = lines_fitting(l, v->top, room);
    char fitted[512];
    status_line(fitted, sizeof fitted, v, l->n > shown ? v->top + 1 : 0,
                v->top + shown, l->n, columns);
    bool good = put(fd, clear, sizeof clear - 1);
    for (size_t i = v->top; good && i < v->top + shown; i++) {
        const size_t from = l->starts[i], to = l->ends[i];
        good = put(fd, text + from, to - from) &&
               (i + 1 == v->top + shown || put(fd, "\n", 1));
    }
    char bottom[32];
    snprintf(bottom, sizeof bottom, "\x1b[0m\x1b[%zu;1H", rows);
    return good && put(fd, bottom, strlen(bottom)) &&
           put(fd, fitted, strlen(fitted));
}

/* ---- keys ---------------------------------------------------------------- */

/* What a key asks for. */
enum action {
    ACT_NONE,
    ACT_LINE_DOWN, /* a line down, else the next step */
    ACT_PAGE_DOWN, /* a screen down, else the next step */
    ACT_LINE_UP,   /* a line up, else the step before */
    ACT_PAGE_UP,   /* a screen up, else the step before */
    ACT_NEXT,      /* the next step at once */
    ACT_BACK,      /* the step before at once */
    ACT_TOP,       /* the step's first line */
    ACT_BOTTOM,    /* the step's last screen */
    ACT_QUIT,
};

static enum action action_of(key_press k)
{
    switch (k.key) {
    case KEY_DOWN:
        return ACT_LINE_DOWN;
    case KEY_UP:
        return ACT_LINE_UP;
    case KEY_PAGE_DOWN:
    case KEY_RIGHT:
        return ACT_PAGE_DOWN;
    case KEY_PAGE_UP:
    case KEY_LEFT:
        return ACT_PAGE_UP;
    case KEY_HOME:
        return ACT_TOP;
    case KEY_END:
        return ACT_BOTTOM;
    case KEY_CHAR:
        break;
    default:
        return ACT_NONE;
    }
    switch (k.ch) {
    case '\n':
    case '\r':
    case 'j':
        return ACT_LINE_DOWN;
    case ' ':
        return ACT_PAGE_DOWN;
    case 'k':
        return ACT_LINE_UP;
    case 'b':
    case 'B':
    case 0x7f: /* Backspace */
        return ACT_PAGE_UP;
    case 'n':
        return ACT_NEXT;
    case 'p':
        return ACT_BACK;
    case 'g':
        return ACT_TOP;
    case 'G':
        return ACT_BOTTOM;
    case 'q':
    case 'Q':
    case 0x04: /* Ctrl-D */
        return ACT_QUIT;
    default:
        return ACT_NONE;
    }
}

/* The bytes read from the terminal and not yet decoded. */
typedef struct {
    unsigned char b[64];
    size_t n;
} key_buffer;

/* The next key from fd: 1, 0 at the end of input, -1 with errno EINTR when
 * a signal came first (a new window size, back from Ctrl-Z). The rest of
 * an escape sequence is waited for a moment, so that ESC alone is the
 * Escape key. */
static int next_key(key_press *k, key_buffer *kb, int fd)
{
    for (;;) {
        if (kb->n > 0) {
            size_t took = key_decode(k, kb->b, kb->n, false);
            if (took == 0) {
                struct pollfd p = {.fd = fd, .events = POLLIN};
                if (kb->n == sizeof kb->b || poll(&p, 1, 50) <= 0)
                    took = key_decode(k, kb->b, kb->n, true);
            }
            if (took > 0) {
                memmove(kb->b, kb->b + took, kb->n - took);
                kb->n -= took;
                return 1;
            }
        }
        // wait with SIGWINCH and SIGTSTP let through (wait_mask)
        fd_set in;
        FD_ZERO(&in);
        FD_SET(fd, &in);
        if (pselect(fd + 1, &in, NULL, NULL, NULL, &wait_mask) < 0)
            return errno == EINTR ? -1 : 0;
        const ssize_t got = read(fd, kb->b + kb->n, sizeof kb->b - kb->n);
        if (got < 0)
            return errno == EINTR ? -1 : 0;
        if (got == 0)
            return 0;
        kb->n += (size_t)got;
    }
}

/* ---- moving through the steps ---------------------------------------------- */

/* The next step, at its top; false past the last. */
static bool next_step(step_view *v)
{
    if (v->k + 1 >= v->n)
        return false;
    v->k++;
    v->top = 0;
    return true;
}

/* The step before, at its top (the first stays). */
static bool step_back(step_view *v)
{
    if (v->k > 0) {
        v->k--;
        v->top = 0;
    }
    return true;
}

/* Moves the view as action a asks, for a screen of `room` rows for the
 * lines; false when the run ends (forward past the last step's end, or
 * q). Down goes on to the next step at the step's end, up to the step
 * before at its top, and a step is always entered at its top. */
static bool move(step_view *v, const step_lines *l, enum action a, size_t room)
{
    const size_t end = last_top(l, room);
    switch (a) {
    case ACT_LINE_DOWN:
    case ACT_PAGE_DOWN:
        if (v->top >= end)
            return next_step(v);
        const size_t by =
            a == ACT_LINE_DOWN ? 1 : lines_fitting(l, v->top, room);
        v->top = v->top + by < end ? v->top + by : end;
        return true;
    case ACT_LINE_UP:
    case ACT_PAGE_UP:
        if (v->top == 0)
            return step_back(v);
        v->top = a == ACT_LINE_UP ? v->top - 1 : page_up(l, v->top, room);
        return true;
    case ACT_NEXT:
        return next_step(v);
    case ACT_BACK:
        return step_back(v);
    case ACT_TOP:
        v->top = 0;
        return true;
    case ACT_BOTTOM:
        v->top = end;
        return true;
    case ACT_QUIT:
        return false;
    case ACT_NONE:
        return true;
    }
    return true;
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
    step_view v = {.k = 0, .n = n, .top = 0};
    step_lines lines = {0};
    size_t shown_k = n, columns = 80, rows = 24;
    key_buffer kb = {.n = 0};
    int rc = 0;
    bool redraw = true, running = true;
    while (running) {
        if (redraw) {
            size_t c, r;
            screen_size(out_fd, &c, &r);
            if (v.k != shown_k || c != columns) {
                lines_free(&lines);
                if (!lines_of(&lines, text, starts[v.k], starts[v.k + 1], c)) {
                    rc = err_nomem(err, _("the steps"));
                    break;
                }
            }
            shown_k = v.k;
            columns = c;
            rows = r;
            const size_t end = last_top(&lines, rows > 1 ? rows - 1 : 1);
            v.top = v.top < end ? v.top : end; /* a taller window */
            if (!show(out_fd, text, &lines, &v, columns, rows))
                break; /* the terminal is gone */
        }
        key_press key;
        const int got = next_key(&key, &kb, in_fd);
        if (got < 0) {
            redraw = true; /* a new size, or back from Ctrl-Z */
            continue;
        }
        if (got == 0)
            break; /* end of input */
        const step_view before = v;
        running = move(&v, &lines, action_of(key), rows > 1 ? rows - 1 : 1);
        redraw = running && (v.k != before.k || v.top != before.top);
    }
    lines_free(&lines);
    put(out_fd, "\n", 1);
    tcsetattr(in_fd, TCSAFLUSH, &saved_termios);
    saved_fd = -1;
    restore_handlers();
    free(starts);
    return rc;
}
