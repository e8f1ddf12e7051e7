/* outputs.h: one transaction that puts a run's files in place together.
 *
 * A run's files (--plot, --html, --csv-dir) are written under temporary
 * names and appear under their own names only when the whole run has
 * succeeded: all of them, or none.
 *
 *   outputs *tx;
 *   outputs_begin(&tx, err)               the signal clean-up registered
 *   outputs_beside(tx, &g, opt, mark, err) a group of files, each made
 *                                         beside its name (--plot, --html)
 *   outputs_folder(tx, &g, dir, err)      a group of files in dir
 *                                         (--csv-dir): dir made if missing,
 *                                         the files made in a private
 *                                         folder dir/.mha-explain-
 *                                         unfinished.XXXXXX
 *   outputs_create(tx, &f, g, sub, name, err)
 *                                         a new empty file for name (in a
 *                                         folder group: dir[/sub]/name);
 *                                         the output writes it, closes f
 *   ...
 *   outputs_commit(tx, err)               every file in place, or none
 *   ... the run's text written to standard output ...
 *   outputs_end(tx, keep)                 keep: the replaced files
 *                                         dropped; else every file put
 *                                         back. Frees tx.
 *
 * A new file has the permission bits 0666 less the umask, or those of the
 * regular file it replaces (a private file stays private). A name that
 * is a symlink (wherever it points), a directory or any other kind of
 * file is refused before anything moves: the run neither replaces a
 * user's link nor writes through it. So are two files of the run with
 * one name, and a group's name that holds a file without the group's
 * mark (a user's notes where --html would put its page).
 *
 * outputs_commit moves the groups' files into place in the order the
 * groups were begun, each with one rename over its name, so that a
 * reader never finds the name missing; the file it replaces is kept by
 * a hard link under a second name (the temporary name + ".old"; moved
 * there instead where the file system has no hard links). If a move
 * fails, or two files of the run have one name, every move is taken
 * back, newest first. Until outputs_end(keep true) the replaced files
 * stay kept: outputs_end(keep false), or a signal (cleanup.h), puts
 * them back.
 *
 * A run puts back only over its own file: a name where it finds a file
 * it did not write (or none) keeps that file. Runs that put files in
 * the same folder take turns: from outputs_commit to outputs_end a run
 * holds a lock on each folder it puts files in (flock), and another run
 * waits for it before it looks at the names. So concurrent runs on one
 * target end with the complete output of one of them or the original,
 * never a mixture, and a run that fails puts back only what was there
 * when it began to move its files.
 */
#ifndef MHA_OUTPUTS_H
#define MHA_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/error.h"

typedef struct outputs outputs;

/* A transaction with no files; its clean-up runs on a signal until
 * outputs_end. On failure *tx is NULL. */
int outputs_begin(outputs **tx, mx_error *err);

/* A group whose files are made beside their names, as dir/.NAME.XXXXXX
 * (at most 200 bytes of NAME). option names the group in its messages
 * ("--plot", "--html"). mark: NULL, or a text that a file the group
 * replaces holds in its first MARK_BYTES bytes (the page's generator
 * line): a regular file at one of its names that is neither empty nor
 * marked is the user's, and the commit refuses it (status 2) before
 * anything moves. Both strings outlive tx. */
int outputs_beside(outputs *tx, size_t *group, const char *option,
                   const char *mark, mx_error *err);

/* How far into a file outputs_beside's mark is looked for. */
#define OUTPUTS_MARK_BYTES 1024

/* A group whose files go in dir or one folder inside it (dir/sub/NAME):
 * dir is made if missing, as mkdir -p (a symlink to a folder is
 * followed), then the private folder in it. A sub folder is made when the
 * files are moved, and must not be a symlink. The folders the run made
 * are removed again unless the run succeeds. The messages are those of
 * --csv-dir. */
int outputs_folder(outputs *tx, size_t *group, const char *dir, mx_error *err);

/* A new empty file, open for writing as *f, that will be put at name (a
 * beside group's; sub is NULL) or at dir/name or dir/sub/name (a folder
 * group's). The caller writes and closes *f (a failed write is its error,
 * naming the file); the transaction owns the file's temporary name. */
int outputs_create(outputs *tx, FILE **f, size_t group, const char *sub,
                   const char *name, mx_error *err);

/* The name of the file the last outputs_create made (until outputs_end):
 * for the caller's messages. */
const char *outputs_last_name(const outputs *tx);

/* Before the run: whether a file can be put at path, the value of
 * option (--plot, --html). The folder path names must exist, be a
 * folder and take new files; with whole, path itself must be missing
 * or a regular file this run may replace (not a symlink, a folder or a
 * device). A path the user gave that cannot be is status 2, with a
 * message naming option; whole false when the run writes names made
 * from path (heads.sentence0.png), which outputs_commit checks;
 * folder_may_come when another output of the run may make the folder
 * (--csv-dir makes its folders): a missing one is then left to the
 * making of the file. The commit checks every name again. */
int outputs_check_name(const char *option, const char *path, bool whole,
                       bool folder_may_come, mx_error *err);

/* Puts every file in place (see above), or none: on failure every move is
 * taken back and err names the file. */
int outputs_commit(outputs *tx, mx_error *err);

/* keep: the files stay in place and the files they replaced are dropped.
 * Otherwise every file put in place is taken back (the replaced ones put
 * back), every temporary file removed, and every folder the transaction
 * made. Frees tx (NULL: nothing). */
void outputs_end(outputs *tx, bool keep);

#endif
