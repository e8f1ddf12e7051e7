/* folder_list.c: the files of a folder and of its folders (folder_list.h). */
#include "io/folder_list.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/i18n.h"

typedef struct {
    char **s;
    size_t n, cap;
} name_list;

static int add_name(name_list *l, const char *folder, const char *name)
{
    if (l->n == l->cap) {
        const size_t cap = l->cap ? 2 * l->cap : 64;
        char **s = realloc(l->s, cap * sizeof *s);
        if (s == NULL)
            return -1;
        l->s = s;
        l->cap = cap;
    }
    const size_t len = (folder ? strlen(folder) + 1 : 0) + strlen(name) + 1;
    char *text = malloc(len);
    if (text == NULL)
        return -1;
    snprintf(text, len, "%s%s%s", folder ? folder : "", folder ? "/" : "",
             name);
    l->s[l->n++] = text;
    return 0;
}

/* The regular files of the open folder fd into l (named folder/name
 * when folder is not NULL); the folders in it too, one level down, when
 * folder is NULL. Closes fd. Returns -1 when memory runs out. */
static int list_fd(name_list *l, int fd, const char *folder)
{
    DIR *d = fdopendir(fd);
    if (d == NULL) {
        close(fd);
        return 0;
    }
    int rc = 0;
    for (struct dirent *e = readdir(d); rc == 0 && e != NULL; e = readdir(d)) {
        struct stat st;
        if (e->d_name[0] == '.' ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISREG(st.st_mode)) {
            rc = add_name(l, folder, e->d_name);
        } else if (S_ISDIR(st.st_mode) && folder == NULL) {
            const int sub = openat(dirfd(d), e->d_name,
                                   O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
            if (sub >= 0)
                rc = list_fd(l, sub, e->d_name);
        }
    }
    closedir(d);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int folder_list(char ***names, size_t *n, const char *dir, mx_error *err)
{
    *names = NULL;
    *n = 0;
    const int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0) // the folder and the system's reason: no words to translate
        return err_set(err, 1, "%s: %s", dir, strerror(errno));
    name_list l = {0};
    if (list_fd(&l, fd, NULL) != 0) {
        folder_list_free(l.s, l.n);
        return err_nomem(err, _("the file list"));
    }
    if (l.n > 0)
        qsort(l.s, l.n, sizeof *l.s, by_name);
    *names = l.s;
    *n = l.n;
    return 0;
}

void folder_list_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}
