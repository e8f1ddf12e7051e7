/* plot.c: --plot FILE, the files: cairo's PNG, SVG and PDF surfaces for
 * the pages that plot_figure.c lays out and draws (one drawing code for
 * three formats). Built into the picture module with plot_figure.c, it
 * exports its functions as one table (plot_module.h); the program reaches
 * them through plot.h (plot_load.c).
 *
 * Each page is laid out for its output's size, then drawn once onto a
 * PNG, SVG or PDF surface. Every file is a file of the run's transaction
 * (io/outputs.h), put in place with the run's other files.
 */
#include "plot/plot_module.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <pango/pangocairo.h>

#include "base/i18n.h"
#include "plot/plot_figure.h"
#include "io/outputs.h"

enum plot_format { PLOT_PNG, PLOT_SVG, PLOT_PDF };

static void picture_free(plot_picture *pf);

typedef struct {
    char *final_path;
    FILE *out;
    int write_errno; /* errno of the first failed write, or 0 */
} plot_output;

struct plot_picture {
    enum plot_format format;
    size_t pages, drawn;
    plot_output *outputs; /* one, or one per page for PNG and SVG */
    size_t n_outputs;
    cairo_surface_t *pdf; /* the PDF surface, across pages */
    outputs *tx;          /* the run's files */
    size_t group;         /* the picture's group in it */
    char *path;           /* --plot FILE */
    double width, height; /* --plot-size (pixels or points), or 0 x 0 */
};

/* ---- files ------------------------------------------------------------ */

static int format_of(enum plot_format *f, const char *path, mx_error *err)
{
    /* the extension: from the last dot of the file's name that is not
     * its first character (".png" is a hidden file's name, as for
     * --html's pages; options.c says so) */
    const char *slash = strrchr(path, '/');
    const char *name = slash != NULL ? slash + 1 : path;
    const char *dot = strrchr(name, '.');
    if (dot != NULL && dot > name) {
        if (strcmp(dot, ".png") == 0 || strcmp(dot, ".PNG") == 0) {
            *f = PLOT_PNG;
            return 0;
        }
        if (strcmp(dot, ".svg") == 0 || strcmp(dot, ".SVG") == 0) {
            *f = PLOT_SVG;
            return 0;
        }
        if (strcmp(dot, ".pdf") == 0 || strcmp(dot, ".PDF") == 0) {
            *f = PLOT_PDF;
            return 0;
        }
    }
    return err_usage(err, _("--plot: '%s' does not end in .png, .svg or .pdf"),
                     path);
}

/* path, or with several pages "<stem>.sentence<i><ext>". */
static char *page_path(const char *path, size_t pages, size_t i)
{
    size_t len = strlen(path) + 48;
    char *s = malloc(len);
    if (s == NULL)
        return NULL;
    if (pages <= 1) {
        snprintf(s, len, "%s", path);
        return s;
    }
    const char *dot = strrchr(path, '.');
    snprintf(s, len, "%.*s.sentence%zu%s", (int)(dot - path), path, i, dot);
    return s;
}

/* Opens o, a new file of the transaction for final. */
static int output_open(plot_picture *pf, plot_output *o, const char *final,
                       mx_error *err)
{
    o->final_path = strdup(final);
    if (o->final_path == NULL)
        return err_nomem(err, _("a path"));
    return outputs_create(pf->tx, &o->out, pf->group, NULL, final, err);
}

/* Makes output i's file: the picture's, or page i's. */
static int page_open(plot_picture *pf, size_t i, mx_error *err)
{
    char *final =
        page_path(pf->path, pf->format == PLOT_PDF ? 1 : pf->pages, i);
    if (final == NULL)
        return err_nomem(err, _("a path"));
    if (pf->n_outputs < i + 1)
        pf->n_outputs = i + 1;
    int rc = output_open(pf, &pf->outputs[i], final, err);
    free(final);
    return rc;
}

/* Closes output o's file (a write error names it). */
static int output_close(plot_output *o, mx_error *err)
{
    FILE *f = o->out;
    o->out = NULL;
    if (f != NULL && fclose(f) != 0)
        return err_write(err, o->final_path, errno);
    return 0;
}

