/* folder_list.h: the names of the regular files in a folder and in the
 * folders inside it, one level down ("sentence0/input.tokens.csv"), for
 * --csv-dir's warning about the files an earlier run left in its folder
 * (cli/csv_dir_stale.h). Names that start with a dot are left out (the
 * runs' temporary and kept files), and so are symlinks, which are never
 * followed.
 */
#ifndef MHA_FOLDER_LIST_H
#define MHA_FOLDER_LIST_H

#include <stddef.h>

#include "base/error.h"

/* *names (*n of them, sorted by strcmp), each "name" or "folder/name",
 * owned by the caller (folder_list_free). A folder that cannot be read
 * is an error; a folder inside it that cannot be read is left out. */
int folder_list(char ***names, size_t *n, const char *dir, mx_error *err);

void folder_list_free(char **names, size_t n);

#endif
