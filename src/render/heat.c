/* heat.c: viridis colours as terminal escape sequences. */
#include "render/heat.h"

#include <math.h>
#include <string.h>

#include "base/i18n.h"
#include "render/colormap.h"
#include "render/textwidth.h"

#define RAMP_CELLS 16      /* colours shown in a legend */
#define SHORT_RAMP_CELLS 8 /* ... and under a table of a grid */

rgb heat_color(double x)
{
    colormap m;
    colormap_find(&m, "viridis");
    return colormap_color(&m, x); /* NaN as 0 */
}

/* The 256-colour palette's 6x6x6 cube: its levels, and the colour of
 * entry 16 + 36 r + 6 g + b. */
static const int cube[6] = {0, 95, 135, 175, 215, 255};

static rgb cube_color(int index)
{
    const int n = index - 16;
    rgb c = {(unsigned char)cube[n / 36], (unsigned char)cube[n / 6 % 6],
             (unsigned char)cube[n % 6]};
    return c;
}

/* Viridis in the cube's steps, dark purple to yellow, each lighter than
 * the one before: the nearest cube colour of each viridis sample turns
 * its blues grey, so these were picked by hue along the way. */
static const int ramp256[] = {53, 54, 24, 25,  31,  30,  36,
                              35, 71, 77, 113, 149, 184, 220};
#define RAMP256 (sizeof ramp256 / sizeof ramp256[0])

static int ramp_index(double x)
{
    if (!(x > 0.0))
        x = 0.0;
    if (x > 1.0)
        x = 1.0;
    return ramp256[(size_t)lround(x * (RAMP256 - 1))];
}

static void set_background(FILE *out, double x, bool truecolor)
{
    if (truecolor) {
        rgb c = heat_color(x);
        fprintf(out, "\x1b[48;2;%d;%d;%dm", c.r, c.g, c.b);
    } else {
        fprintf(out, "\x1b[48;5;%dm", ramp_index(x));
    }
}

/* WCAG relative luminance of c, 0 (black) to 1 (white). */
static double luminance(rgb c)
{
    const double v[3] = {c.r / 255.0, c.g / 255.0, c.b / 255.0};
    double lin[3];
    for (int i = 0; i < 3; i++)
        lin[i] =
            v[i] <= 0.04045 ? v[i] / 12.92 : pow((v[i] + 0.055) / 1.055, 2.4);
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
}

void heat_start(FILE *out, double x, bool truecolor)
{
    rgb c = truecolor ? heat_color(x) : cube_color(ramp_index(x));
    /* contrast ratios (L1 + 0.05) / (L2 + 0.05) against white and black
     * are equal where L = 0.179 */
    bool dark_text = luminance(c) > 0.179;
    fputs(dark_text ? "\x1b[38;5;16m" : "\x1b[38;5;231m", out);
    set_background(out, x, truecolor);
}

void heat_masked(FILE *out, bool truecolor)
{
    fputs(truecolor ? "\x1b[38;2;128;128;128m" : "\x1b[38;5;244m", out);
}

void heat_end(FILE *out)
{
    fputs("\x1b[0m", out);
}

/* `cells` blank cells from the bottom of the scale to its top. */
static void ramp(FILE *out, int cells, bool truecolor)
{
    for (int i = 0; i < cells; i++) {
        set_background(out, i / (cells - 1.0), truecolor);
        fputc(' ', out);
    }
    heat_end(out);
}

void heat_ramp(FILE *out, const char *lo, const char *hi, bool truecolor)
{
    fprintf(out, "%s ", lo);
    ramp(out, SHORT_RAMP_CELLS, truecolor);
    fprintf(out, " %s", hi);
}

/* Markers in the legend's text (heat_legend): where the ramp goes, and
 * where the sample of a masked cell starts and ends. */
#define MARK_RAMP '\x01'
#define MARK_MASKED '\x02'
#define MARK_END '\x03'
#define MARK_SPACE '\x04' /* a space the line is not broken at */
#define MARK_BREAK '\x05' /* a place it may be broken at, with no space */