/* The descriptors fontconfig and pango need besides the run's own: its
 * configuration and cache files. */
#define DRAWING_FILES 3

/* Whether DRAWING_FILES more files can be open at once; else err says
 * so, naming the limit (ulimit -n), rather than a library's message. */
static int check_open_files(mx_error *err)
{
    int fds[DRAWING_FILES];
    size_t n = 0;
    while (n < DRAWING_FILES) {
        fds[n] = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fds[n] < 0)
            break;
        n++;
    }
    const int e = errno;
    for (size_t i = 0; i < n; i++)
        close(fds[i]);
    if (n == DRAWING_FILES)
        return 0;
    if (e != EMFILE && e != ENFILE)
        return 0; /* no /dev/null: the libraries say what they lack */
    struct rlimit files = {0, 0};
    getrlimit(RLIMIT_NOFILE, &files);
    return err_set(err, EXIT_OUTPUT_ERROR,
                   _("--plot: too many open files to draw the picture (the "
                     "fonts need %d more; ulimit -n is %llu)"),
                   DRAWING_FILES, (unsigned long long)files.rlim_cur);
}

/* cairo's write callback: to the FILE of a plot_output. */
static cairo_status_t write_to(void *closure, const unsigned char *data,
                               unsigned int length)
{
    plot_output *o = closure;
    if (fwrite(data, 1, length, o->out) != length) {
        if (o->write_errno == 0)
            o->write_errno = errno ? errno : EIO;
        return CAIRO_STATUS_WRITE_ERROR;
    }
    return CAIRO_STATUS_SUCCESS;
}

/* The largest SOURCE_DATE_EPOCH a PDF date can hold: 9999-12-31T23:59:59Z
 * (the year has four digits). */
#define LAST_SOURCE_DATE 253402300799LL

/* The PDF's creation date into date[32]: SOURCE_DATE_EPOCH when set, else
 * the epoch, so that the same command writes the same bytes. As the
 * reproducible-builds specification asks, a malformed value is an error
 * (a run that quietly wrote another date would not be reproducible): the
 * value must be the digits of a whole number of seconds from 0 to
 * LAST_SOURCE_DATE, as `date +%s` prints them. */
