/* test_plot.c: --plot's pictures, read back. A known 12 x 12 causal head
 * is drawn to a PNG; cairo reads the PNG again and the colour at every
 * cell's centre must be matplotlib's viridis colour of that cell's weight
 * (colormap.h; its weights run from 0 to 1, so the default scale, the
 * head's own range, is 0 to 1), and every masked cell neutral grey
 * (never a colour of the map). Tables chosen with --tables: scores of both
 * signs on the diverging map centred on 0 (colormap.h), their -inf cells
 * grey; values of one sign on viridis from the smallest to the largest.
 * --plot-size gives a PNG of exactly that many pixels; a 700-token head
 * is summarised into a picture of bounded size. Also that nothing is left
 * behind after an unwritable path.
 *
 * Usage: test_plot [REFERENCE_DIR]   (the argument is not used)
 *
 * A build without cairo and pango skips the whole test. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render/colormap.h"
#include "render/heat.h"
#include "plot/plot.h"
#include "model/trace.h"
#include "numerics/tensor.h"

__attribute__((noreturn)) static void bail(const char *what)
{
    printf("Bail out! %s\n", what);
    exit(1);
}

#if MHA_HAVE_PLOTS
#include <cairo.h>

#include "tap.h"

/* matplotlib's viridis at x (colormap.h). */
static rgb viridis(double x)
{
    colormap m;
    colormap_find(&m, "viridis");
    return colormap_color(&m, x);
}

#define TOKENS 12
/* plot.c's layout for 12 tokens: cells of floor(300 / 12) = 25 points,
 * too small for annotations, at 2 pixels per point in a PNG. */
#define CELL_PX 50

/* The tables of the fused module's head 0 the tests draw. */
static const table_key head0[] = {
    {VARIANT_ID_FUSED, 0, 0, TABLE_ATTN_SCORES, false},
    {VARIANT_ID_FUSED, 0, 0, TABLE_ATTN_WEIGHTS, false},
    {VARIANT_ID_FUSED, 0, 0, TABLE_VALUES, false},
};

/* A new table of tr under key, with m's values; 0 or -1. */
static int add_copy(trace *tr, const table_key *key, const labels *rows,
                    const labels *cols, const matrix *m, mx_error *err)
{
    table *t = trace_new(tr, key, rows, cols, err);
    if (t == NULL)
        return -1;
    memcpy(t->values.v, m->v, m->rows * m->cols * sizeof *m->v);
    return 0;
}

/* Row r attends to keys 0..r with weights (c + 1) / (1 + ... + (r + 1)),
 * except one unmasked weight of exactly 0 (row 11, key 0), which must get
 * the map's darkest colour, not the masked grey. */
static float weight(size_t r, size_t c)
{
    if (c > r || (r == 11 && c == 0))
        return 0.0f;
    return (float)(c + 1) / (float)((r + 1) * (r + 2) / 2);
}

static void make_trace(trace *tr)
{
    static const char *const w[TOKENS] = {"a", "b", "c", "d", "e", "f",
                                          "g", "h", "i", "j", "k", "l"};
    mx_error err;
    const labels *q = trace_word_labels(tr, "Q:", w, TOKENS, &err);
    const labels *k = trace_word_labels(tr, "K:", w, TOKENS, &err);
    matrix weights, scores;
    if (q == NULL || k == NULL ||
        matrix_alloc(&weights, TOKENS, TOKENS, "weights", &err) != 0 ||
        matrix_alloc(&scores, TOKENS, TOKENS, "scores", &err) != 0)
        bail("cannot build the trace");
    for (size_t r = 0; r < TOKENS; r++)
        for (size_t c = 0; c < TOKENS; c++) {
            *matrix_at(&weights, r, c) = weight(r, c);
            *matrix_at(&scores, r, c) = c > r ? -INFINITY : 0.5f;
        }
    if (add_copy(tr, &head0[0], q, k, &scores, &err) != 0 ||
        add_copy(tr, &head0[1], q, k, &weights, &err) != 0)
        bail(err.msg);
    matrix_free(&weights);
    matrix_free(&scores);
}

/* Scores of both signs, -inf above the diagonal: the smallest (-1.1, at
 * row 0) is the scale's blue end, the largest (+0.8) sets m = 1.1. */
static float score(size_t r, size_t c)
{
    if (c > r)
        return -INFINITY;
    return r == 0 ? -1.1f
                  : (float)((double)((r * 7 + c * 3) % 20) / 10.0 - 1.0);
}

