/* outputs.c: the transaction that puts a run's files in place together
 * (see outputs.h): its files and folders made, its moves taken back, its
 * end; outputs_commit.c moves the files in place.
 *
 * Each file is an entry: its name, its temporary name (relative to `at`:
 * the working directory for a file made beside its name, the private
 * folder for a file of a folder group) and the name that keeps the file
 * it replaces, "<temp>.old" in the same place. Entries are moved in the
 * order of their groups, then of their making, and taken back in the
 * reverse order.
 *
 * While the transaction is open, a signal that ends the program first
 * runs remove_unfinished (cleanup.h): it may call only async-signal-safe
 * functions (lstat, rename, unlink, rmdir), so everything it reads is
 * changed only with the signals blocked, and every name it needs is made
 * beforehand.
 */
#include "io/outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/i18n.h"
#include "io/folder_locks.h"
#include "io/outputs_parts.h"

static int grow(void *array, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t new_cap = *cap ? 2 * *cap : 8;
    void *p = realloc(*(void **)array, new_cap * size);
    if (p == NULL)
        return -1;
    *(void **)array = p;
    *cap = new_cap;
    return 0;
}

/* ---- taking moves back ------------------------------------------------ */

/* Whether the file at e->name is the one this run wrote (mine) or there is
 * none (missing); async-signal-safe. */
void outputs_look_at_name(const output_entry *e, bool *mine, bool *missing)
{
    struct stat st;
    int rc = lstat(e->name, &st);
    *missing = rc != 0 && errno == ENOENT;
    *mine = rc == 0 && st.st_dev == e->dev && st.st_ino == e->ino;
}

/* Takes e's move back without changing e: the kept file put back over
 * this run's own file (or a name left empty), a link to a file never
 * replaced dropped, this run's file removed where it replaced nothing. A
 * file at the name that this run did not write stays; so does a kept
 * file that is the only copy of the old one. Async-signal-safe. */
static void take_back(const output_entry *e)
{
    bool mine, missing;
    outputs_look_at_name(e, &mine, &missing);
    if (e->has_kept) {
        if (e->placed ? mine || missing : missing)
            renameat(e->at, e->kept, AT_FDCWD, e->name);
        else if (e->linked)
            unlinkat(e->at, e->kept, 0);
    } else if (e->placed && mine) {
        unlink(e->name);
    }
}

/* Every entry's move taken back, newest first; async-signal-safe. */
static void take_all_back(const outputs *tx)
{
    for (size_t g = tx->n_groups; g-- > 0;)
        for (size_t i = tx->n; i-- > 0;)
            if (tx->entries[i].group == g)
                take_back(&tx->entries[i]);
}

/* What a signal removes: the files in place taken back, the temporary
 * files, the private folders and the folders made. */
static void remove_unfinished(const void *ctx)
{
    const outputs *tx = ctx;
    if (tx->moving)
        take_all_back(tx);
    for (size_t i = 0; i < tx->n; i++)
        if (tx->entries[i].made)
            unlinkat(tx->entries[i].at, tx->entries[i].temp, 0);
    for (size_t g = 0; g < tx->n_groups; g++)
        if (tx->groups[g].private_dir != NULL)
            rmdir(tx->groups[g].private_dir);
    for (size_t i = tx->n_made; i-- > 0;)
        rmdir(tx->made[i]);
}

/* Every move taken back and forgotten. */
void outputs_undo(outputs *tx)
{
    take_all_back(tx);
    for (size_t i = 0; i < tx->n; i++) {
        output_entry *e = &tx->entries[i];
        e->has_kept = e->linked = e->placed = false;
    }
    tx->moving = false;
}

/* ---- beginning -------------------------------------------------------- */

int outputs_begin(outputs **out, mx_error *err)
{
    outputs *tx = calloc(1, sizeof *tx);
    *out = tx;
    if (tx == NULL)
        return err_nomem(err, _("the file list"));
    cleanup_push(&tx->hook, remove_unfinished, tx);
    return 0;
}

/* A new group, with the signals blocked. */
static group *add_group(outputs *tx, size_t *index, mx_error *err)
{
    if (grow(&tx->groups, &tx->cap_groups, tx->n_groups, sizeof *tx->groups) !=
        0) {
        err_nomem(err, _("the file list"));
        return NULL;
    }
    group *g = &tx->groups[tx->n_groups];
    memset(g, 0, sizeof *g);
    g->fd = -1;
    *index = tx->n_groups++;
    return g;
}