static int pdf_creation_date(char date[static 32], mx_error *err)
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    time_t when = 0;
    if (sde != NULL) {
        long long v = 0;
        bool ok = *sde != '\0';
        for (const char *c = sde; ok && *c != '\0'; c++) {
            ok = *c >= '0' && *c <= '9' && v <= LAST_SOURCE_DATE;
            v = v * 10 + (*c - '0');
        }
        if (!ok || v > LAST_SOURCE_DATE)
            return err_input(err,
                             _("SOURCE_DATE_EPOCH is '%.40s': it must be a "
                               "whole number of seconds from 0 to %lld "
                               "(the end of the year 9999)"),
                             sde, LAST_SOURCE_DATE);
        when = (time_t)v;
    }
    struct tm tm;
    if (gmtime_r(&when, &tm) == NULL ||
        strftime(date, 32, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        return err_input(err,
                         _("SOURCE_DATE_EPOCH is '%.40s': this system "
                           "cannot write it as a date"),
                         sde);
    return 0;
}

static plot_picture *picture_begin(outputs *tx, const char *path, size_t pages,
                                   size_t width, size_t height, mx_error *err)
{
    enum plot_format format = PLOT_PNG;
    char date[32] = "";
    if (format_of(&format, path, err) != 0 ||
        (format == PLOT_PDF && pdf_creation_date(date, err) != 0))
        return NULL;
    plot_picture *pf = calloc(1, sizeof *pf);
    if (pf == NULL) {
        err_nomem(err, _("the picture"));
        return NULL;
    }
    pf->format = format;
    pf->width = (double)width;
    pf->height = (double)height;
    pf->pages = pages > 0 ? pages : 1;
    pf->tx = tx;
    size_t n = format == PLOT_PDF ? 1 : pf->pages;
    pf->outputs = calloc(n, sizeof *pf->outputs);
    if (pf->outputs == NULL) {
        free(pf);
        err_nomem(err, _("the picture"));
        return NULL;
    }
    if (outputs_beside(tx, &pf->group, "--plot", NULL, err) != 0) {
        picture_free(pf);
        return NULL;
    }
    pf->path = strdup(path);
    if (pf->path == NULL) {
        picture_free(pf);
        err_nomem(err, _("a path"));
        return NULL;
    }
    /* a PNG or SVG page's file is made when the page is drawn and closed
     * after it, so a run holds one file open however many sentences it
     * draws */
    if (format == PLOT_PDF && page_open(pf, 0, err) != 0) {
        picture_free(pf);
        return NULL;
    }
    if (format == PLOT_PDF) {
        /* every page sets its own size before it is drawn */
        pf->pdf = cairo_pdf_surface_create_for_stream(write_to, &pf->outputs[0],
                                                      1, 1);
        cairo_pdf_surface_set_metadata(pf->pdf, CAIRO_PDF_METADATA_CREATE_DATE,
                                       date);
        cairo_pdf_surface_set_metadata(pf->pdf, CAIRO_PDF_METADATA_CREATOR,
                                       "mha-explain " MHA_VERSION);
    }
    return pf;
}

/* ---- pages ------------------------------------------------------------ */

static int surface_failed(cairo_surface_t *s, const plot_output *o,
                          mx_error *err)
{
    cairo_status_t st = cairo_surface_status(s);
    if (st == CAIRO_STATUS_SUCCESS)
        return 0;
    if (st == CAIRO_STATUS_WRITE_ERROR)
        return err_write(err, o->final_path,
                         o->write_errno ? o->write_errno : EIO);
    return err_set(err, EXIT_OUTPUT_ERROR, _("cannot draw %s: %s"),
                   o->final_path, cairo_status_to_string(st));
}

/* Draws the page onto target (w x h units, white), scaled by scale units
 * per point and centred. */
static void draw_on(cairo_surface_t *target, const figure *fig, double w,
                    double h, double scale, svg_texts *texts)
{
    cairo_t *cr = cairo_create(target);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    figure_draw(cr, fig, w, h, scale, texts);
    cairo_destroy(cr);
}

/* A growing copy of what cairo writes. */
typedef struct {
    char *bytes;
    size_t len, cap;
} byte_buffer;

static cairo_status_t write_to_buffer(void *closure, const unsigned char *data,
                                      unsigned int length)
{
    byte_buffer *b = closure;
    if (b->len + length > b->cap) {
        size_t cap = (b->len + length) * 2;
        char *p = realloc(b->bytes, cap);
        if (p == NULL)
            return CAIRO_STATUS_NO_MEMORY;
        b->bytes = p;
        b->cap = cap;
    }
    memcpy(b->bytes + b->len, data, length);
    b->len += length;
    return CAIRO_STATUS_SUCCESS;
}

/* An SVG page: cairo draws everything but the text into memory, then the
 * text goes in as <text> elements (svg_text.h) on the way to o. */
static int draw_svg(const figure *fig, double w, double h, double scale,
                    plot_output *o, mx_error *err)
{
    byte_buffer svg = {0};
    svg_texts *texts = svg_texts_new();
    if (texts == NULL)
        return err_nomem(err, _("the picture"));
    cairo_surface_t *s =
        cairo_svg_surface_create_for_stream(write_to_buffer, &svg, w, h);
    cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PT);
    draw_on(s, fig, w, h, scale, texts);
    cairo_surface_finish(s);
    cairo_status_t st = cairo_surface_status(s);
    cairo_surface_destroy(s);
    if (st == CAIRO_STATUS_SUCCESS)
        st = svg_text_write(svg.bytes, svg.len, texts, write_to, o);
    free(svg.bytes);
    svg_texts_free(texts);
    if (st == CAIRO_STATUS_SUCCESS)
        return 0;
    if (st == CAIRO_STATUS_WRITE_ERROR)
        return err_write(err, o->final_path,
                         o->write_errno ? o->write_errno : EIO);
    if (st == CAIRO_STATUS_NO_MEMORY)
        return err_nomem(err, _("the picture"));
    return err_set(err, EXIT_OUTPUT_ERROR, _("cannot draw %s: %s"),
                   o->final_path, cairo_status_to_string(st));
}

