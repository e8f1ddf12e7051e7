/* replace.h: finished files moved into place together, the files they
 * replace kept until every kind of output is in place.
 *
 * A run's outputs (--plot, --html, --csv-dir) are each written under a
 * temporary name beside their final one. A file that replaces a regular
 * file takes its permission bits. At the end of the run every
 * final name is checked first (replace_check), then every file is moved
 * into place (replace_place); a file already at a final name is kept under
 * a second name beside it, "<temp>.old", a hard link made before the
 * rename (so the name never goes missing), or the file itself moved there
 * where the file system has no hard links. If a later move fails, of this
 * kind or of another, replace_undo puts every replaced file back and
 * removes the new ones; replace_keep, once everything is in place, removes
 * the kept files.
 *
 *   replacement r[n];              temp: a finished file; final: its name
 *   replace_check(r, n, err)       nothing moved yet
 *   replace_place(r, n, err)       on failure its own moves are undone
 *   ... replace_undo(r, n) or replace_keep(r, n)
 *
 * Callers hold the signals of cleanup.h back from replace_place to
 * replace_undo or replace_keep, so a signal cannot end the program with
 * some files in place and others not.
 */
#ifndef MHA_REPLACE_H
#define MHA_REPLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cli/error.h"

typedef struct {
    char *temp;  /* the finished file, owned by the caller */
    char *final; /* its name, owned by the caller */
    char *kept;  /* "<temp>.old": the replaced file, while it is kept */
    bool linked; /* kept is a hard link: final still names the old file
                    until temp is placed */
    bool placed; /* temp was renamed to final */
    dev_t dev;   /* the placed file, to see that it is still there */
    ino_t ino;
} replacement;

/* Every final name can take its file: missing or a regular file. A
 * symlink (whatever it points to: a device, /dev/stdout, a file), a
 * directory or any other kind of file is a write error naming it: the
 * run neither replaces a user's link nor follows it. */
int replace_check(const replacement *r, size_t n, mx_error *err);

/* Renames every temp to its final name, keeping what was there. On
 * failure undoes its own moves and returns -1 with err naming the file. */
int replace_place(replacement *r, size_t n, mx_error *err);

/* After every kind is placed: every placed file is still at its name, not
 * replaced by a later output of the run that has the same name (--plot
 * and --html naming one file, or --html a file of --csv-dir, whatever
 * the spelling of the paths). Otherwise a usage error naming it. */
int replace_intact(const replacement *r, size_t n, mx_error *err);

/* Puts back every replaced file and removes every placed new one; when
 * several kinds were placed, the newest first. */
void replace_undo(replacement *r, size_t n);

/* What replace_undo does, for a signal handler: async-signal-safe
 * (rename, unlink), r left unchanged, nothing freed. */
void replace_undo_signal(const replacement *r, size_t n);

/* Removes the kept files: the new ones stay. */
void replace_keep(replacement *r, size_t n);

#endif
