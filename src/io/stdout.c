/* stdout.c: routing a run's text to standard output. */
#include "io/stdout.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/i18n.h"
#include "io/pager.h"
#include "io/spool.h"
#include "io/terminal.h"

void hold_closed_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int got = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
        if (got >= 0 && got != fd) {
            dup2(got, fd);
            close(got);
        }
    }
}

bool may_page(bool no_pager, bool step)
{
    return !no_pager && !step && isatty(STDOUT_FILENO);
}

void print_paged(void (*print)(FILE *out), bool page)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = page ? open_memstream(&text, &len) : NULL;
    if (mem == NULL) {
        print(stdout);
        return;
    }
    print(mem);
    if (fclose(mem) == 0)
        page_text(text, len, terminal_rows());
    else
        print(stdout);
    free(text);
}

int route_output(FILE **out, FILE **spool, bool spooled, mx_error *err)
{
    *out = stdout;
    *spool = NULL;
    if (!spooled)
        return 0;
    if (spool_open(spool, err) != 0)
        return -1;
    *out = *spool;
    return 0;
}

int check_stdout(mx_error *err)
{
    int flags = fcntl(STDOUT_FILENO, F_GETFL);
    if (flags < 0)
        return err_write(err, _("the output"), errno);
    if ((flags & O_ACCMODE) == O_RDONLY)
        return err_write(err, _("the output"), EBADF);
    return 0;
}

int spool_to_stdout(FILE *spool, step_fn *step, bool page, mx_error *err)
{
    if (step == NULL && !page)
        return spool_copy(spool, STDOUT_FILENO, err);
    char *text = NULL;
    size_t len = 0;
    if (read_back(&text, &len, spool, err) != 0)
        return -1;
    int rc = step != NULL ? step(text, len, STDIN_FILENO, STDOUT_FILENO, err)
                          : page_text(text, len, terminal_rows());
    free(text);
    return rc;
}

int close_stdout(int status)
{
    int failed = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (fclose(stdout) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (status != 0 || !failed)
        return status;
    fprintf(stderr, _("mha-explain: cannot write the output: %s\n"),
            strerror(e));
    return EXIT_OUTPUT_ERROR;
}
