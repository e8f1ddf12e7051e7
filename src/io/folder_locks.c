/* folder_locks.c: the folders a run writes in, locked in one order
 * (folder_locks.h). */
#include "io/folder_locks.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/i18n.h"

int folder_locks_init(folder_locks *l, size_t most, mx_error *err)
{
    l->id = malloc((most > 0 ? most : 1) * sizeof *l->id);
    l->fd = malloc((most > 0 ? most : 1) * sizeof *l->fd);
    l->n = 0;
    if (l->id == NULL || l->fd == NULL)
        return err_nomem(err, _("the file list"));
    return 0;
}

void folder_locks_add(folder_locks *l, const char *path)
{
    int fd = path != NULL
                 ? open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK)
                 : -1;
    struct stat st;
    if (fd < 0)
        return;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return;
    }
    for (size_t i = 0; i < l->n; i++) {
        if (l->id[i].st_dev == st.st_dev && l->id[i].st_ino == st.st_ino) {
            close(fd);
            return;
        }
    }
    l->id[l->n] = st;
    l->fd[l->n++] = fd;
}

/* Orders two folders by device and inode. */
static int by_identity(const void *a, const void *b)
{
    const struct stat *x = a, *y = b;
    if (x->st_dev != y->st_dev)
        return x->st_dev < y->st_dev ? -1 : 1;
    if (x->st_ino != y->st_ino)
        return x->st_ino < y->st_ino ? -1 : 1;
    return 0;
}

void folder_locks_take(folder_locks *l)
{
    /* the descriptors sorted with their folders */
    for (size_t i = 1; i < l->n; i++) {
        for (size_t j = i; j > 0 && by_identity(&l->id[j - 1], &l->id[j]) > 0;
             j--) {
            struct stat s = l->id[j];
            l->id[j] = l->id[j - 1];
            l->id[j - 1] = s;
            int fd = l->fd[j];
            l->fd[j] = l->fd[j - 1];
            l->fd[j - 1] = fd;
        }
    }
    free(l->id);
    l->id = NULL;
    for (size_t i = 0; i < l->n; i++)
        flock(l->fd[i], LOCK_EX);
}

void folder_locks_free(folder_locks *l)
{
    for (size_t i = 0; i < l->n; i++)
        close(l->fd[i]);
    free(l->fd);
    free(l->id);
    *l = (folder_locks){0};
}