/* Values of one sign, 12 x 3: 0.5 (row 0, column 0) to 4.0. */
static float value(size_t r, size_t c)
{
    return 0.5f + (float)(r * 3 + c) * 3.5f / 35.0f;
}

/* A trace with scores (12 x 12) and values (12 x 3) of head 0. */
static void make_tables(trace *tr, const table **scores, const table **values)
{
    static const char *const w[TOKENS] = {"a", "b", "c", "d", "e", "f",
                                          "g", "h", "i", "j", "k", "l"};
    mx_error err;
    const labels *q = trace_word_labels(tr, "Q:", w, TOKENS, &err);
    const labels *k = trace_word_labels(tr, "K:", w, TOKENS, &err);
    const labels *d = trace_index_labels(tr, "dim", 3, &err);
    matrix s, v;
    if (q == NULL || k == NULL || d == NULL ||
        matrix_alloc(&s, TOKENS, TOKENS, "scores", &err) != 0 ||
        matrix_alloc(&v, TOKENS, 3, "values", &err) != 0)
        bail("cannot build the trace");
    for (size_t r = 0; r < TOKENS; r++) {
        for (size_t c = 0; c < TOKENS; c++)
            *matrix_at(&s, r, c) = score(r, c);
        for (size_t c = 0; c < 3; c++)
            *matrix_at(&v, r, c) = value(r, c);
    }
    if (add_copy(tr, &head0[0], q, k, &s, &err) != 0 ||
        add_copy(tr, &head0[2], q, d, &v, &err) != 0)
        bail(err.msg);
    matrix_free(&s);
    matrix_free(&v);
    *scores = trace_find(tr, &head0[0]);
    *values = trace_find(tr, &head0[2]);
}

/* Draws the tables (NULL: the default figure) of tr to path at
 * width x height (0 x 0: its own size). */
static int draw_styled(const char *path, const trace *tr,
                       const table *const *tables, size_t n, size_t width,
                       size_t height, const plot_style *style, mx_error *err)
{
    plot_file *pf = plot_open(path, 1, width, height, err);
    if (pf == NULL)
        return -1;
    if (plot_page(pf, tr, tables, n, NULL, style, err) != 0) {
        plot_discard(pf);
        return -1;
    }
    return plot_close(pf, err);
}

static int draw(const char *path, const trace *tr, const table *const *tables,
                size_t n, size_t width, size_t height, mx_error *err)
{
    plot_style style = plot_style_default();
    return draw_styled(path, tr, tables, n, width, height, &style, err);
}

static void pixel(const unsigned char *data, int stride, int x, int y,
                  int px[3])
{
    uint32_t p;
    memcpy(&p, data + (size_t)y * stride + (size_t)x * 4, 4);
    px[0] = (int)((p >> 16) & 0xff);
    px[1] = (int)((p >> 8) & 0xff);
    px[2] = (int)(p & 0xff);
}

static bool close_to(const int px[3], rgb want, int tol)
{
    return abs(px[0] - want.r) <= tol && abs(px[1] - want.g) <= tol &&
           abs(px[2] - want.b) <= tol;
}

