/* error.c: filling an mx_error. */
#include "base/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/translate.h"

/* clang-format off */
__attribute__((format(printf, 3, 0)))
static void err_vset(mx_error *err, int status, const char *fmt, va_list ap)
/* clang-format on */
{
    err->status = status;
    err->usage = 0;
    err->sys_errno = 0;
    err->detail = (err_detail){0};
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    char *whole = n >= (int)sizeof err->msg ? malloc((size_t)n + 1) : NULL;
    if (whole != NULL) {
        /* too long (a path of thousands of bytes): the start and the end,
         * where the reason is, around "...", cut between characters */
        vsnprintf(whole, (size_t)n + 1, fmt, again);
        size_t head = 160, tail = (size_t)n - (sizeof err->msg - 1 - 165);
        while (head > 0 && ((unsigned char)whole[head] & 0xC0) == 0x80)
            head--;
        while (((unsigned char)whole[tail] & 0xC0) == 0x80)
            tail++;
        snprintf(err->msg, sizeof err->msg, "%.*s ... %s", (int)head, whole,
                 whole + tail);
        free(whole);
    }
    va_end(again);
}

int err_set(mx_error *err, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(err, status, fmt, ap);
    va_end(ap);
    return -1;
}

int err_input(mx_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(err, EXIT_BAD_INPUT, fmt, ap);
    va_end(ap);
    return -1;
}

int err_usage(mx_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(err, EXIT_BAD_INPUT, fmt, ap);
    va_end(ap);
    err->usage = 1;
    return -1;
}

int err_detail_set(mx_error *err, int what, size_t item, size_t a, size_t b)
{
    *err = (mx_error){
        .status = EXIT_BAD_INPUT, .usage = 1, .detail = {what, item, {a, b}}};
    return -1;
}

int err_nomem(mx_error *err, const char *what)
{
    return err_set(err, EXIT_BAD_INPUT, _("out of memory while allocating %s"),
                   what);
}

int err_write(mx_error *err, const char *what, int errnum)
{
    err_set(err, EXIT_OUTPUT_ERROR, _("cannot write %s: %s"), what,
            strerror(errnum));
    err->sys_errno = errnum;
    return -1;
}

int err_errno_is_path(int errnum)
{
    switch (errnum) {
    case ENOENT:
    case ENOTDIR:
    case EISDIR:
    case EACCES:
    case EPERM:
    case EROFS:
    case ELOOP:
    case ENAMETOOLONG:
    case EEXIST:
    case ENXIO:
    case ETXTBSY:
        return 1;
    default:
        return 0;
    }
}

int err_path(mx_error *err, const char *what, int errnum)
{
    err_write(err, what, errnum);
    if (err_errno_is_path(errnum))
        err->status = EXIT_BAD_INPUT;
    return -1;
}
