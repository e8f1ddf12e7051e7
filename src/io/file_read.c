/* file_read.c: the whole of a small regular file (file_read.h). */
#include "io/file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/i18n.h"

int file_read_small(char **text, size_t *len, const char *path, size_t max,
                    mx_error *err)
{
    *text = NULL;
    *len = 0;
    /* O_NONBLOCK: a FIFO is refused below, not waited on */
    const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return err_input(err, _("%s: cannot open: %s"), path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return err_input(err, _("%s: not a regular file"), path);
    }
    if ((unsigned long long)st.st_size > max) {
        close(fd);
        return err_input(err, _("%s: larger than %zu bytes"), path, max);
    }
    /* the size is read again as the file is: it may grow meanwhile */
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap + 1);
    if (buf == NULL) {
        close(fd);
        return err_nomem(err, path);
    }
    for (;;) {
        const ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            free(buf);
            close(fd);
            return err_input(err, _("%s: cannot read"), path);
        }
        if (got == 0)
            break;
        n += (size_t)got;
        if (n > max) {
            free(buf);
            close(fd);
            return err_input(err, _("%s: larger than %zu bytes"), path, max);
        }
        if (n == cap) {
            const size_t grown = cap * 2 < max + 1 ? cap * 2 : max + 1;
            char *nb = realloc(buf, grown + 1);
            if (nb == NULL) {
                free(buf);
                close(fd);
                return err_nomem(err, path);
            }
            buf = nb;
            cap = grown;
        }
    }
    close(fd);
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

bool file_present(const char *path)
{
    return access(path, F_OK) == 0;
}

int folder_check(const char *dir, mx_error *err)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return err_input(err, _("%s: no such folder (%s)"), dir,
                         strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return err_input(err,
                         _("%s: not a folder: --model takes the folder that "
                           "holds config.json"),
                         dir);
    return 0;
}
