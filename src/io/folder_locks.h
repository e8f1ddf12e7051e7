/* folder_locks.h: runs take turns on the folders they write files in
 * (outputs.h's commit): each folder locked once with flock, every run
 * taking its locks in the order of the folders' device and inode
 * numbers, so that two runs never wait for each other in a circle.
 */
#ifndef MHA_FOLDER_LOCKS_H
#define MHA_FOLDER_LOCKS_H

#include <stddef.h>
#include <sys/stat.h>

#include "base/error.h"

typedef struct {
    int *fd;         /* (n) the folders' descriptors */
    struct stat *id; /* (n) their identities, until taken */
    size_t n;
} folder_locks;

/* Room for at most `most` folders (l zeroed before). Returns 0, or -1
 * with err set. */
int folder_locks_init(folder_locks *l, size_t most, mx_error *err);

/* Adds folder path (a descriptor of it), unless it is added already; a
 * folder that cannot be opened (or path NULL) is not locked. */
void folder_locks_add(folder_locks *l, const char *path);

/* Locks the folders added, in the order of their identities: waits for
 * every other run holding one of them. */
void folder_locks_take(folder_locks *l);

/* Lets the folders go (the runs waiting for them go on) and frees l;
 * accepts a zeroed or partly made l. */
void folder_locks_free(folder_locks *l);

#endif