/* Cells the word w[0..len) takes, its ramp (ramp cells) included. */
static size_t word_cells(const char *w, size_t len, int ramp_cells)
{
    char plain[256];
    size_t n = 0, cells = 0;
    for (size_t i = 0; i < len && n + 1 < sizeof plain; i++) {
        if (w[i] == MARK_RAMP)
            cells += (size_t)ramp_cells;
        else if (w[i] != MARK_MASKED && w[i] != MARK_END)
            plain[n++] = w[i] == MARK_SPACE ? ' ' : w[i];
    }
    plain[n] = '\0';
    return cells + display_width(plain);
}

/* Writes the word w[0..len), its markers as colours. */
static void put_word(FILE *out, const char *w, size_t len, int ramp_cells,
                     bool truecolor)
{
    for (size_t i = 0; i < len; i++) {
        if (w[i] == MARK_RAMP)
            ramp(out, ramp_cells, truecolor);
        else if (w[i] == MARK_MASKED)
            heat_masked(out, truecolor);
        else if (w[i] == MARK_END)
            heat_end(out);
        else if (w[i] == MARK_SPACE)
            fputc(' ', out);
        else
            fputc(w[i], out);
    }
}

/* Writes text (words between single spaces or MARK_BREAK, with markers)
 * broken at those into lines of at most width cells (0: no limit), the
 * lines after the first indented by two spaces; a word wider than a line
 * stands alone on its line. */
static void put_wrapped(FILE *out, const char *text, size_t width,
                        int ramp_cells, bool truecolor)
{
    static const char breaks[] = {' ', MARK_BREAK, '\0'};
    size_t used = 0;
    bool first_word = true, spaced = false; /* after a space */
    for (const char *w = text; *w != '\0';) {
        const size_t len = strcspn(w, breaks);
        const size_t cells = word_cells(w, len, ramp_cells);
        const size_t gap = spaced ? 1 : 0;
        if (!first_word && width > 0 && used + gap + cells > width) {
            fputs("\n  ", out);
            used = 2;
        } else if (!first_word && spaced) {
            fputc(' ', out);
            used++;
        }
        put_word(out, w, len, ramp_cells, truecolor);
        used += cells;
        first_word = false;
        w += len;
        const size_t between = strspn(w, breaks);
        spaced = memchr(w, ' ', between) != NULL;
        w += between;
    }
    fputc('\n', out);
}

void heat_legend(FILE *out, const char *lo, const char *hi, const char *of,
                 const char *masked, size_t width, bool truecolor)
{
    char text[512];
    /* TRANSLATORS: the --color legend: "scale: 0.0012 [colours] 0.9981, the
     * table's range; masked: grey" */
    int n = snprintf(text, sizeof text, _("scale: %s "), lo);
    size_t used = n > 0 ? (size_t)n : 0;
    /* TRANSLATORS: between the parts of a line: the --color legend's top
     * value and what its scale spans ("0.9981, the table's range"), the
     * --html page's summary */
    const char *comma = _(", ");
    /* without a space after it (Chinese's "，") the line may still break
     * there */
    static const char may_break[] = {MARK_BREAK, '\0'};
    const bool comma_spaced =
        comma[0] != '\0' && comma[strlen(comma) - 1] == ' ';
    if (used < sizeof text)
        used += (size_t)snprintf(text + used, sizeof text - used, "%c %s%s%s%s",
                                 MARK_RAMP, hi, comma,
                                 comma_spaced ? "" : may_break, of);
    if (masked != NULL && used < sizeof text) {
        /* "masked:" stays on the line of its sample: its trailing space
         * (if the language has one) is not a place to break */
        char label[128];
        snprintf(label, sizeof label, "%s", _("; masked: "));
        size_t end = strlen(label);
        const bool spaced = end > 0 && label[end - 1] == ' ';
        while (end > 0 && label[end - 1] == ' ')
            label[--end] = '\0';
        if (spaced)
            label[end++] = MARK_SPACE;
        label[end] = '\0';
        snprintf(text + used, sizeof text - used, "%s%c%s%c", label,
                 MARK_MASKED, masked, MARK_END);
    }
    /* a shorter ramp before the line is broken */
    int ramp_cells = RAMP_CELLS;
    if (width > 0 && word_cells(text, strlen(text), RAMP_CELLS) > width)
        ramp_cells = SHORT_RAMP_CELLS;
    put_wrapped(out, text, width, ramp_cells, truecolor);
}
