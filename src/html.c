/* html.c: --html FILE, the interactive page.
 *
 *   <!DOCTYPE html> ... <style>page.css</style>
 *   <script type="application/json" id="mha-data">{...}</script>
 *   <script>page.js</script>
 *
 * The data, for each variant with attention, each head's attn_weights,
 * attn_scores, queries and keys, every value as the text render_csv
 * writes for it (format_float_exact, always with a decimal point), so the
 * page shows exactly the CSV's numbers. Nothing depends on the time or
 * the machine: the same run gives the same bytes.
 */
#include "html.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "i18n.h"
#include "page_assets.h"
#include "render.h"

/* s as a JSON string; '<', '>' and '&' escaped too, so that no text can
 * end the <script> element that holds the data. */
static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

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

/* ["the","cat"] */
static void json_labels(FILE *out, const labels *l)
{
    fputc('[', out);
    for (size_t i = 0; i < l->n; i++) {
        if (i > 0)
            fputc(',', out);
        json_string(out, l->s[i]);
    }
    fputc(']', out);
}

/* A matrix as rows of strings: [["1","0"],["0.48","0.52"]], or null. */
static void json_matrix(FILE *out, const table *t)
{
    if (t == NULL) {
        fputs("null", out);
        return;
    }
    fputc('[', out);
    for (size_t r = 0; r < t->values.rows; r++) {
        fputs(r > 0 ? ",\n[" : "[", out);
        for (size_t c = 0; c < t->values.cols; c++) {
            char value[32];
            format_float_exact(value, sizeof value,
                               *matrix_at(&t->values, r, c), false);
            if (c > 0)
                fputc(',', out);
            json_string(out, value);
        }
        fputc(']', out);
    }
    fputc(']', out);
}

/* {"name":"wrapper","heads":[{"head":0,"weights":...},...]} */
static void json_variant(FILE *out, const trace *tr, const char *variant)
{
    fputs("{\"name\":", out);
    json_string(out, variant);
    fputs(",\"heads\":[", out);
    for (int h = 0;; h++) {
        const table *w = trace_find(tr, variant, h, "attn_weights");
        if (w == NULL)
            break;
        fprintf(out, "%s{\"head\":%d,\n\"weights\":", h > 0 ? ",\n" : "\n", h);
        json_matrix(out, w);
        fputs(",\n\"scores\":", out);
        json_matrix(out, trace_find(tr, variant, h, "attn_scores"));
        fputs(",\n\"queries\":", out);
        json_matrix(out, trace_find(tr, variant, h, "queries"));
        fputs(",\n\"keys\":", out);
        json_matrix(out, trace_find(tr, variant, h, "keys"));
        fputc('}', out);
    }
    fputs("]}", out);
}

static void write_data(FILE *out, const trace *tr, const html_page *page)
{
    const table *inputs = trace_find(tr, "input", NO_HEAD, "inputs");
    const table *kv = trace_find(tr, "input", NO_HEAD, "kv_inputs");
    fprintf(out, "{\"masked\":%s,\"scaled\":%s,\"cross\":%s,\n\"queries\":",
            page->masked ? "true" : "false", page->scaled ? "true" : "false",
            kv != NULL ? "true" : "false");
    json_labels(out, inputs->rows);
    fputs(",\n\"keys\":", out);
    json_labels(out, kv != NULL ? kv->rows : inputs->rows);
    fputs(",\n\"variants\":[", out);

    /* variants in trace order: each has one head-0 attn_weights table */
    size_t n = 0;
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (strcmp(t->name, "attn_weights") != 0 || t->head != 0)
            continue;
        if (n++ > 0)
            fputs(",\n", out);
        json_variant(out, tr, t->variant);
    }
    fputs("]}", out);
}

static void write_page(FILE *out, const trace *tr, const html_page *page)
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
    const labels *tokens = trace_find(tr, "input", NO_HEAD, "inputs")->rows;
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
    write_data(out, tr, page);
    fputs("\n</script>\n<script>\n", out);
    fputs(page_js, out);
    fputs("</script>\n</body>\n</html>\n", out);
}

/* "dir/.name.XXXXXX" beside path, for mkstemp. */
static char *temp_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash != NULL ? (size_t)(slash - path) + 1 : 0;
    size_t n = strlen(path) + 16;
    char *temp = malloc(n);
    if (temp != NULL)
        snprintf(temp, n, "%.*s.%s.XXXXXX", (int)dir_len, path, path + dir_len);
    return temp;
}

/* A signal's clean-up: the unfinished page (async-signal-safe). */
static void remove_temp(const void *ctx)
{
    unlink(ctx);
}

int html_write(const char *path, const trace *tr, const html_page *page,
               mx_error *err)
{
    if (trace_find(tr, "input", NO_HEAD, "inputs") == NULL)
        return err_input(err, _("--html: the run has no tokens to show"));
    char *temp = temp_name(path);
    if (temp == NULL)
        return err_nomem(err, _("a path"));
    /* a signal meanwhile removes the temporary file (cleanup.h) */
    cleanup_hook hook;
    sigset_t old;
    cleanup_block(&old);
    int fd = mkstemp(temp);
    int e = errno;
    if (fd >= 0)
        cleanup_push(&hook, remove_temp, temp);
    cleanup_unblock(&old);
    if (fd < 0) {
        free(temp);
        return err_write(err, path, e);
    }
    /* mkstemp makes files private; give the page the usual permissions,
     * on the descriptor (never by path) */
    mode_t mask = umask(0);
    umask(mask);
    int failed = fchmod(fd, 0666 & ~mask) != 0;
    e = errno;
    FILE *f = failed ? NULL : fdopen(fd, "w");
    if (f == NULL) {
        if (!failed)
            e = errno;
        failed = 1;
        close(fd);
    } else {
        write_page(f, tr, page);
        failed = ferror(f);
        e = errno;
        if (fclose(f) != 0 && !failed) {
            failed = 1;
            e = errno;
        }
    }
    cleanup_block(&old);
    if (!failed && rename(temp, path) != 0) {
        failed = 1;
        e = errno;
    }
    if (failed)
        unlink(temp);
    cleanup_pop(&hook);
    cleanup_unblock(&old);
    free(temp);
    return failed ? err_write(err, path, e != 0 ? e : EIO) : 0;
}
