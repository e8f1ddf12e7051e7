/* plot_none.c: plot.h for a build without cairo and pango. */
#include "plot/plot.h"

#include "cli/i18n.h"

bool plot_available(void)
{
    return false;
}

/* The one message of every function that would draw. */
static int no_plots(mx_error *err)
{
    return err_usage(err, _("--plot: this build has no plotting (it was "
                            "built without cairo and pango; see the "
                            "README's set-up)"));
}

plot_file *plot_begin(outputs *tx, const char *path, size_t pages, size_t width,
                      size_t height, mx_error *err)
{
    (void)tx;
    (void)path;
    (void)pages;
    (void)width;
    (void)height;
    no_plots(err);
    return NULL;
}

plot_file *plot_open(const char *path, size_t pages, size_t width,
                     size_t height, mx_error *err)
{
    return plot_begin(NULL, path, pages, width, height, err);
}

int plot_page(plot_file *pf, const trace *tr, const table *const *tables,
              size_t n, const char *heading, const plot_style *style,
              mx_error *err)
{
    (void)style;
    (void)pf;
    (void)tr;
    (void)tables;
    (void)n;
    (void)heading;
    return no_plots(err);
}

int plot_finish(plot_file *pf, mx_error *err)
{
    (void)pf;
    (void)err;
    return 0;
}

void plot_free(plot_file *pf)
{
    (void)pf;
}

int plot_close(plot_file *pf, mx_error *err)
{
    (void)pf;
    (void)err;
    return 0;
}

void plot_discard(plot_file *pf)
{
    (void)pf;
}
