/* safetensors_map.c: a .safetensors file mapped, then checked by
 * safetensors_read (safetensors.h). The page's core has no files: it
 * reads the bytes the page holds instead (page_files.c). */
#define _DEFAULT_SOURCE /* madvise */
#include "io/safetensors.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/i18n.h"

int safetensors_open(safetensors *st, const char *path, mx_error *err)
{
    *st = (safetensors){.path = path};
    /* O_NONBLOCK: a FIFO is refused below, not waited on */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return err_input(err, _("%s: cannot open: %s"), path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return err_input(err, _("%s: not a regular file"), path);
    }
#if SIZE_MAX < UINT64_MAX
    /* a 32-bit target cannot address a larger file */
    if ((uint64_t)sb.st_size > SIZE_MAX) {
        close(fd);
        return err_input(err,
                         _("%s: %llu bytes, more than the %zu bytes "
                           "this program can address"),
                         path, (unsigned long long)sb.st_size,
                         (size_t)SIZE_MAX);
    }
#endif
    const size_t size = (size_t)sb.st_size;
    if (size < 8) { /* refused by safetensors_read; nothing to map */
        close(fd);
        return safetensors_read(st, path, NULL, size, err);
    }
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return err_input(err, _("%s: cannot map: %s"), path, strerror(errno));
    if (safetensors_read(st, path, map, size, err) != 0) {
        munmap(map, size);
        return -1;
    }
    st->map = map;
    st->map_len = size;
    return 0;
}

void safetensors_close(safetensors *st)
{
    if (st->map != NULL)
        munmap(st->map, st->map_len);
    safetensors_forget(st);
    *st = (safetensors){0};
}

/* Drops the whole pages of the map inside [src, src + len) from memory
 * once their values are copied: the map is read-only and never written,
 * so a later read of them (another tensor's bytes on a shared page are
 * never dropped) maps the file's same bytes again. A widened BF16 model
 * then holds its float32 copy, not that copy and its file. */
void safetensors_release(const safetensors *st, const unsigned char *src,
                         size_t len)
{
    if (st->map == NULL)
        return;
    const long page = sysconf(_SC_PAGESIZE);
    if (page <= 0)
        return;
    const uintptr_t p = (uintptr_t)page, lo = ((uintptr_t)src + p - 1) / p * p,
                    hi = ((uintptr_t)src + len) / p * p;
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_DONTNEED);
}
