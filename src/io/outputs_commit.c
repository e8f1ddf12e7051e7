/* outputs_commit.c: the commit of the transaction that puts a run's
 * files in place (outputs.h): the folders locked, every name checked,
 * each file moved to its name with one rename (the file it replaces kept
 * until outputs_end), then every name checked again; any failure takes
 * every move back. */
#define _XOPEN_SOURCE 700 /* S_ISVTX */
#include "io/outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/i18n.h"
#include "io/folder_locks.h"
#include "io/outputs_parts.h"

/* ---- committing ------------------------------------------------------- */

/* The folder name is in, as its own string ("." for a bare name). */
static char *parent_of(const char *name)
{
    const char *slash = strrchr(name, '/');
    if (slash == NULL)
        return strdup(".");
    if (slash == name)
        return strdup("/");
    return strndup(name, (size_t)(slash - name));
}

/* Locks every folder a file goes in: a folder group's dir, the folder of
 * each file made beside its name (folder_locks.h: in one order for every
 * run). */
static int lock_folders(outputs *tx, mx_error *err)
{
    if (folder_locks_init(&tx->locks, tx->n + tx->n_groups, err) != 0)
        return -1;
    for (size_t g = 0; g < tx->n_groups; g++)
        if (tx->groups[g].folder)
            folder_locks_add(&tx->locks, tx->groups[g].dir);
    const char *last = NULL; /* pages of one run share a folder */
    size_t last_len = 0;
    for (size_t i = 0; i < tx->n; i++) {
        const output_entry *e = &tx->entries[i];
        if (tx->groups[e->group].folder)
            continue;
        const char *slash = strrchr(e->name, '/');
        size_t len = slash != NULL ? (size_t)(slash - e->name) : 0;
        if (last != NULL && len == last_len && memcmp(last, e->name, len) == 0)
            continue;
        last = e->name;
        last_len = len;
        char *parent = parent_of(e->name);
        folder_locks_add(&tx->locks, parent);
        free(parent);
    }
    folder_locks_take(&tx->locks);
    return 0;
}

/* Whether this process may replace the file st at name: in a sticky
 * folder (/tmp) only the owner of the file or of the folder may (or a
 * privileged process). Refused there, the kept link could not be removed
 * either, so the run stops before it makes one. */
static bool may_replace(const char *name, const struct stat *st)
{
    const uid_t me = geteuid();
    if (me == 0 || st->st_uid == me)
        return true;
    char *parent = parent_of(name);
    struct stat dir;
    const bool ok = parent == NULL || stat(parent, &dir) != 0 ||
                    !(dir.st_mode & S_ISVTX) || dir.st_uid == me;
    free(parent);
    return ok;
}

/* Whether the regular file at name may be replaced by a file of group
 * g: any may, unless g has a mark; then one that is empty or holds the
 * mark in its first OUTPUTS_MARK_BYTES bytes. A file that cannot be read
 * is refused, naming why. */
static int check_mark(const group *g, const char *name, const struct stat *st,
                      mx_error *err)
{
    if (g->mark == NULL || st->st_size == 0)
        return 0;
    const int fd = open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        const int e = errno;
        return err_input(err, _("%s: cannot write %s: %s"), g->option, name,
                         strerror(e));
    }
    char head[OUTPUTS_MARK_BYTES + 1];
    size_t got = 0;
    ssize_t n = 1;
    while (got < OUTPUTS_MARK_BYTES && n > 0) {
        n = read(fd, head + got, OUTPUTS_MARK_BYTES - got);
        if (n > 0)
            got += (size_t)n;
    }
    close(fd);
    head[got] = '\0'; // a NUL before the mark: not a page either
    if (strstr(head, g->mark) != NULL)
        return 0;
    return err_input(err,
                     _("%s: %s exists and was not written by mha-explain "
                       "(name a new file, or remove that one)"),
                     g->option, name);
}

/* The last part of a path ("x.svg" of "d/x.svg"). */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

/* Whether names a and b, of one last part, are in one folder. */
static bool same_folder(const char *a, const char *b)
{
    char *pa = parent_of(a), *pb = parent_of(b);
    struct stat sa, sb;
    const bool same = pa != NULL && pb != NULL && stat(pa, &sa) == 0 &&
                      stat(pb, &sb) == 0 && sa.st_dev == sb.st_dev &&
                      sa.st_ino == sb.st_ino;
    free(pa);
    free(pb);
    return same;
}

