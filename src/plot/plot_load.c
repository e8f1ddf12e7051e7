/* plot_load.c: plot.h for the program: the picture module
 * (plot_module.h) opened on the first --plot, as image tools load their
 * coders, so that a run without --plot loads none of cairo, pango and
 * fontconfig.
 *
 * The module is looked for beside the program as it is installed
 * (bin/../lib/mha-explain/, MHA_PLOTDIR_FROM_BINDIR), then in the build
 * tree when the program is the one built there (MHA_BUILD_BINDIR), then
 * under the configured prefix (MHA_PLOTDIR): the same way as the
 * catalogues (base/i18n.c), from /proc/self/exe, so a copy run through
 * PATH, a symlink or a staged tree finds its own. A program linked with
 * the drawing itself (the unit tests) uses that instead.
 *
 * The pages are drawn on a thread of their own with a stack of
 * DRAW_STACK bytes: cairo, pixman and pango need more stack than a small
 * `ulimit -s` leaves the main thread (64 KiB overflowed in pixman). The
 * thread blocks every signal, which stay the main thread's.
 */
#define _GNU_SOURCE /* dlopen's flags */
#include "plot/plot.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/i18n.h"
#include "base/program_dir.h"
#include "plot/plot_module.h"

/* Defined where the drawing is linked into the program itself. */
extern const plot_functions mha_plot_functions __attribute__((weak));

struct plot_file {
    const plot_functions *fn;
    plot_picture *pic;
    outputs *own; /* the transaction plot_open made for this alone */
};

bool plot_available(void)
{
    return MHA_HAVE_PLOTS != 0;
}

/* The module's path into path (size n): the first of the places above
 * that holds it, or the last tried. */
static void module_path(char *path, size_t n)
{
    char *here = program_dir(NULL);
    bool found = false;
    if (here != NULL && MHA_PLOTDIR_FROM_BINDIR[0] != '\0') {
        const int len = snprintf(path, n, "%s/%s/%s", here,
                                 MHA_PLOTDIR_FROM_BINDIR, PLOT_MODULE_NAME);
        found = len > 0 && (size_t)len < n && access(path, R_OK) == 0;
    }
    if (!found && here != NULL && same_dir(here, MHA_BUILD_BINDIR)) {
        snprintf(path, n, "%s/%s", MHA_BUILD_PLOTDIR, PLOT_MODULE_NAME);
        found = access(path, R_OK) == 0;
    }
    if (!found)
        snprintf(path, n, "%s/%s", MHA_PLOTDIR, PLOT_MODULE_NAME);
    free(here);
}

/* The module's functions, the module opened if need be (it stays open:
 * the picture libraries cannot be unloaded); NULL with err set. */
static const plot_functions *functions(mx_error *err)
{
    if (!MHA_HAVE_PLOTS) {
        err_usage(err, _("--plot: this build has no plotting (it was "
                         "built without cairo and pango; see the "
                         "README's set-up)"));
        return NULL;
    }
    if (&mha_plot_functions != NULL)
        return &mha_plot_functions;
    char path[PATH_MAX];
    module_path(path, sizeof path);
    void *module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (module == NULL) {
        const char *why = dlerror();
        err_set(err, EXIT_BAD_INPUT,
                _("--plot: this copy of the program has no plotting: its "
                  "picture module cannot be loaded (%s); install the "
                  "program whole, or build it with cairo and pango"),
                why != NULL ? why : path);
        return NULL;
    }
    const plot_functions *fn = dlsym(module, PLOT_MODULE_SYMBOL);
    if (fn == NULL || fn->size != sizeof *fn ||
        strcmp(fn->version, MHA_VERSION) != 0) {
        err_set(err, EXIT_BAD_INPUT,
                _("--plot: the picture module %s is not this version's "
                  "(%s); install the program whole"),
                path, MHA_VERSION);
        return NULL;
    }
    return fn;
}

plot_file *plot_begin(outputs *tx, const char *path, size_t pages, size_t width,
                      size_t height, mx_error *err)
{
    const plot_functions *fn = functions(err);
    if (fn == NULL)
        return NULL;
    plot_file *pf = calloc(1, sizeof *pf);
    if (pf == NULL) {
        err_nomem(err, _("the picture"));
        return NULL;
    }
    pf->fn = fn;
    pf->pic = fn->begin(tx, path, pages, width, height, err);
    if (pf->pic == NULL) {
        free(pf);
        return NULL;
    }
    return pf;
}

/* The drawing thread's stack: what a default `ulimit -s` gives. */
#define DRAW_STACK ((size_t)8 << 20)

/* One call of the module's page or finish, and its result. */
typedef struct {
    plot_file *pf;
    bool page; /* page (the fields below), or finish */
    const trace *tr;
    const table *const *tables;
    size_t n;
    const char *heading;
    const plot_style *style;
    mx_error *err;
    int rc;
} draw_call;

static void *draw(void *p)
{
    draw_call *d = p;
    d->rc = d->page ? d->pf->fn->page(d->pf->pic, d->tr, d->tables, d->n,
                                      d->heading, d->style, d->err)
                    : d->pf->fn->finish(d->pf->pic, d->err);
    return NULL;
}

/* Runs d on a thread with a DRAW_STACK stack, or here when no thread can
 * be made. */
static int draw_on_own_stack(draw_call *d)
{
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) {
        draw(d);
        return d->rc;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the thread inherits it */
    pthread_t thread;
    const bool made = pthread_attr_setstacksize(&attr, DRAW_STACK) == 0 &&
                      pthread_create(&thread, &attr, draw, d) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (made)
        pthread_join(thread, NULL);
    else
        draw(d);
    return d->rc;
}

int plot_page(plot_file *pf, const trace *tr, const table *const *tables,
              size_t n, const char *heading, const plot_style *style,
              mx_error *err)
{
    draw_call d = {pf, true, tr, tables, n, heading, style, err, -1};
    return draw_on_own_stack(&d);
}

int plot_finish(plot_file *pf, mx_error *err)
{
    draw_call d = {.pf = pf, .err = err, .rc = -1};
    return draw_on_own_stack(&d);
}

void plot_free(plot_file *pf)
{
    if (pf == NULL)
        return;
    pf->fn->free(pf->pic);
    outputs_end(pf->own, false);
    free(pf);
}

plot_file *plot_open(const char *path, size_t pages, size_t width,
                     size_t height, mx_error *err)
{
    outputs *own = NULL;
    if (outputs_begin(&own, err) != 0)
        return NULL;
    plot_file *pf = plot_begin(own, path, pages, width, height, err);
    if (pf == NULL)
        outputs_end(own, false);
    else
        pf->own = own;
    return pf;
}

int plot_close(plot_file *pf, mx_error *err)
{
    int rc = plot_finish(pf, err);
    if (rc == 0)
        rc = outputs_commit(pf->own, err);
    outputs_end(pf->own, rc == 0);
    pf->own = NULL;
    plot_free(pf);
    return rc;
}

void plot_discard(plot_file *pf)
{
    plot_free(pf);
}
