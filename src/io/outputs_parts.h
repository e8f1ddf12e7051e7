/* outputs_parts.h: what the files of the outputs' transaction share
 * (outputs.h): its entries, groups and state, and the pieces the commit
 * (outputs_commit.c) takes from outputs.c. Internal to io/outputs*.c,
 * which include outputs.h (its typedef of struct outputs) beside it. */
#ifndef MHA_OUTPUTS_PARTS_H
#define MHA_OUTPUTS_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/cleanup.h"
#include "base/error.h"
#include "io/folder_locks.h"

typedef struct {
    char *name;   /* where the file goes */
    char *temp;   /* its temporary name, relative to at */
    char *kept;   /* "<temp>.old": the file it replaces, while kept */
    char *sub;    /* a folder group's sub folder to make, or NULL */
    int at;       /* AT_FDCWD, or the private folder's descriptor */
    size_t group; /* the entry's group */
    dev_t dev;    /* the file this run wrote */
    ino_t ino;
    bool made;     /* the temporary file exists (not yet moved) */
    bool has_kept; /* the replaced file is at kept */
    bool linked;   /* kept is a hard link: name still held the old file
                      until this one was moved there */
    bool placed;   /* the file was renamed to name */
} output_entry;

typedef struct {
    bool folder;        /* files in dir's private folder, else beside names */
    char *dir;          /* a folder group's dir, as the caller spelt it */
    char *private_dir;  /* dir/.mha-explain-unfinished.XXXXXX, or NULL */
    int fd;             /* the private folder's descriptor, or -1 */
    size_t files;       /* the group's files so far: n0, n1, ... */
    const char *option; /* a beside group's option, for its messages */
    const char *mark;   /* NULL, or what a file it replaces holds */
} group;

struct outputs {
    output_entry *entries; /* (n) in the order they were made */
    size_t n, cap;
    group *groups; /* (n_groups) in the order they were begun */
    size_t n_groups, cap_groups;
    char **made; /* (n_made) folders made, outermost first */
    size_t n_made, cap_made;
    folder_locks locks; /* the folders the commit locked */
    bool moving;        /* files may be in place: a signal takes them back */
    cleanup_hook hook;  /* remove_unfinished, until outputs_end */
};

/* Whether the file at e->name is the one this run wrote (mine) or there is
 * none (missing); async-signal-safe. */
void outputs_look_at_name(const output_entry *e, bool *mine, bool *missing);

/* The folder path exists (made now if missing, remembered to be removed
 * if the run fails). follow: path may be a symlink to a folder (one the
 * user named), else not (one the run adds inside it). */
int outputs_make_dir(struct outputs *tx, const char *path, bool follow,
                     mx_error *err);

/* Every move taken back and forgotten. */
void outputs_undo(struct outputs *tx);

#endif