static void test_png_cells(const char *path)
{
    trace tr;
    trace_init(&tr);
    make_trace(&tr);
    mx_error err = {0};
    int rc = draw(path, &tr, NULL, 0, 0, 0, &err);
    ok(rc == 0, "a 12-token head is drawn to %s", path);
    if (rc != 0)
        diag("%s", err.msg);
    trace_free(&tr);

    cairo_surface_t *img = cairo_image_surface_create_from_png(path);
    if (!ok(cairo_surface_status(img) == CAIRO_STATUS_SUCCESS,
            "cairo reads the PNG back")) {
        cairo_surface_destroy(img);
        return;
    }
    cairo_surface_flush(img);
    const unsigned char *data = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img);
    int w = cairo_image_surface_get_width(img);
    int h = cairo_image_surface_get_height(img);

    /* The heat map's top-left cell (weight 1) is the first yellow pixel
     * in reading order: the colour bar's yellow end lies further right. */
    rgb yellow = viridis(1.0);
    int x0 = -1, y0 = -1;
    for (int y = 0; y < h && x0 < 0; y++)
        for (int x = 0; x < w; x++) {
            int px[3];
            pixel(data, stride, x, y, px);
            if (close_to(px, yellow, 1)) {
                x0 = x;
                y0 = y;
                break;
            }
        }
    ok(x0 >= 0, "the first cell is found (at %d,%d)", x0, y0);
    if (x0 < 0 || x0 + TOKENS * CELL_PX > w || y0 + TOKENS * CELL_PX > h) {
        ok(0, "the heat map fits in the picture (%dx%d)", w, h);
        cairo_surface_destroy(img);
        return;
    }
    int coloured = 0, grey = 0;
    for (size_t r = 0; r < TOKENS; r++)
        for (size_t c = 0; c < TOKENS; c++) {
            int px[3];
            pixel(data, stride, x0 + (int)c * CELL_PX + CELL_PX / 2,
                  y0 + (int)r * CELL_PX + CELL_PX / 2, px);
            if (c > r) {
                /* masked: grey fill or its grey hatching */
                bool neutral = px[0] == px[1] && px[1] == px[2] &&
                               px[0] >= 140 && px[0] <= 230;
                if (neutral)
                    grey++;
                else
                    diag("masked cell %zu,%zu is %d,%d,%d", r, c, px[0], px[1],
                         px[2]);
                continue;
            }
            rgb want = viridis((double)weight(r, c));
            if (close_to(px, want, 2))
                coloured++;
            else
                diag("cell %zu,%zu (weight %g) is %d,%d,%d, not %d,%d,"
                     "%d",
                     r, c, (double)weight(r, c), px[0], px[1], px[2], want.r,
                     want.g, want.b);
        }
    ok(coloured == TOKENS * (TOKENS + 1) / 2,
       "every unmasked cell has its weight's viridis colour (%d of %d)",
       coloured, TOKENS * (TOKENS + 1) / 2);
    ok(grey == TOKENS * (TOKENS - 1) / 2,
       "every masked cell is neutral grey (%d of %d)", grey,
       TOKENS * (TOKENS - 1) / 2);
    cairo_surface_destroy(img);
}

/* The first pixel of colour want in reading order, or false. */
static bool find_first(const unsigned char *data, int stride, int w, int h,
                       rgb want, int *x0, int *y0)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int px[3];
            pixel(data, stride, x, y, px);
            if (close_to(px, want, 1)) {
                *x0 = x;
                *y0 = y;
                return true;
            }
        }
    return false;
}

/* The colour at each cell's centre (rows x cols cells from the first
 * pixel of the first cell's colour) against want(r, c); masked cells
 * (want returns false) must be neutral grey. Returns the cells that
 * match. */
typedef bool (*colour_of)(size_t r, size_t c, rgb *want);

static int check_cells(const char *path, size_t rows, size_t cols,
                       colour_of want, int *masked)
{
    cairo_surface_t *img = cairo_image_surface_create_from_png(path);
    int good = 0;
    *masked = 0;
    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(img);
        return 0;
    }
    cairo_surface_flush(img);
    const unsigned char *data = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img);
    int w = cairo_image_surface_get_width(img);
    int h = cairo_image_surface_get_height(img);
    rgb first;
    int x0 = -1, y0 = -1;
    want(0, 0, &first);
    if (!find_first(data, stride, w, h, first, &x0, &y0) ||
        x0 + (int)cols * CELL_PX > w || y0 + (int)rows * CELL_PX > h) {
        diag("%s: the first cell is not found, or the map does not fit", path);
        cairo_surface_destroy(img);
        return 0;
    }
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) {
            int px[3];
            rgb expect;
            pixel(data, stride, x0 + (int)c * CELL_PX + CELL_PX / 2,
                  y0 + (int)r * CELL_PX + CELL_PX / 2, px);
            if (!want(r, c, &expect)) {
                if (px[0] == px[1] && px[1] == px[2] && px[0] >= 140 &&
                    px[0] <= 230)
                    (*masked)++;
                else
                    diag("masked cell %zu,%zu is %d,%d,%d", r, c, px[0], px[1],
                         px[2]);
            } else if (close_to(px, expect, 2))
                good++;
            else
                diag("cell %zu,%zu is %d,%d,%d, not %d,%d,%d", r, c, px[0],
                     px[1], px[2], expect.r, expect.g, expect.b);
        }
    cairo_surface_destroy(img);
    return good;
}

/* The pictures' map for values of both signs, x from 0 (blue) to 1. */
static rgb diverging_color(double x)
{
    colormap m;
    colormap_find(&m, "RdBu_r");
    return colormap_color(&m, x);
}

static bool score_colour(size_t r, size_t c, rgb *want)
{
    float s = score(r, c);
    if (isinf(s))
        return false;
    *want = diverging_color(((double)s + 1.1) / 2.2);
    return true;
}