static int picture_page(plot_picture *pf, const trace *tr,
                        const table *const *tables, size_t n,
                        const char *heading, const plot_style *style,
                        mx_error *err)
{
    if (pf->drawn >= pf->pages)
        return err_set(err, EXIT_BAD_INPUT,
                       _("--plot: more sentences than expected"));
    if (check_open_files(err) != 0)
        return -1;
    figure *fig = figure_make(tr, tables, n, heading, style, err);
    if (fig == NULL)
        return -1;
    double w, h;
    double scale = figure_lay_out(fig, pf->format == PLOT_PNG, pf->width,
                                  pf->height, &w, &h);

    plot_output *o = &pf->outputs[pf->format == PLOT_PDF ? 0 : pf->drawn];
    cairo_surface_t *s = NULL;
    int rc = 0;
    if (pf->format != PLOT_PDF && page_open(pf, pf->drawn, err) != 0) {
        figure_free(fig);
        pf->drawn++;
        return -1;
    }
    switch (pf->format) {
    case PLOT_PNG:
        s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)w, (int)h);
        draw_on(s, fig, w, h, scale, NULL);
        cairo_surface_flush(s);
        if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS &&
            cairo_surface_write_to_png_stream(s, write_to, o) !=
                CAIRO_STATUS_SUCCESS)
            rc = err_write(err, o->final_path,
                           o->write_errno ? o->write_errno : EIO);
        break;
    case PLOT_SVG:
        rc = draw_svg(fig, w, h, scale, o, err);
        break;
    case PLOT_PDF:
        cairo_pdf_surface_set_size(pf->pdf, w, h);
        draw_on(pf->pdf, fig, w, h, scale, NULL);
        cairo_surface_show_page(pf->pdf);
        break;
    }
    if (rc == 0 && s != NULL)
        rc = surface_failed(s, o, err);
    if (rc == 0 && pf->format == PLOT_PDF)
        rc = surface_failed(pf->pdf, o, err);
    if (s != NULL)
        cairo_surface_destroy(s);
    figure_free(fig);
    pf->drawn++;
    if (pf->format != PLOT_PDF && rc == 0) {
        rc = output_close(o, err);
    } else if (pf->format != PLOT_PDF) {
        fclose(o->out); /* the page failed: err says why */
        o->out = NULL;
    }
    return rc;
}

/* Gives back pango's font map, which it keeps for the whole process.
 * (fontconfig's and cairo's caches cannot be released safely while
 * pango's font-loading thread may still hold them; see
 * tests/tools/valgrind.supp and tests/tools/lsan.supp.) */
static void release_fonts(void)
{
    pango_cairo_font_map_set_default(NULL);
}

static int picture_finish(plot_picture *pf, mx_error *err)
{
    int rc = 0;
    if (pf->pdf != NULL) {
        cairo_surface_finish(pf->pdf);
        rc = surface_failed(pf->pdf, &pf->outputs[0], err);
        cairo_surface_destroy(pf->pdf);
        pf->pdf = NULL;
    }
    for (size_t i = 0; i < pf->n_outputs && rc == 0; i++)
        rc = output_close(&pf->outputs[i], err);
    /* the font map given back before the files are put in place: the
     * libraries' last allocations, where a failure aborts (GLib's), come
     * while the run can still be cleaned up after, not once its files and
     * text are out */
    release_fonts();
    return rc;
}

static void picture_free(plot_picture *pf)
{
    if (pf == NULL)
        return;
    if (pf->pdf != NULL) {
        cairo_surface_finish(pf->pdf);
        cairo_surface_destroy(pf->pdf);
    }
    for (size_t i = 0; i < pf->n_outputs; i++) {
        if (pf->outputs[i].out != NULL)
            fclose(pf->outputs[i].out);
        free(pf->outputs[i].final_path);
    }
    free(pf->outputs);
    free(pf->path);
    free(pf);
    release_fonts();
}

const plot_functions mha_plot_functions = {
    .version = MHA_VERSION,
    .size = sizeof(plot_functions),
    .begin = picture_begin,
    .page = picture_page,
    .finish = picture_finish,
    .free = picture_free,
};
