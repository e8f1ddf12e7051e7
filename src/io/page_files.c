/* page_files.c: the files of the folder the page holds (page_files.h),
 * read where the program reads its disk: file_read_small and
 * file_present (io/file_read.c), safetensors_open and safetensors_close
 * (io/safetensors_map.c). The messages are the program's for the same
 * problem: a file the folder lacks is one that cannot be opened
 * (ENOENT), one too large is refused with its limit, and a
 * .safetensors file is checked by the program's safetensors_read.
 *
 * The bytes were copied once into the core's memory by the page, and a
 * tensor is used where it lies, as the program uses its mapped file.
 * The folder is, with the catalogue (base/page/libintl.c), the state the core
 * keeps between calls: the program's readers are given a path only. */
#include "io/page_files.h"

#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "io/file_read.h"
#include "io/safetensors.h"

static struct {
    page_file *files; /* owned, with each path and bytes */
    size_t n;
} folder;

void page_files_set(page_file *files, size_t n)
{
    for (size_t i = 0; i < folder.n; i++) {
        free(folder.files[i].path);
        free(folder.files[i].bytes);
    }
    free(folder.files);
    folder.files = files;
    folder.n = files != NULL ? n : 0;
}

/* The file at path, or NULL. */
static const page_file *find(const char *path)
{
    for (size_t i = 0; i < folder.n; i++)
        if (strcmp(folder.files[i].path, path) == 0)
            return &folder.files[i];
    return NULL;
}

/* The program's message for a file the folder lacks: its strerror(ENOENT)
 * comes from the C library's catalogue in the program's language, which
 * the core lacks; here it is the core's own msgid, translated in
 * po/LANG.po with the C library's words (glibc's libc.mo). */
static int cannot_open(const char *path, mx_error *err)
{
    return err_input(err, _("%s: cannot open: %s"), path,
                     _("No such file or directory"));
}

int file_read_small(char **text, size_t *len, const char *path, size_t max,
                    mx_error *err)
{
    *text = NULL;
    *len = 0;
    const page_file *f = find(path);
    if (f == NULL)
        return cannot_open(path, err);
    if (f->len > max)
        return err_input(err, _("%s: larger than %zu bytes"), path, max);
    char *buf = malloc(f->len + 1);
    if (buf == NULL)
        return err_nomem(err, path);
    if (f->len > 0)
        memcpy(buf, f->bytes, f->len);
    buf[f->len] = '\0';
    *text = buf;
    *len = f->len;
    return 0;
}

bool file_present(const char *path)
{
    return find(path) != NULL;
}

int folder_check(const char *dir, mx_error *err)
{
    const size_t n = strlen(dir);
    for (size_t i = 0; i < folder.n; i++)
        if (strncmp(folder.files[i].path, dir, n) == 0 &&
            folder.files[i].path[n] == '/')
            return 0;
    // the program's message for a folder that is not there (ENOENT)
    return err_input(err, _("%s: no such folder (%s)"), dir,
                     _("No such file or directory"));
}

int safetensors_open(safetensors *st, const char *path, mx_error *err)
{
    *st = (safetensors){.path = path};
    const page_file *f = find(path);
    if (f == NULL)
        return cannot_open(path, err);
    return safetensors_read(st, path, f->bytes, f->len, err);
}

void safetensors_close(safetensors *st)
{
    safetensors_forget(st);
    *st = (safetensors){0};
}

/* The page's bytes are its own, not a map: nothing to drop. */
void safetensors_release(const safetensors *st, const unsigned char *src,
                         size_t len)
{
    (void)st;
    (void)src;
    (void)len;
}
