/* plot_none.c: plot.h for a build without cairo and pango. */
#include "plot/plot.h"

#include "cli/i18n.h"

bool plot_available(void)
{
    return false;
}

plot_file *plot_open(const char *path, size_t pages, size_t width,
                     size_t height, mx_error *err)
{
    (void)path;
    (void)pages;
    (void)width;
    (void)height;
    err_usage(err, _("--plot: this build has no plotting (it was built "
                     "without cairo and pango; see the README's set-up)"));
    return NULL;
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
    return err_usage(err, _("--plot: this build has no plotting (it was "
                            "built without cairo and pango; see the "
                            "README's set-up)"));
}

int plot_ready(plot_file *pf, mx_error *err)
{
    (void)pf;
    (void)err;
    return 0;
}

int plot_place(plot_file *pf, mx_error *err)
{
    (void)pf;
    (void)err;
    return 0;
}

int plot_intact(const plot_file *pf, mx_error *err)
{
    (void)pf;
    (void)err;
    return 0;
}

void plot_end(plot_file *pf, bool keep)
{
    (void)pf;
    (void)keep;
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
