/* failmalloc.c: an LD_PRELOAD library that makes one allocation fail.
 *
 *   MHA_FAIL_ALLOC=N   the N-th call (from 1) of malloc, calloc, realloc,
 *                      strdup, strndup, posix_memalign or aligned_alloc
 *                      returns NULL with errno ENOMEM; 0 or unset: none
 *   MHA_ALLOC_COUNT_FD=K   at exit, write "<calls> <failed>\n" to
 *                      descriptor K (calls counted; 1 if the N-th came)
 *   MHA_FAIL_BACKTRACE=1   print where the failed call came from on
 *                      stderr (to read one case of the sweep by hand)
 *   MHA_CRASH_ON_CREATE=TEXT   the first open or openat that creates a
 *                      file (O_CREAT) whose path holds TEXT raises
 *                      SIGSEGV as soon as the file exists: a crash at
 *                      the worst moment, before the program can note the
 *                      file (a thread of the picture libraries may crash
 *                      at any moment)
 *
 * Counting starts when main does: allocations of the libraries' own
 * initialisers before main (GLib's, which abort by design when one
 * fails) are not the program's. Calls made inside the C library (fopen,
 * vasprintf, ...) reach malloc too and are counted. Everything is passed
 * on to glibc's allocator (__libc_malloc and friends). Used by
 * tests/tools/alloc_sweep.py.
 */
#define _GNU_SOURCE /* RTLD_NEXT, open64 */
/* open and open64 both defined below: neither names the other */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t align, size_t size);
extern void __libc_free(void *p);

static int in_main; /* set when main starts */
static unsigned long calls;
static unsigned long fail_at; /* read once, at the first call */
static int fail_read, failed;

/* Counts one call; nonzero when this one is to fail. */
static int should_fail(void)
{
    if (!in_main)
        return 0;
    if (!fail_read) {
        fail_read = 1;
        const char *s = getenv("MHA_FAIL_ALLOC");
        fail_at = s != NULL ? strtoul(s, NULL, 10) : 0;
    }
    calls++;
    if (fail_at != 0 && calls == fail_at) {
        failed = 1;
        const char *trace = getenv("MHA_FAIL_BACKTRACE");
        if (trace != NULL && trace[0] == '1') {
            void *frames[48];
            backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
        }
        errno = ENOMEM;
        return 1;
    }
    return 0;
}

void *malloc(size_t size)
{
    return should_fail() ? NULL : __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    return should_fail() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    return should_fail() ? NULL : __libc_realloc(p, size);
}

void free(void *p)
{
    __libc_free(p);
}

int posix_memalign(void **out, size_t align, size_t size)
{
    if (should_fail())
        return ENOMEM;
    void *p = __libc_memalign(align, size);
    if (p == NULL)
        return ENOMEM;
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t size)
{
    return should_fail() ? NULL : __libc_memalign(align, size);
}

char *strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = should_fail() ? NULL : __libc_malloc(n);
    if (p != NULL)
        memcpy(p, s, n);
    return p;
}

char *strndup(const char *s, size_t max)
{
    size_t n = strnlen(s, max);
    char *p = should_fail() ? NULL : __libc_malloc(n + 1);
    if (p != NULL) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

/* Raises SIGSEGV after fd, a file made at path, when
 * MHA_CRASH_ON_CREATE asks for it. */
static int crash_if_asked(int fd, const char *path, int flags)
{
    const char *text = getenv("MHA_CRASH_ON_CREATE");
    if (in_main && fd >= 0 && (flags & O_CREAT) && text != NULL &&
        text[0] != '\0' && strstr(path, text) != NULL) {
        /* as a fault would: delivered even where the thread blocks
         * signals (the picture's drawing thread blocks them all) */
        sigset_t segv;
        sigemptyset(&segv);
        sigaddset(&segv, SIGSEGV);
        sigprocmask(SIG_UNBLOCK, &segv, NULL);
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    return fd;
}

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    const mode_t mode =
        (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
    va_end(ap);
    open_fn next;
    void *found = dlsym(RTLD_NEXT, "open");
    memcpy(&next, &found, sizeof next);
    return crash_if_asked(next(path, flags, mode), path, flags);
}

int openat(int dir, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    const mode_t mode =
        (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
    va_end(ap);
    openat_fn next;
    void *found = dlsym(RTLD_NEXT, "openat");
    memcpy(&next, &found, sizeof next);
    return crash_if_asked(next(dir, path, flags, mode), path, flags);
}

/* the names the program calls with 64-bit file offsets */
int open64(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    const mode_t mode =
        (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
    va_end(ap);
    open_fn next;
    void *found = dlsym(RTLD_NEXT, "open64");
    memcpy(&next, &found, sizeof next);
    return crash_if_asked(next(path, flags, mode), path, flags);
}

int openat64(int dir, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    const mode_t mode =
        (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
    va_end(ap);
    openat_fn next;
    void *found = dlsym(RTLD_NEXT, "openat64");
    memcpy(&next, &found, sizeof next);
    return crash_if_asked(next(dir, path, flags, mode), path, flags);
}

/* main, wrapped so that counting starts with it */
int __libc_start_main(int (*main)(int, char **, char **), int argc, char **argv,
                      void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end);
typedef int (*main_fn)(int, char **, char **);
typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void),
                        void (*)(void), void *);
static main_fn real_main;

static int counted_main(int argc, char **argv, char **envp)
{
    in_main = 1;
    return real_main(argc, argv, envp);
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
                      void (*fini)(void), void (*rtld_fini)(void),
                      void *stack_end)
{
    start_fn next;
    /* POSIX's way to read a function's address from dlsym */
    void *found = dlsym(RTLD_NEXT, "__libc_start_main");
    memcpy(&next, &found, sizeof next);
    real_main = main;
    return next(counted_main, argc, argv, init, fini, rtld_fini, stack_end);
}

/* The report for the sweep, written without stdio or allocation. */
__attribute__((destructor)) static void report(void)
{
    const char *s = getenv("MHA_ALLOC_COUNT_FD");
    if (s == NULL)
        return;
    int fd = (int)strtol(s, NULL, 10);
    char buf[48], digits[24];
    size_t n = 0, k = 0;
    unsigned long v = calls;
    do {
        digits[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    while (k > 0)
        buf[n++] = digits[--k];
    buf[n++] = ' ';
    buf[n++] = failed ? '1' : '0';
    buf[n++] = '\n';
    if (write(fd, buf, n) < 0)
        return;
}
