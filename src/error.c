/* error.c: filling an mx_error. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "i18n.h"

/* clang-format off */
__attribute__((format(printf, 3, 0)))
static void err_vset(mx_error *err, int status, const char *fmt, va_list ap)
/* clang-format on */
{
    err->status = status;
    err->usage = 0;
    err->sys_errno = 0;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
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
