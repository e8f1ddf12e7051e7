/* replace.c: moving finished files into place, keeping what they replace
 * until the whole run is in place (see replace.h). */
#include "io/replace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/i18n.h"

int replace_check(const replacement *r, size_t n, mx_error *err)
{
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (lstat(r[i].final, &st) != 0) {
            if (errno == ENOENT)
                continue;
            return err_write(err, r[i].final, errno);
        }
        if (S_ISDIR(st.st_mode))
            return err_write(err, r[i].final, EISDIR);
        if (S_ISLNK(st.st_mode))
            return err_set(err, EXIT_OUTPUT_ERROR,
                           _("cannot write %s: it is a symbolic link (name "
                             "the file itself, or a new one)"),
                           r[i].final);
        if (!S_ISREG(st.st_mode))
            return err_set(err, EXIT_OUTPUT_ERROR,
                           _("cannot write %s: it exists and is not a "
                             "regular file"),
                           r[i].final);
    }
    return 0;
}

/* Keeps the file at r->final as r->kept: a hard link, else moved. */
static int keep_old(replacement *r, mx_error *err)
{
    size_t len = strlen(r->temp) + 5;
    r->kept = malloc(len);
    if (r->kept == NULL)
        return err_nomem(err, _("a path"));
    snprintf(r->kept, len, "%s.old", r->temp);
    r->linked = link(r->final, r->kept) == 0;
    if (r->linked)
        return 0;
    if (errno == ENOENT) { /* nothing to keep */
        free(r->kept);
        r->kept = NULL;
        return 0;
    }
    if (errno != EEXIST && rename(r->final, r->kept) == 0)
        return 0;
    int e = errno;
    free(r->kept);
    r->kept = NULL;
    return err_write(err, r->final, e);
}

/* The new file takes the permission bits of the regular file it
 * replaces (a private file stays private), set on its descriptor: the
 * temporary name is never followed if it became a symlink. */
static void take_mode(const char *temp, mode_t mode)
{
    int fd = open(temp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        fchmod(fd, mode & 0777);
    close(fd);
}

int replace_place(replacement *r, size_t n, mx_error *err)
{
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        int rc = 0;
        if (lstat(r[i].final, &st) == 0) {
            if (S_ISREG(st.st_mode))
                take_mode(r[i].temp, st.st_mode);
            rc = keep_old(&r[i], err);
        }
        if (rc == 0 && rename(r[i].temp, r[i].final) != 0)
            rc = err_write(err, r[i].final, errno);
        if (rc != 0) {
            replace_undo(r, i + 1);
            return -1;
        }
        r[i].placed = true;
        struct stat placed;
        if (lstat(r[i].final, &placed) == 0) {
            r[i].dev = placed.st_dev;
            r[i].ino = placed.st_ino;
        }
    }
    return 0;
}

int replace_intact(const replacement *r, size_t n, mx_error *err)
{
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (r[i].placed && (lstat(r[i].final, &st) != 0 ||
                            st.st_dev != r[i].dev || st.st_ino != r[i].ino))
            return err_usage(err,
                             _("%s: two outputs of this run have that name "
                               "(--plot, --html and --csv-dir must name "
                               "different files)"),
                             r[i].final);
    }
    return 0;
}

/* Takes one move back without changing r: the kept file put back over the
 * new one (a link of a file never replaced goes), or the new file removed
 * (async-signal-safe). */
static void undo_one(const replacement *r)
{
    if (r->kept != NULL) {
        if (r->linked && !r->placed)
            unlink(r->kept);
        else
            rename(r->kept, r->final);
    } else if (r->placed) {
        unlink(r->final);
    }
}

void replace_undo(replacement *r, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        undo_one(&r[i]);
        free(r[i].kept);
        r[i].kept = NULL;
        r[i].placed = r[i].linked = false;
    }
}

void replace_undo_signal(const replacement *r, size_t n)
{
    for (size_t i = n; i-- > 0;)
        undo_one(&r[i]);
}

void replace_keep(replacement *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (r[i].kept != NULL)
            unlink(r[i].kept);
        free(r[i].kept);
        r[i].kept = NULL;
        r[i].placed = r[i].linked = false;
    }
}