int outputs_beside(outputs *tx, size_t *index, const char *option,
                   const char *mark, mx_error *err)
{
    sigset_t old;
    cleanup_block(&old);
    group *g = add_group(tx, index, err);
    if (g != NULL) {
        g->option = option;
        g->mark = mark;
    }
    cleanup_unblock(&old);
    return g != NULL ? 0 : -1;
}

static int remember_made(outputs *tx, const char *path, mx_error *err)
{
    char *copy = strdup(path);
    if (copy == NULL ||
        grow(&tx->made, &tx->cap_made, tx->n_made, sizeof *tx->made) != 0) {
        rmdir(path);
        free(copy);
        return err_nomem(err, _("a path"));
    }
    tx->made[tx->n_made++] = copy;
    return 0;
}

/* mkdir(path) for the run, noted for its supervisor first: a SIGKILL
 * between the two then leaves nothing the supervisor does not know of.
 * A folder noted but not made (mkdir failed, or another process made it
 * first) is harmless to the supervisor, which removes only empty
 * folders. */
static int make_noted_dir(const char *path, mode_t mode)
{
    cleanup_note('D', 0, 0, NULL, path);
    return mkdir(path, mode);
}

/* The folder path exists (made now if missing, remembered). A folder the
 * user named (follow) may be a symlink to one; a folder the run adds
 * inside it (sentence<k>) may not: the run never writes through a link.
 * A folder that another run makes between the look and mkdir is used. */
