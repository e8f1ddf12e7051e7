/* test_replace.c: replace.h, files moved into place together.
 *
 * Usage: test_replace (the argument meson passes is not used)
 * Works in a fresh directory under $TMPDIR (else /tmp), removed at the
 * end. The case a run cannot make on purpose, a move that fails after
 * every name was checked, is made here: a temporary file that is missing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/replace.h"
#include "tap.h"

static char dir[4096];

static char *path(const char *name)
{
    static char bufs[8][4200];
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
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p != NULL && fscanf(p, "%d", &n) != 1)
        n = -1;
    if (p != NULL)
        pclose(p);
    return n;
}

static void set(replacement *r, const char *temp, const char *final)
{
    memset(r, 0, sizeof *r);
    r->temp = strdup(path(temp));
    r->final = strdup(path(final));
}

static void unset(replacement *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(r[i].temp);
        free(r[i].final);
    }
}

/* Every file in place; the replaced one is gone, nothing else is left. */
static void test_all_placed(void)
{
    put("a", "old a");
    put(".a.t", "new a");
    put(".b.t", "new b");
    replacement r[2];
    set(&r[0], ".a.t", "a");
    set(&r[1], ".b.t", "b");
    mx_error err = {0};
    ok(replace_check(r, 2, &err) == 0, "check: a file and a free name");
    ok(replace_place(r, 2, &err) == 0, "place: both moved");
    ok(strcmp(text_of("a"), "new a") == 0 && strcmp(text_of("b"), "new b") == 0,
       "place: the new files are in place");
    ok(exists(".a.t.old") && strcmp(text_of(".a.t.old"), "old a") == 0,
       "place: the replaced file is kept until replace_keep");
    replace_keep(r, 2);
    ok(!exists(".a.t.old") && entries() == 2,
       "keep: the replaced file is gone, nothing else left");
    unset(r, 2);
    unlink(path("a"));
    unlink(path("b"));
}

/* The second move fails: the first is undone, the user's file is back. */
static void test_failed_move(void)
{
    put("a", "old a");
    put("b", "old b");
    put(".a.t", "new a");
    replacement r[2];
    set(&r[0], ".a.t", "a");
    set(&r[1], ".b.t", "b"); /* missing: its rename fails */
    mx_error err = {0};
    ok(replace_check(r, 2, &err) == 0, "check: two files");
    ok(replace_place(r, 2, &err) != 0 && err.status == 1 &&
           strstr(err.msg, "/b") != NULL,
       "place: the failed move is a write error naming b (%s)", err.msg);
    ok(strcmp(text_of("a"), "old a") == 0 && strcmp(text_of("b"), "old b") == 0,
       "place: both of the user's files are as they were");
    ok(entries() == 2, "place: no kept file or new file left (%d)", entries());
    unset(r, 2);
    unlink(path("a"));
    unlink(path("b"));
}

/* Another kind fails after these were placed: replace_undo. */
static void test_undo(void)
{
    put("a", "old a");
    put(".a.t", "new a");
    put(".b.t", "new b");
    symlink("elsewhere", path("c"));
    put(".c.t", "new c");
    replacement r[3];
    set(&r[0], ".a.t", "a");
    set(&r[1], ".b.t", "b");
    set(&r[2], ".c.t", "c");
    mx_error err = {0};
    ok(replace_place(r, 3, &err) == 0, "undo: placed first");
    replace_undo(r, 3);
    char link[64] = "";
    ssize_t n = readlink(path("c"), link, sizeof link - 1);
    link[n > 0 ? n : 0] = '\0';
    ok(strcmp(text_of("a"), "old a") == 0 && !exists("b") &&
           strcmp(link, "elsewhere") == 0,
       "undo: the file and the symlink are back, the new file is gone");
    ok(entries() == 2, "undo: nothing else left (%d)", entries());
    unset(r, 3);
    unlink(path("a"));
    unlink(path("c"));
}

/* A directory, a FIFO or a symlink at a final name: refused before
 * anything moves. */
static void test_check(void)
{
    mkdir(path("d"), 0777);
    mkfifo(path("f"), 0666);
    replacement r[1];
    mx_error err = {0};
    set(&r[0], ".t", "d");
    ok(replace_check(r, 1, &err) != 0 && err.status == 1 &&
           err.sys_errno == EISDIR,
       "check: a directory is refused (%s)", err.msg);
    unset(r, 1);
    memset(&err, 0, sizeof err);
    set(&r[0], ".t", "f");
    ok(replace_check(r, 1, &err) != 0 && err.status == 1 &&
           strstr(err.msg, "regular file") != NULL,
       "check: a FIFO is refused (%s)", err.msg);
    unset(r, 1);
    put("target", "the user's file");
    symlink("target", path("l"));
    memset(&err, 0, sizeof err);
    set(&r[0], ".t", "l");
    ok(replace_check(r, 1, &err) != 0 && err.status == 1 &&
           strstr(err.msg, "symbolic link") != NULL,
       "check: a symlink, even to a regular file, is refused (%s)", err.msg);
    unset(r, 1);
    rmdir(path("d"));
    unlink(path("f"));
    unlink(path("l"));
    unlink(path("target"));
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_replace.XXXXXX",
             tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_all_placed();
    test_failed_move();
    test_undo();
    test_check();
    ok(rmdir(dir) == 0, "the working directory is left empty");
    return tap_done();
}
