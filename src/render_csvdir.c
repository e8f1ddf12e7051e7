/* render_csvdir.c: one matrix-shaped CSV per table, written whole or not
 * at all.
 *
 *   token,dim0,dim1,dim2
 *   O,0.3367,0.1288,0.2345
 *
 * Every file is written under a hidden temporary name first; only when all
 * of them are complete are they renamed into place. On any failure the
 * temporary files, the renamed ones and the directories this run created
 * are removed again.
 */
#include "render.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_CREATED_DIRS 64

typedef struct {
    char *final_path; /* dir/<name>.csv */
    char *temp_path;  /* dir/.<name>.csv.XXXXXX */
    bool renamed;
} pending_file;

/* Made directories, deepest last, so that a failed run can remove them. */
typedef struct {
    char *path[MAX_CREATED_DIRS];
    size_t n;
} created_dirs;

static void remove_created_dirs(created_dirs *made)
{
    while (made->n > 0) {
        made->n--;
        rmdir(made->path[made->n]);
        free(made->path[made->n]);
    }
}

static void forget_created_dirs(created_dirs *made)
{
    while (made->n > 0)
        free(made->path[--made->n]);
}

/* mkdir -p dir, remembering what it made. */
static int make_dirs(const char *dir, created_dirs *made, mx_error *err)
{
    char *path = strdup(dir);
    if (path == NULL)
        return err_nomem(err, "a path");
    size_t len = strlen(path);
    for (size_t i = 1; i <= len; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        char saved = path[i];
        path[i] = '\0';
        struct stat st;
        if (stat(path, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) {
                err_input(err, "--csv-dir: %s is not a directory", path);
                free(path);
                return -1;
            }
        } else if (mkdir(path, 0777) != 0) {
            err_input(err, "--csv-dir: cannot create %s: %s", path,
                      strerror(errno));
            free(path);
            return -1;
        } else if (made->n < MAX_CREATED_DIRS) {
            made->path[made->n] = strdup(path);
            if (made->path[made->n] != NULL)
                made->n++;
        }
        path[i] = saved;
    }
    free(path);
    return 0;
}

/* "<variant>.<table>.csv" or "<variant>.head<h>.<table>.csv" */
static void file_name(char *buf, size_t size, const table *t)
{
    if (t->head == NO_HEAD)
        snprintf(buf, size, "%s.%s.csv", t->variant, t->name);
    else
        snprintf(buf, size, "%s.head%d.%s.csv", t->variant, t->head, t->name);
}

static void write_matrix_csv(FILE *f, const table *t,
                             const csv_out_style *style)
{
    const char d = style->delimiter;
    if (style->bom)
        fputs("\xEF\xBB\xBF", f);
    fputs("token", f);
    for (size_t c = 0; c < t->values.cols; c++) {
        fputc(d, f);
        write_csv_field(f, t->cols->s[c], d);
    }
    fputc('\n', f);
    for (size_t r = 0; r < t->values.rows; r++) {
        write_csv_field(f, t->rows->s[r], d);
        for (size_t c = 0; c < t->values.cols; c++) {
            char value[32];
            format_float_exact(value, sizeof value,
                               *matrix_at(&t->values, r, c),
                               style->decimal_comma);
            fputc(d, f);
            fputs(value, f);
        }
        fputc('\n', f);
    }
}

/* Writes t into a new temporary file beside its final name. */
static int write_pending(pending_file *p, const char *dir, const table *t,
                         const csv_out_style *style, mx_error *err)
{
    char name[128];
    file_name(name, sizeof name, t);
    size_t n = strlen(dir) + strlen(name) + 16;
    p->final_path = malloc(n);
    p->temp_path = malloc(n);
    if (p->final_path == NULL || p->temp_path == NULL)
        return err_nomem(err, "a path");
    snprintf(p->final_path, n, "%s/%s", dir, name);
    snprintf(p->temp_path, n, "%s/.%s.XXXXXX", dir, name);

    int fd = mkstemp(p->temp_path);
    if (fd < 0) {
        p->temp_path[0] = '\0';
        return err_write(err, p->final_path, errno);
    }
    FILE *f = fdopen(fd, "w");
    if (f == NULL) {
        int e = errno;
        close(fd);
        return err_write(err, p->final_path, e);
    }
    write_matrix_csv(f, t, style);
    int failed = ferror(f);
    int e = errno;
    if (fclose(f) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (failed)
        return err_write(err, p->final_path, e);
    /* mkstemp makes files private; give them the usual permissions */
    mode_t mask = umask(0);
    umask(mask);
    chmod(p->temp_path, 0666 & ~mask);
    return 0;
}

int render_csv_dir(const char *dir, const table *const *tables, size_t n,
                   const csv_out_style *style, mx_error *err)
{
    created_dirs made = {0};
    pending_file *files = calloc(n > 0 ? n : 1, sizeof *files);
    if (files == NULL)
        return err_nomem(err, "the file list");
    int rc = make_dirs(dir, &made, err);

    for (size_t i = 0; i < n && rc == 0; i++)
        rc = write_pending(&files[i], dir, tables[i], style, err);
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (rename(files[i].temp_path, files[i].final_path) != 0)
            rc = err_write(err, files[i].final_path, errno);
        else
            files[i].renamed = true;
    }

    for (size_t i = 0; i < n; i++) {
        if (rc != 0 && files[i].renamed)
            unlink(files[i].final_path);
        else if (rc != 0 && files[i].temp_path && files[i].temp_path[0])
            unlink(files[i].temp_path);
        free(files[i].final_path);
        free(files[i].temp_path);
    }
    free(files);
    if (rc != 0)
        remove_created_dirs(&made);
    else
        forget_created_dirs(&made);
    return rc;
}