int outputs_make_dir(outputs *tx, const char *path, bool follow, mx_error *err)
{
    struct stat st;
    if ((follow ? stat(path, &st) : lstat(path, &st)) == 0) {
        if (S_ISLNK(st.st_mode))
            return err_input(err,
                             _("--csv-dir: %s is a symbolic link (the run "
                               "does not write through it)"),
                             path);
        if (!S_ISDIR(st.st_mode))
            return err_input(err, _("--csv-dir: %s is not a directory"), path);
        return 0;
    }
    /* a symlink loop, a folder that cannot be searched: say why */
    if (errno != ENOENT)
        return err_input(err, _("--csv-dir: cannot create %s: %s"), path,
                         strerror(errno));
    if (make_noted_dir(path, 0777) != 0) {
        int e = errno;
        if (e == EEXIST && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            return 0; /* made meanwhile by someone else: not ours */
        if (e == EEXIST && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
            return err_input(err,
                             _("--csv-dir: %s is a symbolic link to a "
                               "folder that does not exist"),
                             path);
        /* a read-only or forbidden folder is the path given (status 2);
         * a full disk or an I/O error a failure of the writing (1) */
        return err_set(
            err, err_errno_is_path(e) ? EXIT_BAD_INPUT : EXIT_OUTPUT_ERROR,
            _("--csv-dir: cannot create %s: %s"), path, strerror(e));
    }
    return remember_made(tx, path, err);
}

/* mkdir -p dir, remembering what it made. */
static int make_dirs(outputs *tx, const char *dir, mx_error *err)
{
    char *path = strdup(dir);
    if (path == NULL)
        return err_nomem(err, _("a path"));
    size_t len = strlen(path);
    int rc = 0;
    for (size_t i = 1; i <= len && rc == 0; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        if (path[i - 1] == '/')
            continue;
        char saved = path[i];
        path[i] = '\0';
        rc = outputs_make_dir(tx, path, true, err);
        path[i] = saved;
    }
    free(path);
    return rc;
}

/* The XXXXXX at the end of path become random letters and digits. */
static int random_letters(char *path)
{
    static const char letters[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    char *x = path + strlen(path) - 6;
    unsigned char r[6];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
        return -1;
    for (size_t i = 0; i < sizeof r; i++)
        x[i] = letters[r[i] % (sizeof letters - 1)];
    return 0;
}

/* mkdtemp(path), its name noted for the supervisor before the folder is
 * made (make_noted_dir), tried again while the name is taken. Returns 0,
 * or -1 with errno set. */
static int make_private_dir(char *path)
{
    for (int attempt = 0; attempt < 100; attempt++) {
        if (random_letters(path) != 0)
            return -1;
        if (make_noted_dir(path, 0700) == 0)
            return 0;
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

/* mkstemp(path), with each name noted for the supervisor before the file
 * is made (kind 'T'): another thread of the run (pango's font loader)
 * may crash at any moment, also between the making of the file and the
 * note of its identity ('F'). The supervisor removes a 'T' file only
 * while it is empty and this user's (cli/supervise.c). */
static int make_noted_file(char *path)
{
    for (int attempt = 0; attempt < 100; attempt++) {
        if (random_letters(path) != 0)
            return -1;
        cleanup_note('T', 0, 0, NULL, path);
        const int fd = open(
            path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

/* outputs_folder with the signals blocked. */
static int begin_folder(outputs *tx, size_t *index, const char *dir,
                        mx_error *err)
{
    group *g = add_group(tx, index, err);
    if (g == NULL)
        return -1;
    g->folder = true;
    g->dir = strdup(dir);
    size_t n = strlen(dir) + 40;
    char *private_dir = malloc(n);
    if (g->dir == NULL || private_dir == NULL) {
        free(private_dir);
        return err_nomem(err, _("a path"));
    }
    snprintf(private_dir, n, "%s/.mha-explain-unfinished.XXXXXX", g->dir);
    if (make_dirs(tx, dir, err) != 0) {
        free(private_dir);
        return -1;
    }
    if (make_private_dir(private_dir) != 0) {
        int e = errno;
        free(private_dir);
        return err_path(err, dir, e);
    }
    g->private_dir = private_dir;
    g->fd = open(private_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (g->fd < 0)
        return err_write(err, private_dir, errno);
    return 0;
}

int outputs_folder(outputs *tx, size_t *index, const char *dir, mx_error *err)
{
    sigset_t old;
    cleanup_block(&old);
    int rc = begin_folder(tx, index, dir, err);
    cleanup_unblock(&old);
    return rc;
}

/* ---- files ------------------------------------------------------------ */

/* "dir/.name.XXXXXX" beside path, for make_noted_file; at most 200 bytes of the
 * name, so that a name near the 255-byte limit still has a temporary and
 * a kept one. */
static char *beside_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash != NULL ? (size_t)(slash - path) + 1 : 0;
    size_t n = strlen(path) + 16;
    char *temp = malloc(n);
    if (temp != NULL)
        snprintf(temp, n, "%.*s.%.200s.XXXXXX", (int)dir_len, path,
                 path + dir_len);
    return temp;
}

/* "n<i>", a file's name in a private folder. */
static char *folder_name(size_t i)
{
    char *name = malloc(24);
    if (name != NULL)
        snprintf(name, 24, "n%zu", i);
    return name;
}

/* e's name, and in a folder group the folder sub to make. */
static int name_entry(output_entry *e, const group *g, const char *sub,
                      const char *name)
{
    if (!g->folder) {
        e->name = strdup(name);
        return e->name != NULL ? 0 : -1;
    }
    size_t len = strlen(g->dir) + (sub ? strlen(sub) : 0) + strlen(name) + 3;
    e->name = malloc(len);
    if (e->name == NULL)
        return -1;
    if (sub == NULL) {
        snprintf(e->name, len, "%s/%s", g->dir, name);
        return 0;
    }
    snprintf(e->name, len, "%s/%s/%s", g->dir, sub, name);
    e->sub = malloc(len);
    if (e->sub == NULL)
        return -1;
    snprintf(e->sub, len, "%s/%s", g->dir, sub);
    return 0;
}

/* Makes entry e's temporary file, with the signals blocked; its
 * descriptor, or -1 with err set. */
static int make_temp(output_entry *e, const group *g, mx_error *err)
{
    int fd = -1;
    if (g->folder) {
        e->at = g->fd;
        e->temp = folder_name(g->files);
    } else {
        e->at = AT_FDCWD;
        e->temp = beside_name(e->name);
    }
    size_t len = e->temp != NULL ? strlen(e->temp) + 5 : 0;
    e->kept = len > 0 ? malloc(len) : NULL;
    if (e->kept == NULL)
        return err_nomem(err, _("a path"));
    if (g->folder) {
        /* a new name in a private folder: the mode is 0666 less the
         * umask; noted by its path first (only this run writes in the
         * folder), so that a SIGKILL right after it is made leaves
         * nothing the supervisor does not know of */
        cleanup_note('P', 0, 0, g->private_dir, e->temp);
        fd = openat(e->at, e->temp,
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    } else {
        fd = make_noted_file(e->temp);
    }
    if (fd < 0 && g->option != NULL) {
        /* the folder the user named takes no file (a read-only one,
         * /proc): said as the pre-run check says it */
        const int e_no = errno;
        return err_set(
            err, err_errno_is_path(e_no) ? EXIT_BAD_INPUT : EXIT_OUTPUT_ERROR,
            _("%s: cannot write %s: %s"), g->option, e->name, strerror(e_no));
    }
    if (fd < 0)
        return err_path(err, e->name, errno);
    snprintf(e->kept, len, "%s.old", e->temp);
    e->made = true;
    return fd;
}

int outputs_create(outputs *tx, FILE **f, size_t index, const char *sub,
                   const char *name, mx_error *err)
{
    *f = NULL;
    group *g = &tx->groups[index];
    sigset_t old;
    cleanup_block(&old);
    int fd = -1;
    output_entry *e = NULL;
    if (grow(&tx->entries, &tx->cap, tx->n, sizeof *tx->entries) != 0) {
        err_nomem(err, _("the file list"));
    } else {
        e = &tx->entries[tx->n++];
        memset(e, 0, sizeof *e);
        e->group = index;
        if (name_entry(e, g, sub, name) != 0)
            err_nomem(err, _("a path"));
        else
            fd = make_temp(e, g, err);
        g->files++;
    }
    cleanup_unblock(&old);
    if (fd < 0)
        return -1;
    struct stat st;
    int failed = fstat(fd, &st) != 0;
    if (!failed) {
        e->dev = st.st_dev;
        e->ino = st.st_ino;
        cleanup_note('F', st.st_dev, st.st_ino, g->private_dir, e->temp);
    }
    /* make_noted_file makes files private; give the file the usual permissions,
     * on the descriptor (never by name) */
    if (!failed && !g->folder) {
        mode_t mask = umask(0);
        umask(mask);
        failed = fchmod(fd, 0666 & ~mask) != 0;
    }
    *f = failed ? NULL : fdopen(fd, "w");
    if (*f == NULL) {
        int e_no = errno;
        close(fd);
        return err_write(err, e->name, e_no);
    }
    return 0;
}

/* ---- ending ----------------------------------------------------------- */

void outputs_end(outputs *tx, bool keep)
{
    if (tx == NULL)
        return;
    sigset_t old;
    cleanup_block(&old);
    if (keep) {
        for (size_t i = 0; i < tx->n; i++)
            if (tx->entries[i].has_kept)
                unlinkat(tx->entries[i].at, tx->entries[i].kept, 0);
        /* the folders made now hold the run's files */
        for (size_t i = 0; i < tx->n_made; i++)
            free(tx->made[i]);
        tx->n_made = 0;
    } else {
        outputs_undo(tx);
    }
    tx->moving = false;
    for (size_t i = 0; i < tx->n; i++)
        if (tx->entries[i].made)
            unlinkat(tx->entries[i].at, tx->entries[i].temp, 0);
    for (size_t g = 0; g < tx->n_groups; g++) {
        if (tx->groups[g].fd >= 0)
            close(tx->groups[g].fd);
        if (tx->groups[g].private_dir != NULL)
            rmdir(tx->groups[g].private_dir);
    }
    /* innermost first; a folder someone filled meanwhile stays */
    while (tx->n_made > 0) {
        tx->n_made--;
        rmdir(tx->made[tx->n_made]);
        free(tx->made[tx->n_made]);
    }
    cleanup_pop(&tx->hook);
    cleanup_unblock(&old);
    /* the other runs waiting for these folders go on */
    folder_locks_free(&tx->locks);
    for (size_t i = 0; i < tx->n; i++) {
        free(tx->entries[i].name);
        free(tx->entries[i].temp);
        free(tx->entries[i].kept);
        free(tx->entries[i].sub);
    }
    for (size_t g = 0; g < tx->n_groups; g++) {
        free(tx->groups[g].dir);
        free(tx->groups[g].private_dir);
    }
    free(tx->entries);
    free(tx->groups);
    free(tx->made);
    free(tx);
}

const char *outputs_last_name(const outputs *tx)
{
    return tx->n > 0 ? tx->entries[tx->n - 1].name : "";
}
