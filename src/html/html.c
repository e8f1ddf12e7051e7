/* html.c: --html FILE, the interactive page.
 *
 *   <!DOCTYPE html> ... <style>page.css</style>
 *   <script type="application/json" id="mha-data">{...}</script>
 *   <script>page.js</script>
 *
 * The data (html_data.c) holds each variant's heads' float32 values
 * exactly, which the page writes as the CSV does, and the step-through
 * (html_steps.c). Nothing depends on the time or the machine: the same
 * run gives the same bytes.
 */
#include "html/html.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cleanup.h"
#include "cli/i18n.h"
#include "html/html_parts.h"
#include "html/page_assets.h"
#include "io/replace.h"

/* s with HTML's special characters escaped, for the title (the tokens). */
static void html_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        default:
            fputc(*s, out);
        }
    }
}

static int write_page(FILE *out, const trace *tr, const html_page *page,
                      mx_error *err)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
          "<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\""
          "default-src 'none'; style-src 'unsafe-inline'; "
          "script-src 'unsafe-inline'\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, "
          "initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"mha-explain " MHA_VERSION
          "\">\n<title>mha-explain: ",
          out);
    const labels *tokens = trace_find_input(tr, TABLE_INPUTS)->rows;
    for (size_t i = 0; i < tokens->n; i++) {
        if (i > 0)
            fputc(' ', out);
        html_text(out, tokens->s[i]);
    }
    fputs("</title>\n<style>\n", out);
    fputs(page_css, out);
    fputs("</style>\n</head>\n<body>\n"
          "<noscript>This page draws its views with JavaScript; the same "
          "numbers are in mha-explain's text and CSV output.</noscript>\n"
          "<main id=\"app\"></main>\n"
          "<script type=\"application/json\" id=\"mha-data\">\n",
          out);
    if (html_write_data(out, tr, page, err) != 0)
        return -1;
    fputs("\n</script>\n<script>\n", out);
    fputs(page_js, out);
    fputs("</script>\n</body>\n</html>\n", out);
    return 0;
}

/* "dir/.name.XXXXXX" beside path, for mkstemp; at most 200 bytes of the
 * name, so that a name near the 255-byte limit still has a temporary
 * (and a kept, replace.h) one. */
static char *temp_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash != NULL ? (size_t)(slash - path) + 1 : 0;
    size_t n = strlen(path) + 16;
    char *temp = malloc(n);
    if (temp != NULL)
        snprintf(temp, n, "%.*s.%.200s.XXXXXX", (int)dir_len, path,
                 path + dir_len);
    return temp;
}

/* path, or with several pages "<stem>.sentence<i><ext>" (the extension:
 * from the last dot of the file's name, if it has one that is not the
 * name's first character: ".page" gives ".page.sentence0", as --plot's
 * files are named). */
static char *page_path(const char *path, size_t pages, size_t i)
{
    size_t len = strlen(path) + 48;
    char *s = malloc(len);
    if (s == NULL)
        return NULL;
    const char *slash = strrchr(path, '/');
    const char *name = slash != NULL ? slash + 1 : path;
    const char *dot = strrchr(name, '.');
    if (dot == name)
        dot = NULL; /* a hidden file's name, not an extension */
    if (pages <= 1)
        snprintf(s, len, "%s", path);
    else if (dot == NULL)
        snprintf(s, len, "%s.sentence%zu", path, i);
    else
        snprintf(s, len, "%.*s.sentence%zu%s", (int)(dot - path), path, i, dot);
    return s;
}

struct html_set {
    size_t pages, made; /* pages to write; temporary files made so far */
    char **finals;      /* (pages) the pages' names */
    char **temps;       /* (pages) their temporary names, NULL until made */
    replacement *moves; /* (made) temps -> finals, from html_ready */
    cleanup_hook hook;  /* removes temps[0 .. made) on a signal */
    bool hooked;
};

/* A signal's clean-up: the pages put in place are taken back, the pages
 * they replaced put back, the unfinished ones removed
 * (async-signal-safe). */
static void remove_temps(const void *ctx)
{
    const html_set *set = ctx;
    if (set->moves != NULL)
        replace_undo_signal(set->moves, set->made);
    for (size_t i = 0; i < set->made; i++)
        unlink(set->temps[i]);
}

