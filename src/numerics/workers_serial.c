/* workers_serial.c: numerics/workers.h for the page's WebAssembly core
 * (src/wasm/meson.build names it in workers.c's place), which has one
 * thread: every task runs in turn, in index order, as the native
 * pool does with one thread. Each task writes its own results, so the
 * values are the same however many threads run them. */
#include "numerics/workers.h"

#include <stdlib.h>

#include "base/i18n.h"

struct workers {
    size_t threads; /* always 1 */
};

size_t workers_available(void)
{
    return 1;
}

int workers_init(workers **out, size_t threads, mx_error *err)
{
    (void)threads;
    *out = malloc(sizeof **out);
    if (*out == NULL)
        return err_nomem(err, _("the threads"));
    (*out)->threads = 1;
    return 0;
}

void workers_free(workers *w)
{
    free(w);
}

size_t workers_threads(const workers *w)
{
    (void)w;
    return 1;
}

void workers_run(workers *w, size_t n, double flops,
                 void (*task)(void *ctx, size_t i), void *ctx)
{
    (void)w;
    (void)flops;
    for (size_t i = 0; i < n; i++)
        task(ctx, i);
}
