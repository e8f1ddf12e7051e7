/* render_csvdir.c: one matrix-shaped CSV per table, written as one unit:
 * all of the files or none of them.
 *
 *   token,dim0,dim1,dim2
 *   O,0.3367,0.1288,0.2345
 *
 * A set of files is first written into a fresh private directory inside
 * DIR, DIR/.mha-explain-unfinished.XXXXXX. Only when every file is
 * complete are they moved into place; a file of the same name that was
 * already there is moved aside into that directory first and deleted only
 * when every new file is in place. If anything fails, the files moved
 * aside are put back, the new ones are removed, and so are the directories
 * this run made: DIR is left as it was found. A file that replaces a
 * regular file takes its permission bits.
 *
 * Files are created with O_EXCL | O_NOFOLLOW inside the private directory
 * (opened once, then used through its descriptor), so no symlink is ever
 * followed for a file this program creates. A final name that is a
 * symlink, or a sentence<k> folder that is one, is refused before
 * anything is moved: the run neither replaces a user's link nor writes
 * through it.
 */
#include "render/render.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cleanup.h"
#include "numerics/floatfmt.h"
#include "cli/i18n.h"
#include "render/textbuf.h"

typedef struct {
    char *final_path; /* dir[/sub]/<name>.csv */
    char *sub_path;   /* dir/sub, or NULL when the file goes in dir */
    bool backed_up;   /* the old final_path is b<i> in the temp dir */
    bool placed;      /* n<i> was renamed to final_path */
} pending_file;

struct csv_dir_set {
    char *temp_dir; /* dir/.mha-explain-unfinished.XXXXXX */
    int temp_fd;    /* its descriptor, or -1 */
    char **made;    /* directories made, outermost first */
    size_t n_made, cap_made;
    pending_file *files; /* n<i> in the temp dir, for i < n_files */
    size_t n_files, cap_files;
    volatile sig_atomic_t n_temp; /* n_files, for the signal handler */
    volatile sig_atomic_t moving; /* files may be in place or moved aside:
                                     files[] no longer grows */
    char *dir;
    cleanup_hook hook; /* remove_unfinished, while the set is open */
};

static int grow(void *array, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t new_cap = *cap ? 2 * *cap : 16;
    void *p = realloc(*(void **)array, new_cap * size);
    if (p == NULL)
        return -1;
    *(void **)array = p;
    *cap = new_cap;
    return 0;
}

static int remember_made(csv_dir_set *s, const char *path, mx_error *err)
{
    char *copy = strdup(path);
    if (copy == NULL ||
        grow(&s->made, &s->cap_made, s->n_made, sizeof *s->made) != 0) {
        rmdir(path);
        free(copy);
        return err_nomem(err, _("a path"));
    }
    s->made[s->n_made++] = copy;
    return 0;
}

/* The directory path exists (made now if missing, remembered). A folder
 * the user named (follow) may be a symlink to one; a folder the run adds
 * inside it (sentence<k>) may not: the run never writes through a link.
 * A folder that another run makes between the look and mkdir is used. */
static int make_dir(csv_dir_set *s, const char *path, bool follow,
                    mx_error *err)
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
    if (mkdir(path, 0777) != 0) {
        int e = errno;
        if (e == EEXIST && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            return 0; /* made meanwhile by someone else: not ours */
        if (e == EEXIST && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
            return err_input(err,
                             _("--csv-dir: %s is a symbolic link to a "
                               "folder that does not exist"),
                             path);
        /* a full disk, a read-only or forbidden folder: a write error,
         * as for any other output (status 1) */
        const bool write_error = e == ENOSPC || e == EDQUOT || e == EROFS ||
                                 e == EIO || e == EACCES || e == EPERM;
        return err_set(err, write_error ? EXIT_OUTPUT_ERROR : EXIT_BAD_INPUT,
                       _("--csv-dir: cannot create %s: %s"), path, strerror(e));
    }
    return remember_made(s, path, err);
}

/* mkdir -p dir, remembering what it made. */
static int make_dirs(csv_dir_set *s, const char *dir, mx_error *err)
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
        rc = make_dir(s, path, true, err);
        path[i] = saved;
    }
    free(path);
    return rc;
}

/* ---- signals -----------------------------------------------------------
 *
 * While a set is open, a signal that ends the program first removes what
 * the set made (its temporary files and folder, the folders it created;
 * see cleanup.h). The hook calls only unlinkat and rmdir; the lists it
 * reads change only while the signals are blocked (begin, commit, end),
 * except n_temp, a sig_atomic_t. During a commit they wait until the
 * files are all in place or all put back. */

