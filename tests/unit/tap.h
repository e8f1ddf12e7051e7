/* tap.h: a tiny Test Anything Protocol helper for the unit tests.
 *
 *   ok(cond, "name %d", i);   one test line, "ok N" or "not ok N"
 *   return tap_done();        plan line; exit 1 when a test failed
 *
 * meson runs these with protocol: 'tap'.
 */
#ifndef MHA_TAP_H
#define MHA_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

static int tap_count;
static int tap_failed;

__attribute__((format(printf, 2, 3)))
static int ok(int cond, const char *fmt, ...)
{
    va_list ap;
    tap_count++;
    if (!cond)
        tap_failed++;
    printf("%sok %d - ", cond ? "" : "not ", tap_count);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
    return cond;
}

/* A diagnostic line, shown by the harness beside a failure. */
__attribute__((format(printf, 1, 2), unused))
static void diag(const char *fmt, ...)
{
    va_list ap;
    fputs("# ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

/* |got - want| <= tol, with -inf equal to -inf. */
__attribute__((unused))
static int near(double got, double want, double tol)
{
    if (isinf(want) || isinf(got))
        return got == want;
    return fabs(got - want) <= tol;
}

static int tap_done(void)
{
    printf("1..%d\n", tap_count);
    return tap_failed ? 1 : 0;
}

#endif
