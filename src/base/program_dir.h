/* program_dir.h: where the running program is, to find the files
 * installed with it (its catalogues, base/i18n.c; its picture module,
 * plot/plot_load.c) the same way from the build tree, through PATH or a
 * symlink, and in an installed or staged tree. */
#ifndef MHA_PROGRAM_DIR_H
#define MHA_PROGRAM_DIR_H

/* The directory of the running program, resolved (symlinks followed),
 * malloc'd, or NULL: /proc/self/exe, else argv0 as given (with a slash)
 * or as found on PATH (without one); argv0 may be NULL. */
char *program_dir(const char *argv0);

/* Nonzero when the two paths name the same existing directory. */
int same_dir(const char *a, const char *b);

#endif