static int by_base_name(const void *a, const void *b)
{
    const output_entry *const *x = a, *const *y = b;
    return strcmp(base_name((*x)->name), base_name((*y)->name));
}

/* Before anything is looked at: no two files of the run have one name,
 * whatever the spelling (--plot x.svg --html ./x.svg, --html naming a
 * file of --csv-dir). The entries sorted by their last parts, each pair
 * of one last part is looked at where one of them is made beside its
 * name (a folder group names its own files apart). check_intact looks
 * again once the files are in place. */
static int check_names_apart(const outputs *tx, mx_error *err)
{
    if (tx->n < 2)
        return 0;
    const output_entry **by_name = malloc(tx->n * sizeof *by_name);
    if (by_name == NULL)
        return err_nomem(err, _("the file list"));
    for (size_t i = 0; i < tx->n; i++)
        by_name[i] = &tx->entries[i];
    qsort(by_name, tx->n, sizeof *by_name, by_base_name);
    const output_entry *twice = NULL;
    for (size_t i = 0; twice == NULL && i < tx->n; i++)
        for (size_t j = i + 1; twice == NULL && j < tx->n &&
                               by_base_name(&by_name[i], &by_name[j]) == 0;
             j++)
            if ((!tx->groups[by_name[i]->group].folder ||
                 !tx->groups[by_name[j]->group].folder) &&
                same_folder(by_name[i]->name, by_name[j]->name))
                twice = by_name[i];
    free(by_name);
    if (twice == NULL)
        return 0;
    return err_usage(err,
                     _("%s: two outputs of this run have that name (--plot, "
                       "--html and --csv-dir must name different files)"),
                     twice->name);
}

/* Before anything moves: every name can take its file. */
static int check_entry(const outputs *tx, const output_entry *e, mx_error *err)
{
    struct stat st;
    if (tx->groups[e->group].folder) {
        if (e->sub != NULL && lstat(e->sub, &st) == 0) {
            if (S_ISLNK(st.st_mode))
                return err_input(err,
                                 _("--csv-dir: %s is a symbolic link (the run "
                                   "does not write through it)"),
                                 e->sub);
            if (!S_ISDIR(st.st_mode))
                return err_input(err, _("--csv-dir: %s is not a directory"),
                                 e->sub);
        }
    }
    /* what is at a name the user gave (or the run derived from it) is
     * the path's fault: status 2 */
    if (lstat(e->name, &st) != 0) {
        if (errno == ENOENT || tx->groups[e->group].folder)
            return 0;
        return err_path(err, e->name, errno);
    }
    if (S_ISLNK(st.st_mode))
        return err_input(err,
                         _("cannot write %s: it is a symbolic link (name "
                           "the file itself, or a new one)"),
                         e->name);
    if (S_ISDIR(st.st_mode))
        return err_path(err, e->name, EISDIR);
    if (!S_ISREG(st.st_mode)) {
        if (tx->groups[e->group].folder)
            return err_path(err, e->name, EEXIST);
        return err_input(err,
                         _("cannot write %s: it exists and is not a "
                           "regular file"),
                         e->name);
    }
    if (!may_replace(e->name, &st))
        return err_path(err, e->name, EPERM);
    return check_mark(&tx->groups[e->group], e->name, &st, err);
}

/* The new file takes the permission bits of the regular file it
 * replaces (a private file stays private), set on its descriptor: the
 * temporary name is never followed. */
