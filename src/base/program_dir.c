/* program_dir.c: where the running program is (program_dir.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "base/program_dir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The directory of the running program, resolved (symlinks followed),
 * malloc'd, or NULL: /proc/self/exe, else argv0 as given (with a slash)
 * or as found on PATH (without one). */
char *program_dir(const char *argv0)
{
    char *exe = realpath("/proc/self/exe", NULL);
    if (exe == NULL && argv0 != NULL && strchr(argv0, '/') != NULL)
        exe = realpath(argv0, NULL);
    const char *path = getenv("PATH");
    while (exe == NULL && argv0 != NULL && argv0[0] != '\0' && path != NULL &&
           *path != '\0') {
        const size_t len = strcspn(path, ":"); /* empty: the current one */
        char candidate[PATH_MAX];
        const int n =
            snprintf(candidate, sizeof candidate, "%.*s/%s",
                     len > 0 ? (int)len : 1, len > 0 ? path : ".", argv0);
        if (n > 0 && (size_t)n < sizeof candidate &&
            access(candidate, X_OK) == 0)
            exe = realpath(candidate, NULL);
        path += len + (path[len] == ':');
    }
    char *slash = exe != NULL ? strrchr(exe, '/') : NULL;
    if (slash == NULL) {
        free(exe);
        return NULL;
    }
    *slash = '\0';
    return exe;
}

/* Nonzero when the two paths name the same existing directory. */
int same_dir(const char *a, const char *b)
{
    char *ra = realpath(a, NULL);
    char *rb = realpath(b, NULL);
    const int same = ra != NULL && rb != NULL && strcmp(ra, rb) == 0;
    free(ra);
    free(rb);
    return same;
}