static bool value_colour(size_t r, size_t c, rgb *want)
{
    *want = viridis(((double)value(r, c) - 0.5) / 3.5);
    return true;
}

static void test_chosen_tables(const char *dir)
{
    trace tr;
    trace_init(&tr);
    const table *scores = NULL, *values = NULL;
    make_tables(&tr, &scores, &values);
    char path[96];
    mx_error err = {0};

    snprintf(path, sizeof path, "%s/scores.png", dir);
    const table *s[1] = {scores};
    ok(draw(path, &tr, s, 1, 0, 0, &err) == 0, "scores are drawn: %s", err.msg);
    int masked = 0;
    int good = check_cells(path, TOKENS, TOKENS, score_colour, &masked);
    ok(good == TOKENS * (TOKENS + 1) / 2,
       "scores of both signs take the diverging map's colour, centred on 0 "
       "(%d of %d)",
       good, TOKENS * (TOKENS + 1) / 2);
    ok(masked == TOKENS * (TOKENS - 1) / 2,
       "-inf scores are neutral grey (%d of %d)", masked,
       TOKENS * (TOKENS - 1) / 2);
    unlink(path);

    snprintf(path, sizeof path, "%s/values.png", dir);
    const table *v[1] = {values};
    ok(draw(path, &tr, v, 1, 0, 0, &err) == 0, "values are drawn: %s", err.msg);
    good = check_cells(path, TOKENS, 3, value_colour, &masked);
    ok(good == TOKENS * 3 && masked == 0,
       "values of one sign take viridis from the smallest to the largest "
       "(%d of %d)",
       good, TOKENS * 3);
    unlink(path);

    table id_table = *values; /* the same values, marked as ids like vocab */
    id_table.integral = true;
    const table *ids[1] = {&id_table};
    snprintf(path, sizeof path, "%s/ids.png", dir);
    ok(draw(path, &tr, ids, 1, 0, 0, &err) != 0 && err.status == 2 &&
           access(path, F_OK) != 0,
       "a table of ids alone is not drawn: %s", err.msg);
    trace_free(&tr);
}

/* A PNG's size in pixels, or 0 x 0. */
static void png_size(const char *path, int *w, int *h)
{
    cairo_surface_t *img = cairo_image_surface_create_from_png(path);
    bool good = cairo_surface_status(img) == CAIRO_STATUS_SUCCESS;
    *w = good ? cairo_image_surface_get_width(img) : 0;
    *h = good ? cairo_image_surface_get_height(img) : 0;
    cairo_surface_destroy(img);
}

static void test_sizes(const char *dir)
{
    trace tr;
    trace_init(&tr);
    make_trace(&tr);
    char path[96];
    mx_error err = {0};
    snprintf(path, sizeof path, "%s/sized.png", dir);
    int w = 0, h = 0;
    for (size_t i = 0; i < 2; i++) {
        const size_t sizes[2][2] = {{1920, 1080}, {300, 700}};
        int rc = draw(path, &tr, NULL, 0, sizes[i][0], sizes[i][1], &err);
        png_size(path, &w, &h);
        ok(rc == 0 && w == (int)sizes[i][0] && h == (int)sizes[i][1],
           "--plot-size %zux%zu gives a PNG of %dx%d pixels", sizes[i][0],
           sizes[i][1], w, h);
    }
    unlink(path);
    trace_free(&tr);

    /* 700 tokens: cells of half a point would be sub-pixel at scale 1 */
    enum { N = 700 };
    trace_init(&tr);
    static char words[N][8];
    const char *word[N];
    for (size_t i = 0; i < N; i++) {
        snprintf(words[i], sizeof words[i], "w%zu", i);
        word[i] = words[i];
    }
    const labels *q = trace_word_labels(&tr, "Q:", word, N, &err);
    const labels *k = trace_word_labels(&tr, "K:", word, N, &err);
    matrix m;
    if (q == NULL || k == NULL || matrix_alloc(&m, N, N, "w", &err) != 0)
        bail("cannot build the trace");
    for (size_t r = 0; r < N; r++)
        for (size_t c = 0; c < N; c++)
            *matrix_at(&m, r, c) = c <= r ? 1.0f / (float)(r + 1) : 0.0f;
    if (add_copy(&tr, &head0[1], q, k, &m, &err) != 0)
        bail(err.msg);
    matrix_free(&m);
    snprintf(path, sizeof path, "%s/large.png", dir);
    int rc = draw(path, &tr, NULL, 0, 0, 0, &err);
    png_size(path, &w, &h);
    /* a 600-point map at 2 pixels a point, with its labels and bar */
    ok(rc == 0 && w > 1200 && w < 2400 && h > 1200 && h < 2000,
       "a 700-token head is summarised into %dx%d pixels", w, h);
    rc = draw(path, &tr, NULL, 0, 200, 200, &err);
    png_size(path, &w, &h);
    ok(rc == 0 && w == 200 && h == 200,
       "and fits into --plot-size 200x200 (blocks of more values)");
    unlink(path);
    trace_free(&tr);
}

