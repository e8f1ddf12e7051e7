/* figure_vertical.c: a Chinese caption set vertically beside a colour
 * bar or a map, as vertical Chinese is typeset (figure_parts.h):
 *
 *   - each Chinese character upright, one under another, its punctuation
 *     in its vertical form (（ as ︵, ， as ︐, ： as ︓);
 *   - a run of Latin letters (an option's name, "--metric loss") turned
 *     a quarter clockwise, reading downwards; one or two digits or
 *     letters alone ("0", "1") upright;
 *   - the columns from right to left, each at most the height given, a
 *     line wide; no column starts with closing punctuation or ends with
 *     opening punctuation (a bracket stays with its text).
 *
 *      ︵  平
 *      -   均
 *      -   损
 *      m   失
 *      …   的
 *      ︶  变
 *          化
 */
#include "plot/figure_parts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#define MAX_UNITS 96 /* a caption's units; more are left out */

/* One unit of a vertical caption: a character upright, or a run of
 * Latin letters turned. */
typedef struct {
    char text[64]; /* UTF-8, the vertical form of punctuation */
    bool turned;   /* drawn a quarter clockwise */
    bool closing;  /* closing punctuation: never a column's first */
    bool opening;  /* opening punctuation: never a column's last */
    double len;    /* its length down the column */
    double gap;    /* a space before it, when not a column's first */
} unit;

/* The character after c's. */
static const char *after(const char *c)
{
    return c + g_utf8_skip[(unsigned char)*c];
}

/* The vertical form of a Chinese punctuation mark (Unicode's vertical
 * forms, U+FE10 to U+FE48), or 0 when it has none. */