static void temp_name(char *buf, size_t size, char kind, size_t i);

/* Takes file i's move back: the file it replaced put back, or the new
 * file removed; the set is not changed (async-signal-safe). */
static void undo_move(const csv_dir_set *s, size_t i)
{
    const pending_file *p = &s->files[i];
    char name[32];
    temp_name(name, sizeof name, 'b', i);
    if (p->backed_up)
        renameat(s->temp_fd, name, AT_FDCWD, p->final_path);
    else if (p->placed)
        unlink(p->final_path);
}

/* Everything the set made that is not in place: async-signal-safe. */
static void remove_unfinished(const void *ctx)
{
    const csv_dir_set *s = ctx;
    if (s->temp_fd >= 0 && s->moving) {
        /* the files put in place are taken back, those they replaced put
         * back (as undo_moves, without changing the set) */
        for (size_t i = s->n_files; i-- > 0;)
            undo_move(s, i);
    }
    if (s->temp_fd >= 0) {
        for (sig_atomic_t i = 0; i < s->n_temp; i++) {
            char name[32];
            temp_name(name, sizeof name, 'n', (size_t)i);
            unlinkat(s->temp_fd, name, 0);
        }
    }
    if (s->temp_dir != NULL && s->temp_dir[0] != '\0')
        rmdir(s->temp_dir);
    for (size_t i = s->n_made; i-- > 0;)
        rmdir(s->made[i]);
}

static int begin_blocked(csv_dir_set *s, const char *dir, mx_error *err);

int csv_dir_begin(csv_dir_set **out, const char *dir, mx_error *err)
{
    csv_dir_set *s = calloc(1, sizeof *s);
    *out = s;
    if (s == NULL)
        return err_nomem(err, _("the file list"));
    s->temp_fd = -1;
    sigset_t old;
    cleanup_block(&old);
    int rc = begin_blocked(s, dir, err);
    cleanup_push(&s->hook, remove_unfinished, s);
    cleanup_unblock(&old);
    return rc;
}