/* colormap.h against matplotlib 3.6's own colours (cmap(x), rounded to
 * 8 bits), and its rule: entry floor(256 x), 255 at 1. */
static void test_colormaps(void)
{
    static const struct {
        const char *name;
        double x;
        rgb want;
    } known[] = {
        {"viridis", 0.5, {33, 145, 140}},   {"magma", 0.25, {81, 18, 124}},
        {"Blues", 0.3, {183, 212, 234}},    {"RdBu_r", 0.1, {32, 101, 171}},
        {"coolwarm", 0.5, {221, 220, 220}}, {"YlOrRd_r", 0.75, {254, 217, 119}},
        {"cividis", 1.0, {254, 232, 56}},
    };
    int right = 0;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        colormap m;
        rgb got = {0, 0, 0};
        if (colormap_find(&m, known[i].name))
            got = colormap_color(&m, known[i].x);
        if (close_to((int[3]){got.r, got.g, got.b}, known[i].want, 0))
            right++;
        else
            diag("%s(%g) is %d,%d,%d", known[i].name, known[i].x, got.r, got.g,
                 got.b);
    }
    ok(right == (int)(sizeof known / sizeof known[0]),
       "--cmap: matplotlib's colours for %d maps and places", right);
    colormap m, none;
    colormap_find(&m, "viridis");
    double top[3], mid[3];
    colormap_entry(&m, 255, top);
    colormap_entry(&m, 128, mid);
    rgb at1 = colormap_color(&m, 1.0), at5 = colormap_color(&m, 0.5);
    ok(at1.r == (int)lround(top[0] * 255) &&
           at5.g == (int)lround(mid[1] * 255) &&
           !colormap_find(&none, "Viridis") && !colormap_find(&none, "jet"),
       "x takes entry floor(256 x), 255 at 1; names are matplotlib's, case "
       "included");
}

/* --color-scale row with --cmap Blues and no numbers: each unmasked cell
 * of the 12-token head is Blues at its place in its own row's range (a
 * row of one value at the top, as on the terminal). */
static void test_row_blues(const char *dir)
{
    char path[96];
    snprintf(path, sizeof path, "%s/row.png", dir);
    trace tr;
    trace_init(&tr);
    make_trace(&tr);
    plot_style style = plot_style_default();
    style.scale = SCALE_ROW;
    style.cmap = "Blues";
    style.numbers = false;
    style.bars = BARS_NONE;
    mx_error err = {0};
    int rc = draw_styled(path, &tr, NULL, 0, 0, 0, &style, &err);
    trace_free(&tr);
    ok(rc == 0, "--color-scale row --cmap Blues: drawn (%s)", err.msg);
    cairo_surface_t *img = cairo_image_surface_create_from_png(path);
    unlink(path);
    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
        ok(0, "cairo reads it back");
        cairo_surface_destroy(img);
        return;
    }
    cairo_surface_flush(img);
    const unsigned char *data = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img);
    int w = cairo_image_surface_get_width(img);
    int h = cairo_image_surface_get_height(img);
    colormap blues;
    colormap_find(&blues, "Blues");
    rgb darkest = colormap_color(&blues, 1.0);
    int x0 = -1, y0 = -1;
    for (int y = 0; y < h && x0 < 0; y++)
        for (int x = 0; x < w; x++) {
            int px[3];
            pixel(data, stride, x, y, px);
            if (close_to(px, darkest, 1)) {
                x0 = x;
                y0 = y;
                break;
            }
        }
    int right = 0;
    for (size_t r = 0; r < TOKENS && x0 >= 0; r++) {
        double lo = 1, hi = 0;
        for (size_t c = 0; c <= r; c++) {
            lo = fmin(lo, weight(r, c));
            hi = fmax(hi, weight(r, c));
        }
        for (size_t c = 0; c <= r; c++) {
            int px[3];
            int x = x0 + (int)c * CELL_PX + CELL_PX / 2,
                y = y0 + (int)r * CELL_PX + CELL_PX / 2;
            if (x >= w || y >= h)
                continue;
            pixel(data, stride, x, y, px);
            double at = hi > lo ? (weight(r, c) - lo) / (hi - lo) : 1.0;
            rgb want = colormap_color(&blues, at);
            if (close_to(px, want, 2))
                right++;
            else
                diag("row cell %zu,%zu is %d,%d,%d, not %d,%d,%d", r, c, px[0],
                     px[1], px[2], want.r, want.g, want.b);
        }
    }
    ok(right == TOKENS * (TOKENS + 1) / 2,
       "--color-scale row --cmap Blues: every cell at its place in its "
       "row (%d of %d)",
       right, TOKENS * (TOKENS + 1) / 2);
    cairo_surface_destroy(img);
}

