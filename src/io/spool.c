/* spool.c: an unnamed temporary file for standard output. */
#define _GNU_SOURCE /* O_TMPFILE */
#include "io/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/fdio.h"
#include "base/i18n.h"
#include "base/text.h"

/* A descriptor of a file with no name in dir, or -1 (errno set). */
static int unnamed_file(const char *dir)
{
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL &&
                    errno != ENOENT))
        return fd;
#endif
    /* file systems without O_TMPFILE: a name that lives for an instant */
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/.mha-explain-output.XXXXXX", dir);
    if (n < 0 || (size_t)n >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int named = mkstemp(path);
    if (named >= 0)
        unlink(path);
    return named;
}

/* The folder of the spool: $TMPDIR when it is an absolute path, else
 * /tmp. */
static const char *spool_dir(bool *from_env)
{
    const char *dir = getenv("TMPDIR");
    *from_env = dir != NULL && dir[0] == '/';
    return *from_env ? dir : "/tmp";
}

/* Sets err for a failed write to the spool (errno e), naming its folder
 * and whether $TMPDIR chose it: the user's way to fix it. */
static int spool_failed(mx_error *err, int e)
{
    bool from_env = false;
    const char *dir = spool_dir(&from_env);
    char what[384];
    if (from_env) {
        char shown[301]; /* cut between two characters */
        snprintf(what, sizeof what,
                 _("the output's temporary file in %.300s ($TMPDIR)"),
                 text_cut(shown, sizeof shown, dir));
    } else {
        snprintf(what, sizeof what, _("the output's temporary file in %s"),
                 dir);
    }
    return err_write(err, what, e);
}

int spool_open(FILE **out, mx_error *err)
{
    *out = NULL;
    bool from_env = false;
    int fd = unnamed_file(spool_dir(&from_env));
    if (fd < 0)
        return spool_failed(err, errno);
    *out = fdopen(fd, "w+");
    if (*out == NULL) {
        int e = errno;
        close(fd);
        return e == ENOMEM ? err_nomem(err, _("the output"))
                           : spool_failed(err, e);
    }
    return 0;
}

int spool_copy(FILE *spool, int fd, mx_error *err)
{
    /* the spool's own write errors (a full disk under $TMPDIR) */
    int e = 0;
    if (fflush(spool) != 0 || ferror(spool))
        e = errno != 0 ? errno : EIO;
    int in = fileno(spool);
    if (e == 0 && lseek(in, 0, SEEK_SET) != 0)
        e = errno;
    if (e != 0) {
        fclose(spool);
        return spool_failed(err, e);
    }
    if (fflush(stdout) != 0) {
        fclose(spool);
        return err_write(err, _("the output"), errno);
    }
    /* on the heap: a small (ulimit -s) stack holds less */
    const size_t size = (size_t)1 << 16;
    char *buf = malloc(size);
    if (buf == NULL) {
        fclose(spool);
        return err_nomem(err, _("the output"));
    }
    int rc = 0;
    for (;;) {
        ssize_t got = read(in, buf, size);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = err_write(err, _("the output's temporary file"), errno);
            break;
        }
        if (got == 0)
            break;
        if (write_all(fd, buf, (size_t)got) != 0) {
            rc = err_write(err, _("the output"), errno);
            break;
        }
    }
    free(buf);
    fclose(spool);
    return rc;
}

void spool_blame(FILE *spool, mx_error *err)
{
    if (spool != NULL && ferror(spool))
        spool_failed(err, err->sys_errno != 0 ? err->sys_errno : EIO);
}

void spool_discard(FILE *spool)
{
    if (spool != NULL)
        fclose(spool);
}
