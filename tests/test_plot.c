/* test_plot.c: --plot's pictures, read back. A known 12 x 12 causal head
 * is drawn to a PNG; cairo reads the PNG again and the colour at every
 * cell's centre must be the viridis colour of that cell's weight (the
 * terminal's colour map, heat.h), and every masked cell neutral grey
 * (never a colour of the map). Also that nothing is left behind after an
 * unwritable path.
 *
 * Usage: test_plot [REFERENCE_DIR]   (the argument is not used)
 *
 * A build without cairo and pango skips the whole test. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heat.h"
#include "plot.h"
#include "trace.h"
#include "tensor.h"

__attribute__((noreturn)) static void bail(const char *what)
{
    printf("Bail out! %s\n", what);
    exit(1);
}

#if MHA_HAVE_PLOTS
#include <cairo.h>

#include "tap.h"

#define TOKENS 12
/* plot.c's layout for 12 tokens: cells of floor(300 / 12) = 25 points,
 * too small for annotations, at 2 pixels per point in a PNG. */
#define CELL_PX 50

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
    if (trace_add(tr, "fused", 0, "attn_scores", q, k, &scores, &err) != 0 ||
        trace_add(tr, "fused", 0, "attn_weights", q, k, &weights, &err) != 0)
        bail(err.msg);
    matrix_free(&weights);
    matrix_free(&scores);
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
    plot_file *pf = plot_open(path, 1, &err);
    int rc = pf != NULL ? plot_page(pf, &tr, NULL, &err) : -1;
    if (pf != NULL)
        rc = rc == 0 ? plot_close(pf, &err) : (plot_discard(pf), rc);
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
    rgb yellow = heat_color(1.0);
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
            rgb want = heat_color((double)weight(r, c));
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

static void test_unwritable(void)
{
    trace tr;
    trace_init(&tr);
    make_trace(&tr);
    mx_error err = {0};
    plot_file *pf = plot_open("/nonexistent-dir/x.png", 1, &err);
    ok(pf == NULL && err.status == 1 && strstr(err.msg, "x.png") != NULL,
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
    char path[64];
    snprintf(path, sizeof path, "%s/head.png", dir);
    test_png_cells(path);
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