static void take_mode(const output_entry *e, mode_t mode)
{
    int fd = openat(e->at, e->temp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        fchmod(fd, mode & 0777);
    close(fd);
}

/* Moves e's file to its name with one rename, the file there kept as
 * e->kept: a hard link (the name never goes missing), else moved. */
static int place(outputs *tx, output_entry *e, mx_error *err)
{
    if (e->sub != NULL && outputs_make_dir(tx, e->sub, false, err) != 0)
        return -1;
    struct stat st;
    if (lstat(e->name, &st) == 0 && !may_replace(e->name, &st))
        return err_path(err, e->name, EPERM);
    if (lstat(e->name, &st) == 0) {
        if (S_ISREG(st.st_mode))
            take_mode(e, st.st_mode);
        /* a file gone meanwhile (ENOENT) leaves nothing to keep */
        if (linkat(AT_FDCWD, e->name, e->at, e->kept, 0) == 0) {
            e->has_kept = e->linked = true;
        } else if (errno == EEXIST) {
            return err_write(err, e->name, EEXIST);
        } else if (errno != ENOENT) {
            /* a file system without hard links: moved aside */
            if (renameat(AT_FDCWD, e->name, e->at, e->kept) == 0)
                e->has_kept = true;
            else if (errno != ENOENT)
                return err_write(err, e->name, errno);
        }
    }
    if (renameat(e->at, e->temp, AT_FDCWD, e->name) != 0)
        return err_write(err, e->name, errno);
    e->placed = true;
    e->made = false;
    return 0;
}

/* After every file is placed: each is still at its name, not replaced by
 * a later file of the run with the same name (--plot and --html naming
 * one file, or --html a file of --csv-dir, whatever the spelling). */
static int check_intact(const output_entry *e, mx_error *err)
{
    bool mine, missing;
    outputs_look_at_name(e, &mine, &missing);
    if (mine)
        return 0;
    return err_usage(err,
                     _("%s: two outputs of this run have that name "
                       "(--plot, --html and --csv-dir must name "
                       "different files)"),
                     e->name);
}

/* Checks, places and checks again, group by group; with the signals
 * blocked. */
static int commit_blocked(outputs *tx, mx_error *err)
{
    if (check_names_apart(tx, err) != 0)
        return -1;
    for (size_t g = 0; g < tx->n_groups; g++)
        for (size_t i = 0; i < tx->n; i++)
            if (tx->entries[i].group == g &&
                check_entry(tx, &tx->entries[i], err) != 0)
                return -1;
    tx->moving = true;
    for (size_t g = 0; g < tx->n_groups; g++)
        for (size_t i = 0; i < tx->n; i++)
            if (tx->entries[i].group == g &&
                place(tx, &tx->entries[i], err) != 0)
                return -1;
    for (size_t g = 0; g < tx->n_groups; g++)
        for (size_t i = 0; i < tx->n; i++)
            if (tx->entries[i].group == g &&
                check_intact(&tx->entries[i], err) != 0)
                return -1;
    return 0;
}

int outputs_commit(outputs *tx, mx_error *err)
{
    /* another run's files in these folders go first; a signal meanwhile
     * removes this run's temporary files */
    if (lock_folders(tx, err) != 0)
        return -1;
    sigset_t old;
    cleanup_block(&old);
    int rc = commit_blocked(tx, err);
    if (rc != 0)
        outputs_undo(tx);
    cleanup_unblock(&old);
    return rc;
}

/* ---- a name checked before the run ------------------------------------ */

int outputs_check_name(const char *option, const char *path, bool whole,
                       bool folder_may_come, mx_error *err)
{
    struct stat st;
    if (whole && lstat(path, &st) == 0) {
        if (S_ISLNK(st.st_mode))
            return err_input(err,
                             _("%s: %s is a symbolic link (name the file "
                               "itself, or a new one)"),
                             option, path);
        if (S_ISDIR(st.st_mode))
            return err_input(err, _("%s: cannot write %s: %s"), option, path,
                             strerror(EISDIR));
        if (!S_ISREG(st.st_mode))
            return err_input(err, _("%s: %s exists and is not a regular file"),
                             option, path);
        if (!may_replace(path, &st))
            return err_input(err, _("%s: cannot write %s: %s"), option, path,
                             strerror(EPERM));
    } else if (whole && errno != ENOENT) {
        const int e = errno;
        return err_set(
            err, err_errno_is_path(e) ? EXIT_BAD_INPUT : EXIT_OUTPUT_ERROR,
            _("%s: cannot write %s: %s"), option, path, strerror(e));
    }
    /* the folder it goes in: there, a folder, and one this run may add
     * files to */
    char *parent = parent_of(path);
    if (parent == NULL)
        return err_nomem(err, _("a path"));
    int e = 0;
    if (stat(parent, &st) != 0)
        e = errno;
    else if (!S_ISDIR(st.st_mode))
        e = ENOTDIR;
    else if (faccessat(AT_FDCWD, parent, W_OK | X_OK, AT_EACCESS) != 0)
        e = errno;
    free(parent);
    if (e == 0 || (e == ENOENT && folder_may_come))
        return 0;
    return err_set(err,
                   err_errno_is_path(e) ? EXIT_BAD_INPUT : EXIT_OUTPUT_ERROR,
                   _("%s: cannot write %s: %s"), option, path, strerror(e));
}
