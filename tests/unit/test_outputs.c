/* test_outputs.c: outputs.h, a run's files put in place together.
 *
 * Usage: test_outputs (the argument meson passes is not used)
 * Works in a fresh directory under $TMPDIR (else /tmp), removed at the
 * end. Makes the cases a run cannot make on purpose: a move that fails
 * after every name was checked (a temporary file removed behind the
 * transaction's back), another program's file put at a name while the
 * run's file is in place, and a second run waiting for the first.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/outputs.h"
#include "tap.h"

static char dir[4096];

static char *path(const char *name)
{
    static char bufs[8][4400];
    static int next;
    char *p = bufs[next++ % 8];
    snprintf(p, sizeof bufs[0], "%s/%s", dir, name);
    return p;
}

static void put(const char *name, const char *text)
{
    FILE *f = fopen(path(name), "w");
    fputs(text, f);
    fclose(f);
}

/* The file's text, or "" when it is missing. */
static const char *text_of(const char *name)
{
    static char buf[64];
    buf[0] = '\0';
    FILE *f = fopen(path(name), "r");
    if (f == NULL)
        return buf;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int exists(const char *name)
{
    struct stat st;
    return lstat(path(name), &st) == 0;
}

/* How many entries dir holds (without . and ..). */
static int entries(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (d == NULL)
        return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* Removes the first hidden entry of dir whose name starts with prefix
 * (a temporary file the transaction made). */
static int remove_hidden(const char *prefix)
{
    DIR *d = opendir(dir);
    int removed = -1;
    if (d == NULL)
        return -1;
    for (struct dirent *e; removed != 0 && (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            removed = unlink(path(e->d_name));
    closedir(d);
    return removed;
}

/* A new file of tx's beside group g for name, holding text. */
static int add(outputs *tx, size_t g, const char *name, const char *text)
{
    mx_error err = {0};
    FILE *f = NULL;
    if (outputs_create(tx, &f, g, NULL, path(name), &err) != 0)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* Every file in place; the replaced one kept until the end, then gone. */
static void test_all_placed(void)
{
    put("a", "old a");
    outputs *tx = NULL;
    size_t g = 0;
    mx_error err = {0};
    ok(outputs_begin(&tx, &err) == 0 &&
           outputs_beside(tx, &g, "--plot", NULL, &err) == 0 &&
           add(tx, g, "a", "new a") == 0 && add(tx, g, "b", "new b") == 0,
       "begin: two files made");
    ok(entries() == 3 && strcmp(text_of("a"), "old a") == 0 && !exists("b"),
       "before the commit: the temporary files, no file at the names");
    ok(outputs_commit(tx, &err) == 0, "commit: both moved (%s)", err.msg);
    ok(strcmp(text_of("a"), "new a") == 0 && strcmp(text_of("b"), "new b") == 0,
       "commit: the new files are in place");
    ok(entries() == 3, "commit: the replaced file is kept until the end (%d)",
       entries());
    outputs_end(tx, true);
    ok(entries() == 2 && strcmp(text_of("a"), "new a") == 0,
       "end: the replaced file is gone, nothing else left");
    unlink(path("a"));
    unlink(path("b"));
}

/* The second move fails: the first is taken back, the user's files are
 * as they were. */
static void test_failed_move(void)
{
    put("a", "old a");
    put("b", "old b");
    outputs *tx = NULL;
    size_t g = 0;
    mx_error err = {0};
    ok(outputs_begin(&tx, &err) == 0 &&
           outputs_beside(tx, &g, "--plot", NULL, &err) == 0 &&
           add(tx, g, "a", "new a") == 0 && add(tx, g, "b", "new b") == 0 &&
           remove_hidden(".b.") == 0,
       "failed move: two files made, the second's temporary file removed");
    ok(outputs_commit(tx, &err) != 0 && err.status == 1 &&
           strstr(err.msg, "/b") != NULL,
       "commit: the failed move is a write error naming b (%s)", err.msg);
    ok(strcmp(text_of("a"), "old a") == 0 && strcmp(text_of("b"), "old b") == 0,
       "commit: both of the user's files are as they were");
    outputs_end(tx, false);
    ok(entries() == 2, "end: no kept file or new file left (%d)", entries());
    unlink(path("a"));
    unlink(path("b"));
}

/* The run fails after its files were placed (its text could not be
 * written): outputs_end(false) puts everything back. */
static void test_undo(void)
{
    put("a", "old a");
    outputs *tx = NULL;
    size_t g = 0;
    mx_error err = {0};
    ok(outputs_begin(&tx, &err) == 0 &&
           outputs_beside(tx, &g, "--plot", NULL, &err) == 0 &&
           add(tx, g, "a", "new a") == 0 && add(tx, g, "b", "new b") == 0 &&
           outputs_commit(tx, &err) == 0,
       "undo: placed first");
    outputs_end(tx, false);
    ok(strcmp(text_of("a"), "old a") == 0 && !exists("b"),
       "undo: the user's file is back, the new file is gone");
    ok(entries() == 1, "undo: nothing else left (%d)", entries());
    unlink(path("a"));
}

/* Another program puts its file at a name while this run's file is
 * there: the run that fails leaves that file alone (issue 27). */
static void test_not_mine(void)
{
    put("a", "old a");
    outputs *tx = NULL;
    size_t g = 0;
    mx_error err = {0};
    ok(outputs_begin(&tx, &err) == 0 &&
           outputs_beside(tx, &g, "--plot", NULL, &err) == 0 &&
           add(tx, g, "a", "new a") == 0 && add(tx, g, "b", "new b") == 0 &&
           outputs_commit(tx, &err) == 0,
       "not mine: placed");
    put(".other", "other a");
    rename(path(".other"), path("a"));
    put(".other", "other b");
    rename(path(".other"), path("b"));
    outputs_end(tx, false);
    ok(strcmp(text_of("a"), "other a") == 0 &&
           strcmp(text_of("b"), "other b") == 0,
       "not mine: a file the run did not write stays at its name");
    ok(entries() == 2, "not mine: no kept file left (%d)", entries());
    unlink(path("a"));
    unlink(path("b"));
}

/* A directory, a FIFO or a symlink at a name: refused before anything
 * moves, as bad input (status 2: the name given cannot take a file). */
static void test_check(void)
{
    mkdir(path("d"), 0777);
    mkfifo(path("f"), 0666);
    put("target", "the user's file");
    symlink("target", path("l"));
    const char *names[] = {"d", "f", "l"};
    const char *what[] = {"a directory", "a FIFO",
                          "a symlink, even to a regular file,"};
    for (int k = 0; k < 3; k++) {
        outputs *tx = NULL;
        size_t g = 0;
        mx_error err = {0};
        int made = outputs_begin(&tx, &err) == 0 &&
                   outputs_beside(tx, &g, "--plot", NULL, &err) == 0 &&
                   add(tx, g, names[k], "new") == 0;
        int refused = outputs_commit(tx, &err) != 0 && err.status == 2;
        ok(made && refused && (k != 0 || err.sys_errno == EISDIR) &&
               (k != 1 || strstr(err.msg, "regular file") != NULL) &&
               (k != 2 || strstr(err.msg, "symbolic link") != NULL),
           "check: %s is refused (%s)", what[k], err.msg);
        outputs_end(tx, false);
    }
    ok(entries() == 4 && strcmp(text_of("target"), "the user's file") == 0,
       "check: nothing moved, nothing left");
    rmdir(path("d"));
    unlink(path("f"));
    unlink(path("l"));
    unlink(path("target"));
}

/* A folder group: its folder and sub folder made, then removed again
 * when the run fails. */
static void test_folder(void)
{
    outputs *tx = NULL;
    size_t g = 0;
    mx_error err = {0};
    FILE *f = NULL;
    int made = outputs_begin(&tx, &err) == 0 &&
               outputs_folder(tx, &g, path("x/y"), &err) == 0 &&
               outputs_create(tx, &f, g, "sentence0", "t.csv", &err) == 0;
    if (f != NULL) {
        fputs("new", f);
        fclose(f);
    }
    ok(made && exists("x/y") && !exists("x/y/sentence0"),
       "folder: the folder made, the sub folder not yet (%s)", err.msg);
    ok(outputs_commit(tx, &err) == 0 &&
           strcmp(text_of("x/y/sentence0/t.csv"), "new") == 0,
       "folder: the file in place in its sub folder (%s)", err.msg);
    outputs_end(tx, false);
    ok(!exists("x") && entries() == 0,
       "folder: after a failure, every folder made is removed");
}

/* Two runs on one name: the second waits until the first has ended, and
 * keeps what the first left. */
static void test_turns(void)
{
    put("a", "old a");
    int ready[2];
    if (pipe(ready) != 0)
        return;
    pid_t child = fork();
    if (child == 0) {
        outputs *tx = NULL;
        size_t g = 0;
        mx_error err = {0};
        char c = 'x';
        int rc = outputs_begin(&tx, &err) == 0 &&
                 outputs_beside(tx, &g, "--plot", NULL, &err) == 0 &&
                 add(tx, g, "a", "first a") == 0 &&
                 outputs_commit(tx, &err) == 0;
        if (write(ready[1], &c, 1) != 1)
            rc = 0;
        nanosleep(&(struct timespec){.tv_nsec = 300000000}, NULL);
        put("ended", "");
        outputs_end(tx, false); /* the first run fails */
        _exit(rc ? 0 : 1);
    }
    char c;
    int got = read(ready[0], &c, 1) == 1;
    outputs *tx = NULL;
    size_t g = 0;
    mx_error err = {0};
    ok(got && outputs_begin(&tx, &err) == 0 &&
           outputs_beside(tx, &g, "--plot", NULL, &err) == 0 &&
           add(tx, g, "a", "second a") == 0 && outputs_commit(tx, &err) == 0,
       "turns: the second run commits");
    ok(exists("ended"), "turns: only once the first run has ended");
    outputs_end(tx, false); /* the second fails too */
    int status = -1;
    waitpid(child, &status, 0);
    ok(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
           strcmp(text_of("a"), "old a") == 0,
       "turns: both runs failed, the user's file is back");
    close(ready[0]);
    close(ready[1]);
    unlink(path("ended"));
    unlink(path("a"));
}

/* outputs_check_name, before a run: a name the user gives that cannot
 * take a file is status 2 with a message naming the option; a new name
 * or a regular file in a folder one may write in passes. */
static void test_check_name(void)
{
    mkdir(path("d"), 0777);
    put("file", "mine");
    symlink("file", path("l"));
    const struct {
        const char *name, *what, *says;
    } bad[] = {
        {"none/x.png", "a missing folder", "No such file or directory"},
        {"file/x.png", "a folder that is a file", "Not a directory"},
        {"l", "a symlink", "is a symbolic link"},
        {"d", "a folder", "Is a directory"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        mx_error err = {0};
        const int rc =
            outputs_check_name("--plot", path(bad[k].name), true, false, &err);
        ok(rc != 0 && err.status == 2 && strncmp(err.msg, "--plot: ", 8) == 0 &&
               strstr(err.msg, bad[k].says) != NULL,
           "check_name: %s is status 2 (%s)", bad[k].what, err.msg);
    }
    mx_error err = {0};
    ok(outputs_check_name("--html", path("file"), true, false, &err) == 0 &&
           outputs_check_name("--html", path("new.html"), true, false, &err) ==
               0 &&
           outputs_check_name("--html", path("l"), false, false, &err) == 0,
       "check_name: a regular file, a new name, and a folder alone pass");
    ok(outputs_check_name("--html", path("none/x.html"), true, true, &err) == 0,
       "check_name: a missing folder another output may make passes");
    ok(strcmp(text_of("file"), "mine") == 0 && !exists("new.html"),
       "check_name: nothing made or changed");
    unlink(path("l"));
    unlink(path("file"));
    rmdir(path("d"));
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_outputs.XXXXXX",
             tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_all_placed();
    test_failed_move();
    test_undo();
    test_not_mine();
    test_check();
    test_check_name();
    test_folder();
    test_turns();
    ok(rmdir(dir) == 0, "the working directory is left empty");
    return tap_done();
}