static gunichar vertical_form(gunichar u, bool *closing)
{
    static const struct {
        gunichar from, to;
        bool closing;
    } forms[] = {
        {0xFF0C, 0xFE10, true},  {0x3001, 0xFE11, true},
        {0x3002, 0xFE12, true},  {0xFF1A, 0xFE13, true},
        {0xFF1B, 0xFE14, true},  {0xFF01, 0xFE15, true},
        {0xFF1F, 0xFE16, true},  {0x2026, 0xFE19, false},
        {0x2014, 0xFE31, false}, {0xFF08, 0xFE35, false},
        {0xFF09, 0xFE36, true},  {0x3010, 0xFE3B, false},
        {0x3011, 0xFE3C, true},  {0x300A, 0xFE3D, false},
        {0x300B, 0xFE3E, true},  {0x300C, 0xFE41, false},
        {0x300D, 0xFE42, true},  {0x300E, 0xFE43, false},
        {0x300F, 0xFE44, true},  {0xFF3B, 0xFE47, false},
        {0xFF3D, 0xFE48, true},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        if (forms[i].from == u) {
            *closing = forms[i].closing;
            return forms[i].to;
        }
    *closing = false;
    return 0;
}

/* Cuts text into units (at most MAX_UNITS); returns how many. */
static size_t cut_units(cairo_t *cr, const char *text, double line_h, unit *out)
{
    size_t n = 0;
    double gap = 0, w, h;
    fig_text_size(cr, LABEL_FONT, " ", 0, false, &w, &h);
    const double space = w;
    // a Chinese character's advance down the column: its width (an em)
    // and a little, tighter than a line
    fig_text_size(cr, LABEL_FONT, "\xe4\xb8\xad", 0, false, &w, &h); /* 中 */
    const double advance = fmin(line_h, w * 1.1);
    bool latin_before = false; /* a space parts two Latin units only */
    for (const char *c = text; *c != '\0' && n < MAX_UNITS;) {
        const gunichar u = g_utf8_get_char(c);
        const char *next = after(c);
        if (g_unichar_isspace(u)) {
            gap = space;
            c = next;
            continue;
        }
        const bool chinese = fig_upright_char((uint32_t)u);
        unit *t = &out[n++];
        *t = (unit){.gap = latin_before && !chinese ? gap : 0, .len = advance};
        gap = 0;
        latin_before = !chinese;
        if (chinese) {
            const gunichar v = vertical_form(u, &t->closing);
            // the brackets' vertical forms, U+FE35 on: closing or opening
            t->opening = v >= 0xFE35 && !t->closing;
            if (v != 0)
                t->text[g_unichar_to_utf8(v, t->text)] = '\0';
            else
                snprintf(t->text, sizeof t->text, "%.*s", (int)(next - c), c);
            c = next;
            continue;
        }
        // a run of what is neither space nor Chinese, turned unless it is
        // one or two letters or digits
        const char *end = c;
        size_t chars = 0;
        bool alnum = true;
        while (*end != '\0' && (size_t)(end - c) < sizeof t->text - 4) {
            const gunichar e = g_utf8_get_char(end);
            if (g_unichar_isspace(e) || fig_upright_char((uint32_t)e))
                break;
            alnum &= g_unichar_isalnum(e) != 0;
            chars++;
            end = after(end);
        }
        snprintf(t->text, sizeof t->text, "%.*s", (int)(end - c), c);
        t->turned = !(alnum && chars <= 2);
        if (t->turned) {
            fig_text_size(cr, LABEL_FONT, t->text, 0, false, &w, &h);
            t->len = w;
        }
        c = end;
    }
    return n;
}

/* The first unit of each column (starts[0..columns]: the last entry is
 * n), the units set in columns at most height long; returns the number
 * of columns, *longest the longest column's length. */
static size_t break_columns(const unit *u, size_t n, double height,
                            size_t *starts, double *longest)
{
    size_t cols = 0;
    double at = 0;
    for (size_t i = 0; i < n; i++) {
        const double step = (at > 0 ? u[i].gap : 0) + u[i].len;
        if (i == 0 || (at > 0 && at + step > height + 1e-6 && !u[i].closing)) {
            // an opening bracket last in the column goes on with its text
            const bool carry =
                i > 0 && u[i - 1].opening && starts[cols - 1] < i - 1;
            starts[cols++] = carry ? i - 1 : i;
            at = carry ? u[i - 1].len : 0;
        }
        at += at > 0 ? u[i].gap + u[i].len : u[i].len;
    }
    starts[cols] = n;
    // the columns' lengths, as fig_draw_vertical sets them
    *longest = 0;
    for (size_t k = 0; k < cols; k++) {
        double len = 0;
        for (size_t i = starts[k]; i < starts[k + 1]; i++)
            len += (i > starts[k] ? u[i].gap : 0) + u[i].len;
        *longest = fmax(*longest, len);
    }
    return cols;
}

size_t fig_vertical_size(cairo_t *cr, const char *text, double height,
                         double line_h, double *longest)
{
    unit u[MAX_UNITS];
    size_t starts[MAX_UNITS + 1];
    const size_t n = cut_units(cr, text, line_h, u);
    return break_columns(u, n, height, starts, longest);
}

void fig_draw_vertical(cairo_t *cr, const char *text, double right, double top,
                       double height, double line_h)
{
    unit u[MAX_UNITS];
    size_t starts[MAX_UNITS + 1];
    double longest;
    const size_t n = cut_units(cr, text, line_h, u);
    const size_t cols = break_columns(u, n, height, starts, &longest);
    // the columns top-aligned, the block centred along the height
    const double y0 = top + fmax(0.0, (height - longest) / 2);
    for (size_t k = 0; k < cols; k++) {
        const double cx = right - ((double)k + 0.5) * line_h;
        double y = y0;
        for (size_t i = starts[k]; i < starts[k + 1]; i++) {
            if (i > starts[k])
                y += u[i].gap;
            fig_draw_text(cr, LABEL_FONT, u[i].text, 0, cx, y + u[i].len / 2,
                          0.5, 0.5, u[i].turned ? -QUARTER_TURN : 0);
            y += u[i].len;
        }
    }
}
