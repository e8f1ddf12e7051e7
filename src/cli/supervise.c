/* supervise.c: the parent that waits for a run and removes what a crash
 * or SIGKILL of it left behind (see supervise.h). */
#define _GNU_SOURCE /* memfd_create, prctl */
#include "cli/supervise.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/i18n.h"

/* One record of the notes (cleanup_note): its kind, the file's identity
 * and its path; false when the text is not a record. */
static bool parse_note(const char *text, char *kind, dev_t *dev, ino_t *ino,
                       const char **path)
{
    unsigned long long d, i;
    int at = 0;
    if (sscanf(text, "%c %llu %llu %n", kind, &d, &i, &at) != 3 || at == 0)
        return false;
    *dev = (dev_t)d;
    *ino = (ino_t)i;
    *path = text + at;
    return **path != '\0';
}

/* Calls fn on each whole record of the notes, in the order they were
 * written; fn returns whether it removed something. Returns how many
 * it removed. The buffer is on the heap: the parent's stack may be
 * small. */
static size_t each_note(int fd, char *buf, size_t size,
                        bool (*fn)(char kind, dev_t dev, ino_t ino,
                                   const char *path))
{
    size_t removed = 0;
    off_t offset = 0;
    for (;;) {
        const ssize_t got = pread(fd, buf, size - 1, offset);
        if (got <= 0)
            break;
        buf[got] = '\0';
        size_t used = 0;
        while (used < (size_t)got) {
            const size_t len = strlen(buf + used);
            if (used + len >= (size_t)got)
                break; /* cut by the buffer: read again from here */
            char kind;
            dev_t dev;
            ino_t ino;
            const char *path;
            if (parse_note(buf + used, &kind, &dev, &ino, &path) &&
                fn(kind, dev, ino, path))
                removed++;
            used += len + 1;
        }
        if (used == 0)
            break; /* a record longer than the buffer: not written */
        offset += (off_t)used;
    }
    return removed;
}

/* The child's file at path, if it is still the one it made ('F'), a
 * file it was making in its private folder ('P', noted before it was
 * made: any regular file there is the child's), or a temporary file it
 * was making beside its name ('T', noted before it was made: the child
 * noted it again, 'F', before writing in it, so a 'T' file that is still
 * empty and this user's is the child's). */
static bool remove_file(char kind, dev_t dev, ino_t ino, const char *path)
{
    struct stat st;
    if ((kind != 'F' && kind != 'P' && kind != 'T') || lstat(path, &st) != 0 ||
        !S_ISREG(st.st_mode))
        return false;
    const bool mine =
        kind == 'P' || (kind == 'F' && st.st_dev == dev && st.st_ino == ino) ||
        (kind == 'T' && st.st_size == 0 && st.st_uid == geteuid());
    return mine && unlink(path) == 0;
}

/* A folder the child made, if it is empty. */
static bool remove_folder(char kind, dev_t dev, ino_t ino, const char *path)
{
    (void)dev;
    (void)ino;
    return kind == 'D' && rmdir(path) == 0;
}

/* Removes what the child noted: its files, then its folders, innermost
 * first (passes until none is removed: a folder empties when the one
 * inside it goes). */
static void remove_noted(int fd)
{
    /* mapped, not allocated: the parent cleans up even when allocations
     * fail */
    const size_t size = 16384;
    char *buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        return;
    each_note(fd, buf, size, remove_file);
    for (int pass = 0; pass < 64; pass++)
        if (each_note(fd, buf, size, remove_folder) == 0)
            break;
    munmap(buf, size);
}

/* Ends this process by sig, as the child ended, without a core dump of
 * the parent; the status stays 128 + sig where sig cannot end it. */
static int end_by(int sig)
{
    const struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    return 128 + sig;
}

/* The parent's part: waits for pid and ends as it did. */
static int wait_for(pid_t pid, int notes)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            status = 1 << 8; /* cannot happen: our own child */
            break;
        }
    }
    cleanup_forward_to(0);
    if (WIFEXITED(status)) {
        close(notes);
        return WEXITSTATUS(status);
    }
    const int sig = WTERMSIG(status);
    if (!cleanup_caught(sig)) {
        remove_noted(notes);
        if (sig != SIGKILL)
            fprintf(stderr,
                    _("mha-explain: the run ended on signal %d (%s); its "
                      "unfinished files were removed\n"),
                    sig, strsignal(sig));
    }
    close(notes);
    return end_by(sig);
}

int supervise_run(void)
{
    const int notes = memfd_create("mha-explain-files", MFD_CLOEXEC);
    if (notes < 0)
        return -1;
    const pid_t parent = getpid();
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0) {
        close(notes);
        return -1;
    }
    if (pid == 0) {
        /* the parent gone (SIGKILL): end as on SIGTERM, files removed */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            raise(SIGTERM);
        cleanup_notes_to(notes);
        return -1;
    }
    cleanup_forward_to(pid);
    return wait_for(pid, notes);
}