static int begin_blocked(csv_dir_set *s, const char *dir, mx_error *err)
{
    s->dir = strdup(dir);
    size_t n = strlen(dir) + 40;
    s->temp_dir = malloc(n);
    if (s->dir == NULL || s->temp_dir == NULL)
        return err_nomem(err, _("a path"));
    snprintf(s->temp_dir, n, "%s/.mha-explain-unfinished.XXXXXX", dir);
    if (make_dirs(s, dir, err) != 0) {
        s->temp_dir[0] = '\0'; /* nothing to remove */
        return -1;
    }
    if (mkdtemp(s->temp_dir) == NULL) {
        int e = errno;
        s->temp_dir[0] = '\0';
        return err_write(err, dir, e);
    }
    s->temp_fd =
        open(s->temp_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (s->temp_fd < 0)
        return err_write(err, s->temp_dir, errno);
    return 0;
}

/* "<variant>.<table>.csv" or "<variant>.head<h>.<table>.csv" */
static void file_name(char *buf, size_t size, const table *t)
{
    const char *variant = variant_id_name(t->variant), *name = table_name(t);
    if (t->head == NO_HEAD)
        snprintf(buf, size, "%s.%s.csv", variant, name);
    else
        snprintf(buf, size, "%s.head%d.%s.csv", variant, t->head, name);
}

/* "n<i>" (the new file) or "b<i>" (the user's file moved aside), made
 * without snprintf so that the signal handler can use it too. */
static void temp_name(char *buf, size_t size, char kind, size_t i)
{
    char digits[24];
    size_t n = 0, k = 1;
    do {
        digits[n++] = (char)('0' + i % 10);
        i /= 10;
    } while (i > 0);
    buf[0] = kind;
    while (n > 0 && k + 1 < size)
        buf[k++] = digits[--n];
    buf[k] = '\0';
}

/* Output is gathered in a buffer and written in pieces of about this
 * size. */
#define CHUNK 65536

/* Returns 0, -1 when memory ran out, -2 on a write error. */
static int write_matrix_csv(FILE *f, const table *t, const csv_out_style *style)
{
    const char d = style->delimiter;
    const size_t cols = t->values.cols;
    textbuf text = {0};
    int rc = 0;
    if (style->bom)
        rc |= textbuf_add(&text, "\xEF\xBB\xBF", 3);
    rc |= textbuf_add(&text, "token", 5);
    for (size_t c = 0; c < cols; c++) {
        rc |= textbuf_add_char(&text, d);
        rc |= textbuf_add_csv_field(&text, t->cols->s[c], d);
    }
    rc |= textbuf_add_char(&text, '\n');
    for (size_t r = 0; rc == 0 && r < t->values.rows; r++) {
        rc |= textbuf_add_csv_field(&text, t->rows->s[r], d);
        /* the row's values, each after a delimiter, and the line end */
        char *p = rc == 0
                      ? textbuf_reserve(&text, cols * (1 + FLOAT_TEXT_SIZE) + 1)
                      : NULL;
        if (p == NULL) {
            rc = -1;
            break;
        }
        const float *row = matrix_at(&t->values, r, 0);
        for (size_t c = 0; c < cols; c++) {
            *p++ = d;
            p += float_text(p, row[c], style->decimal_comma);
        }
        *p++ = '\n';
        text.len = (size_t)(p - text.s);
        if (text.len >= CHUNK && textbuf_flush(&text, f) != 0)
            rc = -2;
    }
    if (rc == 0 && textbuf_flush(&text, f) != 0)
        rc = -2;
    textbuf_free(&text);
    return rc;
}

/* Writes t as the new temporary file number i. */
static int write_temp(csv_dir_set *s, size_t i, const table *t,
                      const csv_out_style *style, mx_error *err)
{
    const char *final_path = s->files[i].final_path;
    char name[32];
    temp_name(name, sizeof name, 'n', i);
    /* a new name in a private directory: the mode is 0666 less the umask */
    int fd = openat(s->temp_fd, name,
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
        return err_write(err, final_path, errno);
    FILE *f = fdopen(fd, "w");
    if (f == NULL) {
        int e = errno;
        close(fd);
        return err_write(err, final_path, e);
    }
    if (write_matrix_csv(f, t, style) == -1) {
        fclose(f);
        return err_nomem(err, _("the CSV output"));
    }
    int failed = ferror(f);
    int e = errno;
    if (fflush(f) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (fclose(f) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (failed)
        return err_write(err, final_path, e != 0 ? e : EIO);
    return 0;
}

int csv_dir_add(csv_dir_set *s, const char *sub, const table *const *tables,
                size_t n, const csv_out_style *style, mx_error *err)
{
    for (size_t k = 0; k < n; k++) {
        if (grow(&s->files, &s->cap_files, s->n_files, sizeof *s->files) != 0)
            return err_nomem(err, _("the file list"));
        pending_file *p = &s->files[s->n_files];
        memset(p, 0, sizeof *p);
        s->n_files++;
        s->n_temp = (sig_atomic_t)s->n_files;
        char name[160];
        file_name(name, sizeof name, tables[k]);
        size_t len =
            strlen(s->dir) + (sub ? strlen(sub) : 0) + strlen(name) + 3;
        p->final_path = malloc(len);
        if (p->final_path == NULL)
            return err_nomem(err, _("a path"));
        if (sub != NULL) {
            p->sub_path = malloc(len);
            if (p->sub_path == NULL)
                return err_nomem(err, _("a path"));
            snprintf(p->sub_path, len, "%s/%s", s->dir, sub);
            snprintf(p->final_path, len, "%s/%s/%s", s->dir, sub, name);
        } else {
            snprintf(p->final_path, len, "%s/%s", s->dir, name);
        }
        if (write_temp(s, s->n_files - 1, tables[k], style, err) != 0)
            return -1;
    }
    return 0;
}

/* Before anything is moved: every final name is free or a regular file
 * (a symlink is refused, as for --plot and --html: see replace.h), and
 * every subdirectory is a directory, not a symlink, or missing. */
static int check_targets(const csv_dir_set *s, mx_error *err)
{
    struct stat st;
    for (size_t i = 0; i < s->n_files; i++) {
        const pending_file *p = &s->files[i];
        if (p->sub_path != NULL && lstat(p->sub_path, &st) == 0) {
            if (S_ISLNK(st.st_mode))
                return err_input(err,
                                 _("--csv-dir: %s is a symbolic link (the run "
                                   "does not write through it)"),
                                 p->sub_path);
            if (!S_ISDIR(st.st_mode))
                return err_input(err, _("--csv-dir: %s is not a directory"),
                                 p->sub_path);
        }
        if (lstat(p->final_path, &st) == 0 && S_ISLNK(st.st_mode))
            return err_set(err, EXIT_OUTPUT_ERROR,
                           _("cannot write %s: it is a symbolic link (name "
                             "the file itself, or a new one)"),
                           p->final_path);
        if (lstat(p->final_path, &st) == 0 && !S_ISREG(st.st_mode))
            return err_write(err, p->final_path,
                             S_ISDIR(st.st_mode) ? EISDIR : EEXIST);
    }
    return 0;
}

/* Puts back what the moves did, newest first. */
static void undo_moves(csv_dir_set *s)
{
    for (size_t i = s->n_files; i-- > 0;) {
        undo_move(s, i);
        s->files[i].backed_up = s->files[i].placed = false;
    }
}

int csv_dir_ready(const csv_dir_set *s, mx_error *err)
{
    return check_targets(s, err);
}

int csv_dir_place(csv_dir_set *s, mx_error *err)
{
    s->moving = 1;
    for (size_t i = 0; i < s->n_files; i++) {
        pending_file *p = &s->files[i];
        char new_name[32], old_name[32];
        temp_name(new_name, sizeof new_name, 'n', i);
        temp_name(old_name, sizeof old_name, 'b', i);
        struct stat st;
        int rc = 0;
        if (p->sub_path != NULL)
            rc = make_dir(s, p->sub_path, false, err);
        if (rc == 0 && lstat(p->final_path, &st) == 0) {
            /* a private file stays private: its permission bits, set on
             * the new file's descriptor */
            int fd = S_ISREG(st.st_mode)
                         ? openat(s->temp_fd, new_name,
                                  O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
                         : -1;
            if (fd >= 0) {
                fchmod(fd, st.st_mode & 0777);
                close(fd);
            }
            /* gone meanwhile (another run moving it aside): nothing to
             * keep */
            if (renameat(AT_FDCWD, p->final_path, s->temp_fd, old_name) == 0)
                p->backed_up = true;
            else if (errno != ENOENT)
                rc = err_write(err, p->final_path, errno);
        }
        if (rc == 0) {
            if (renameat(s->temp_fd, new_name, AT_FDCWD, p->final_path) != 0)
                rc = err_write(err, p->final_path, errno);
            else
                p->placed = true;
        }
        if (rc != 0) {
            undo_moves(s);
            return -1;
        }
    }
    return 0;
}

void csv_dir_undo(csv_dir_set *s)
{
    if (s == NULL || s->temp_fd < 0)
        return;
    sigset_t old;
    cleanup_block(&old);
    undo_moves(s);
    cleanup_unblock(&old);
}

void csv_dir_keep(csv_dir_set *s)
{
    /* every new file is in place: the old ones can go, and nothing made
     * is to be removed */
    for (size_t i = 0; i < s->n_files; i++) {
        char old_name[32];
        temp_name(old_name, sizeof old_name, 'b', i);
        if (s->files[i].backed_up)
            unlinkat(s->temp_fd, old_name, 0);
        s->files[i].backed_up = s->files[i].placed = false;
    }
    s->moving = 0;
    for (size_t i = 0; i < s->n_made; i++)
        free(s->made[i]);
    s->n_made = 0;
}

int csv_dir_commit(csv_dir_set *s, mx_error *err)
{
    sigset_t old;
    cleanup_block(&old);
    int rc = csv_dir_ready(s, err);
    if (rc == 0)
        rc = csv_dir_place(s, err);
    if (rc == 0)
        csv_dir_keep(s);
    cleanup_unblock(&old);
    return rc;
}

void csv_dir_end(csv_dir_set *s)
{
    if (s == NULL)
        return;
    sigset_t old;
    cleanup_block(&old);
    if (s->temp_fd >= 0) {
        undo_moves(s);
        for (size_t i = 0; i < s->n_files; i++) {
            char name[32];
            temp_name(name, sizeof name, 'n', i);
            unlinkat(s->temp_fd, name, 0);
        }
        close(s->temp_fd);
    }
    if (s->temp_dir != NULL && s->temp_dir[0] != '\0')
        rmdir(s->temp_dir);
    /* innermost first; a directory someone filled meanwhile stays */
    while (s->n_made > 0) {
        s->n_made--;
        rmdir(s->made[s->n_made]);
        free(s->made[s->n_made]);
    }
    cleanup_pop(&s->hook);
    cleanup_unblock(&old);
    for (size_t i = 0; i < s->n_files; i++) {
        free(s->files[i].final_path);
        free(s->files[i].sub_path);
    }
    free(s->files);
    free(s->made);
    free(s->temp_dir);
    free(s->dir);
    free(s);
}

int render_csv_dir(const char *dir, const table *const *tables, size_t n,
                   const csv_out_style *style, mx_error *err)
{
    csv_dir_set *s = NULL;
    int rc = csv_dir_begin(&s, dir, err);
    if (rc == 0)
        rc = csv_dir_add(s, NULL, tables, n, style, err);
    if (rc == 0)
        rc = csv_dir_commit(s, err);
    csv_dir_end(s);
    return rc;
}