void html_end(html_set *set, bool keep)
{
    if (set == NULL)
        return;
    sigset_t old;
    cleanup_block(&old);
    if (set->moves != NULL) {
        if (keep)
            replace_keep(set->moves, set->made);
        else
            replace_undo(set->moves, set->made);
        /* a page in place has no temporary name left to remove */
        if (keep)
            set->made = 0;
        free(set->moves);
        set->moves = NULL;
    }
    for (size_t i = 0; i < set->made; i++)
        unlink(set->temps[i]);
    if (set->hooked)
        cleanup_pop(&set->hook);
    cleanup_unblock(&old);
    for (size_t i = 0; i < set->pages; i++) {
        free(set->finals[i]);
        free(set->temps[i]);
    }
    free(set->finals);
    free(set->temps);
    free(set);
}

int html_open(html_set **out, const char *path, size_t pages, mx_error *err)
{
    *out = NULL;
    html_set *set = calloc(1, sizeof *set);
    if (set == NULL)
        return err_nomem(err, _("a path"));
    set->pages = pages;
    set->finals = calloc(pages > 0 ? pages : 1, sizeof *set->finals);
    set->temps = calloc(pages > 0 ? pages : 1, sizeof *set->temps);
    if (set->finals == NULL || set->temps == NULL) {
        html_discard(set);
        return err_nomem(err, _("a path"));
    }
    for (size_t i = 0; i < pages; i++) {
        set->finals[i] = page_path(path, pages, i);
        set->temps[i] =
            set->finals[i] != NULL ? temp_name(set->finals[i]) : NULL;
        if (set->temps[i] == NULL) {
            html_discard(set);
            return err_nomem(err, _("a path"));
        }
    }
    sigset_t old;
    cleanup_block(&old);
    cleanup_push(&set->hook, remove_temps, set);
    set->hooked = true;
    cleanup_unblock(&old);
    *out = set;
    return 0;
}

int html_add(html_set *set, const trace *tr, const html_page *page,
             mx_error *err)
{
    if (trace_find_input(tr, TABLE_INPUTS) == NULL)
        return err_input(err, _("--html: the run has no tokens to show"));
    assert(set->made < set->pages); /* one call per page */
    const char *path = set->finals[set->made];
    char *temp = set->temps[set->made];
    /* a signal meanwhile removes the temporary file (cleanup.h) */
    sigset_t old;
    cleanup_block(&old);
    int fd = mkstemp(temp);
    int e = errno;
    if (fd >= 0)
        set->made++;
    cleanup_unblock(&old);
    if (fd < 0)
        return err_write(err, path, e);
    /* mkstemp makes files private; give the page the usual permissions,
     * on the descriptor (never by path) */
    mode_t mask = umask(0);
    umask(mask);
    int failed = fchmod(fd, 0666 & ~mask) != 0, unwritten = 0;
    mx_error page_err = {0};
    e = errno;
    FILE *f = failed ? NULL : fdopen(fd, "w");
    if (f == NULL) {
        if (!failed)
            e = errno;
        failed = 1;
        close(fd);
    } else {
        unwritten = write_page(f, tr, page, &page_err);
        failed = unwritten != 0 || ferror(f);
        e = errno;
        if (fclose(f) != 0 && !failed) {
            failed = 1;
            e = errno;
        }
    }
    if (unwritten != 0) {
        *err = page_err;
        return -1;
    }
    return failed ? err_write(err, path, e != 0 ? e : EIO) : 0;
}

void html_discard(html_set *set)
{
    html_end(set, false);
}

int html_ready(html_set *set, mx_error *err)
{
    set->moves = calloc(set->made > 0 ? set->made : 1, sizeof *set->moves);
    if (set->moves == NULL)
        return err_nomem(err, _("a path"));
    for (size_t i = 0; i < set->made; i++) {
        set->moves[i].temp = set->temps[i];
        set->moves[i].final = set->finals[i];
    }
    return replace_check(set->moves, set->made, err);
}

int html_place(html_set *set, mx_error *err)
{
    return replace_place(set->moves, set->made, err);
}

int html_intact(const html_set *set, mx_error *err)
{
    return replace_intact(set->moves, set->made, err);
}

int html_close(html_set *set, mx_error *err)
{
    sigset_t old;
    cleanup_block(&old);
    int rc = html_ready(set, err);
    if (rc == 0)
        rc = html_place(set, err);
    html_end(set, rc == 0);
    cleanup_unblock(&old);
    return rc;
}