/* Head 1 of the two-head trace: half of head 0's weights. */
static bool half_weight(size_t r, size_t c, rgb *want)
{
    *want = viridis((double)weight(r, c) / 2.0);
    return c <= r;
}

/* Two heads side by side, head 1's weights half of head 0's (0 to 0.5):
 * by default both are on one range, 0 to 1, so head 1's largest weight,
 * 0.5, is viridis' middle and not its top, as it would be on a range of
 * its own (--colorbar panel). */
static void test_shared_heads(const char *dir)
{
    char path[96];
    snprintf(path, sizeof path, "%s/heads.png", dir);
    trace tr;
    trace_init(&tr);
    make_trace(&tr);
    const table *w0 = trace_find(&tr, &head0[1]);
    const table *s0 = trace_find(&tr, &head0[0]);
    table_key k1[2] = {head0[0], head0[1]};
    k1[0].head = k1[1].head = 1;
    mx_error err = {0};
    table *s1 = trace_new(&tr, &k1[0], s0->rows, s0->cols, &err);
    table *w1 = trace_new(&tr, &k1[1], w0->rows, w0->cols, &err);
    if (s1 == NULL || w1 == NULL)
        bail(err.msg);
    for (size_t i = 0; i < TOKENS * TOKENS; i++) {
        s1->values.v[i] = s0->values.v[i];
        w1->values.v[i] = w0->values.v[i] / 2.0f;
    }
    int rc = draw(path, &tr, NULL, 0, 0, 0, &err);
    trace_free(&tr);
    ok(rc == 0, "two heads are drawn (%s)", err.msg);
    /* reading order finds head 1's first cell (0.5) before head 0's 0.5
     * in its third row */
    int masked = 0;
    int good = check_cells(path, TOKENS, TOKENS, half_weight, &masked);
    unlink(path);
    ok(good == TOKENS * (TOKENS + 1) / 2 && masked == TOKENS * (TOKENS - 1) / 2,
       "two heads share one colour range by default: head 1's weights "
       "(0 to 0.5) at their place on 0 to 1 (%d of %d cells)",
       good, TOKENS * (TOKENS + 1) / 2);
}

static void test_unwritable(void)
{
    trace tr;
    trace_init(&tr);
    make_trace(&tr);
    mx_error err = {0};
    /* a PNG's file is made when its page is drawn */
    plot_file *pf = plot_open("/nonexistent-dir/x.png", 1, 0, 0, &err);
    const plot_style style = plot_style_default();
    const int rc =
        pf == NULL ? -1 : plot_page(pf, &tr, NULL, 0, NULL, &style, &err);
    ok(rc != 0 && err.status == 1 && strstr(err.msg, "x.png") != NULL,
       "an unwritable path is status 1 naming the file: %s", err.msg);
    if (pf != NULL)
        plot_discard(pf);
    trace_free(&tr);
}

int main(void)
{
    char dir[] = "/tmp/mha-plot-test.XXXXXX";
    if (mkdtemp(dir) == NULL)
        bail("cannot make a temporary directory");
    char path[96];
    snprintf(path, sizeof path, "%s/head.png", dir);
    test_png_cells(path);
    test_chosen_tables(dir);
    test_sizes(dir);
    test_colormaps();
    test_row_blues(dir);
    test_shared_heads(dir);
    test_unwritable();
    unlink(path);
    ok(rmdir(dir) == 0, "no temporary file is left beside the picture");
    return tap_done();
}

#else

int main(void)
{
    if (plot_available())
        bail("plot_available() is true in a build without cairo");
    /* TAP's skip: meson's TAP protocol reads exit status 77 as an error */
    puts("1..0 # SKIP this build has no plotting (cairo and pango)");
    return 0;
}

#endif
