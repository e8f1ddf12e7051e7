/* pager.c: long output through a pager, as git and man do. */
#include "io/pager.h"

#include "io/fdio.h"
#include "base/i18n.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int read_back(char **text, size_t *len, FILE *f, mx_error *err)
{
    *text = NULL;
    *len = 0;
    int e = 0;
    long size = 0;
    if (fflush(f) != 0 || ferror(f) || fseek(f, 0, SEEK_END) != 0 ||
        (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        e = errno != 0 ? errno : EIO;
    char *buf = e == 0 ? malloc((size_t)size + 1) : NULL;
    if (e == 0 && buf == NULL) {
        fclose(f);
        return err_nomem(err, _("the output"));
    }
    if (e == 0 && fread(buf, 1, (size_t)size, f) != (size_t)size)
        e = errno != 0 ? errno : EIO;
    fclose(f);
    if (e != 0) {
        free(buf);
        return err_write(err, _("the output's temporary file"), e);
    }
    buf[size] = '\0';
    *text = buf;
    *len = (size_t)size;
    return 0;
}

const char *pager_command(void)
{
    const char *cmd = getenv("MHA_EXPLAIN_PAGER");
    if (cmd == NULL)
        cmd = getenv("PAGER");
    if (cmd == NULL)
        return DEFAULT_PAGER;
    if (cmd[strspn(cmd, " \t")] == '\0' || strcmp(cmd, "cat") == 0)
        return NULL;
    return cmd;
}

/* Lines of text, a last line without '\n' counted too. */
static size_t count_lines(const char *text, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += text[i] == '\n';
    return n + (len > 0 && text[len - 1] != '\n');
}

/* Runs cmd with text on its standard input and waits for it; false when
 * it could not start. */
static bool run_pager(const char *cmd, const char *text, size_t len)
{
    int fds[2];
    if (pipe(fds) != 0)
        return false;
    fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    if (pid == 0) {
        dup2(fds[0], STDIN_FILENO);
        close(fds[0]);
        close(fds[1]);
        signal(SIGPIPE, SIG_DFL); /* as the pager expects it */
        setenv("LESS", "FRX", 0); /* as git: when the user set none */
        /* the text is UTF-8 whatever the locale (the messages are
         * bound to UTF-8, a language needs no generated locale): less
         * shows it as such unless the user chose a character set */
        if (getenv("LESSCHARDEF") == NULL)
            setenv("LESSCHARSET", "utf-8", 0);
        setenv("LV", "-c", 0);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(fds[0]);
    /* Ctrl-C belongs to the pager (less uses it) while it runs, and a
     * pager that quits early ends nothing but the writing */
    struct sigaction ignore, old_int, old_quit, old_pipe;
    memset(&ignore, 0, sizeof ignore);
    sigemptyset(&ignore.sa_mask);
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ignore, &old_int);
    sigaction(SIGQUIT, &ignore, &old_quit);
    sigaction(SIGPIPE, &ignore, &old_pipe);
    /* stops quietly when the pager quit before the end (EPIPE) */
    (void)write_all(fds[1], text, len);
    close(fds[1]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    /* the shell says 127 for a command not found, 126 for one it cannot
     * run: the pager never showed anything */
    return !(WIFEXITED(status) &&
             (WEXITSTATUS(status) == 126 || WEXITSTATUS(status) == 127));
}

int page_text(const char *text, size_t len, size_t rows)
{
    const char *cmd = pager_command();
    if (cmd != NULL && count_lines(text, len) >= rows &&
        run_pager(cmd, text, len))
        return 0;
    fwrite(text, 1, len, stdout);
    return 0;
}
