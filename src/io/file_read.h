/* file_read.h: reading the whole of a small file of a checkpoint folder
 * (config.json, vocab.json, merges.txt: model/gpt2.c, model/bpe.c).
 *
 * A checkpoint folder's files are regular files: a FIFO, a device or a
 * folder put in their place is refused without waiting on it (the file
 * is opened with O_NONBLOCK, then checked).
 */
#ifndef MHA_FILE_READ_H
#define MHA_FILE_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/* Reads the regular file at path, at most max bytes, into *text (owned
 * by the caller, NUL-terminated after its *len bytes). */
int file_read_small(char **text, size_t *len, const char *path, size_t max,
                    mx_error *err);

/* Whether something is at path (access(path, F_OK)). */
bool file_present(const char *path);

/* 0 when dir is a folder (a checkpoint's, --model); else -1 with err
 * saying there is no such folder, or that a file was given where a folder
 * is read. On the page (io/page_files.c), a folder is there when the
 * page was given some file of it. */
int folder_check(const char *dir, mx_error *err);

#endif
