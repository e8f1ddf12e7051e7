/* figure_text.c: the fonts of a --plot page, and its text measured with
 * pango, drawn, or logged as an SVG's text (svg_text.h); Chinese,
 * Japanese and Korean labels drawn upright, one character a line
 * (figure_parts.h). */
#include "plot/figure_parts.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <pango/pangocairo.h>

#include "base/i18n.h"
#include "plot/svg_text.h"

/* The font families of the pictures, in pango's syntax: the translators
 * name the face of their script first, so that Chinese is drawn in the
 * face of its locale (Noto Sans CJK TC for zh_TW, SC for zh_CN), not
 * the first CJK face fontconfig lists (the Japanese one). */
static const char *font_families(void)
{
    /* TRANSLATORS: the font families of the pictures (--plot), in pango's
     * syntax, comma-separated, the face for your script first; keep
     * "Sans" last. zh_TW: "Noto Sans CJK TC,Sans"; zh_CN: "Noto Sans CJK
     * SC,Sans"; languages written in Latin letters: "Sans". */
    return _("Sans");
}

font_name fig_font(bool bold, double points)
{
    font_name f;
    snprintf(f.name, sizeof f.name, "%s%s %.1f", font_families(),
             bold ? " Bold" : "", points);
    return f;
}

/* ---- measuring and drawing text -------------------------------------- */

/* No line of a wrapped text breaks inside an option's name ("--metric",
 * "--ablate-mode") at its hyphens. */
static void keep_options_whole(PangoLayout *layout, const char *text)
{
    PangoAttrList *attrs = NULL;
    for (const char *c = strstr(text, "--"); c != NULL; c = strstr(c, "--")) {
        const char *end = c + 2;
        while ((*end >= 'a' && *end <= 'z') || (*end >= '0' && *end <= '9') ||
               *end == '-')
            end++;
        if (attrs == NULL)
            attrs = pango_attr_list_new();
        PangoAttribute *a = pango_attr_allow_breaks_new(FALSE);
        a->start_index = (guint)(c - text);
        a->end_index = (guint)(end - text);
        pango_attr_list_insert(attrs, a);
        c = end;
    }
    if (attrs != NULL) {
        pango_layout_set_attributes(layout, attrs);
        pango_attr_list_unref(attrs);
    }
}

/* A layout of text in font, hinting off so that every surface measures
 * alike; wider than `width` points (when width > 0) it is wrapped (wrap)
 * or cut with an ellipsis. The caller unrefs it. */
static PangoLayout *text_layout(cairo_t *cr, const char *font, const char *text,
                                double width, bool wrap)
{
    PangoLayout *layout = pango_cairo_create_layout(cr);
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    pango_cairo_context_set_font_options(pango_layout_get_context(layout), fo);
    cairo_font_options_destroy(fo);
    PangoFontDescription *desc = pango_font_description_from_string(font);
    pango_layout_set_font_description(layout, desc);
    pango_font_description_free(desc);
    pango_layout_set_text(layout, text, -1);
    if (width > 0) {
        pango_layout_set_width(layout, (int)(width * PANGO_SCALE));
        if (wrap) {
            pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR);
            keep_options_whole(layout, text);
        } else
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
    }
    return layout;
}

/* The size of text as text_layout lays it out. */
void fig_text_size(cairo_t *cr, const char *font, const char *text,
                   double width, bool wrap, double *w, double *h)
{
    PangoLayout *layout = text_layout(cr, font, text, width, wrap);
    int pw, ph;
    pango_layout_get_size(layout, &pw, &ph);
    *w = (double)pw / PANGO_SCALE;
    *h = (double)ph / PANGO_SCALE;
    g_object_unref(layout);
}

/* The key under which an SVG's texts hang on a cairo context: its
 * address. */
static const cairo_user_data_key_t svg_texts_key;

void fig_attach_texts(cairo_t *cr, svg_texts *texts)
{
    cairo_set_user_data(cr, &svg_texts_key, texts, NULL);
}

/* The text a layout shows: its text, or when ellipsized its start cut
 * short enough to fit with "…" (as pango draws it, near enough). */
static char *shown_text(PangoLayout *layout)
{
    const char *text = pango_layout_get_text(layout);
    if (!pango_layout_is_ellipsized(layout))
        return g_strdup(text);
    int limit = pango_layout_get_width(layout);
    PangoLayout *probe = pango_layout_copy(layout);
    pango_layout_set_width(probe, -1);
    glong n = g_utf8_strlen(text, -1);
    char *out = NULL;
    for (; n > 0; n--) {
        const char *cut = g_utf8_offset_to_pointer(text, n);
        g_free(out);
        out = g_strdup_printf("%.*s\u2026", (int)(cut - text), text);
        pango_layout_set_text(probe, out, -1);
        int w, h;
        pango_layout_get_size(probe, &w, &h);
        if (w <= limit)
            break;
    }
    g_object_unref(probe);
    return out != NULL ? out : g_strdup("\u2026");
}

/* Logs the layout's lines as SVG text (svg_text.h): cr is at the
 * layout's top left, turned as it is drawn. */
static void log_layout(cairo_t *cr, svg_texts *log, PangoLayout *layout,
                       const char *families, double points, bool bold,
                       double ax)
{
    double ux = 1, uy = 0;
    cairo_user_to_device_distance(cr, &ux, &uy);
    double angle = atan2(uy, ux) * 180.0 / 3.14159265358979323846;
    /* pango sets a size in points at its resolution (96 dots an inch
     * unless set), not at the 72 of the SVG's points */
    double dpi =
        pango_cairo_context_get_resolution(pango_layout_get_context(layout));
    if (dpi <= 0)
        dpi = pango_cairo_font_map_get_resolution(
            PANGO_CAIRO_FONT_MAP(pango_cairo_font_map_get_default()));
    double unit = hypot(ux, uy) * dpi / 72.0;
    double ink[3] = {0, 0, 0}, alpha;
    cairo_pattern_get_rgba(cairo_get_source(cr), &ink[0], &ink[1], &ink[2],
                           &alpha);
    char *shown = shown_text(layout);
    int pw, ph;
    pango_layout_get_size(layout, &pw, &ph);
    PangoLayoutIter *it = pango_layout_get_iter(layout);
    const char *text = pango_layout_get_text(layout);
    bool ellipsized = pango_layout_is_ellipsized(layout);
    do {
        PangoLayoutLine *line = pango_layout_iter_get_line_readonly(it);
        PangoRectangle logical;
        pango_layout_iter_get_line_extents(it, NULL, &logical);
        double baseline = pango_layout_iter_get_baseline(it) / PANGO_SCALE;
        const char *start = ellipsized ? shown : text + line->start_index;
        size_t len = ellipsized ? strlen(shown) : (size_t)line->length;
        while (len > 0 && (start[len - 1] == '\n' || start[len - 1] == '\r'))
            len--;
        /* the anchor: the line's left, middle or right, as ax asks */
        double lx = ((double)logical.x + ax * logical.width) / PANGO_SCALE;
        double dx = lx, dy = baseline;
        cairo_user_to_device(cr, &dx, &dy);
        if (len > 0)
            svg_texts_add(log, start, len, dx, dy, angle,
                          ax == 0   ? 's'
                          : ax == 1 ? 'e'
                                    : 'm',
                          families, points * unit, bold, ink);
        if (ellipsized)
            break;
    } while (pango_layout_iter_next_line(it));
    pango_layout_iter_free(it);
    g_free(shown);
}

/* The family, weight and size of a font name made by font_name. */
static void font_parts(const char *font, const char **families, bool *bold,
                       double *points)
{
    PangoFontDescription *d = pango_font_description_from_string(font);
    *bold = pango_font_description_get_weight(d) >= PANGO_WEIGHT_BOLD;
    *points = (double)pango_font_description_get_size(d) / PANGO_SCALE;
    pango_font_description_free(d);
    *families = font_families();
}

/* fig_draw_text, wrapped to width (each line centred) when wrap. */
static void draw_layout_text(cairo_t *cr, const char *font, const char *text,
                             double width, bool wrap, double x, double y,
                             double ax, double ay, double angle)
{
    PangoLayout *layout = text_layout(cr, font, text, width, wrap);
    if (wrap)
        pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER);
    /* the lines' box: centred lines narrower than width start right of
     * the layout's left edge, which the anchor must not count */
    PangoRectangle box;
    pango_layout_get_extents(layout, NULL, &box);
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, angle);
    cairo_translate(cr, -((double)box.x + ax * box.width) / PANGO_SCALE,
                    -((double)box.y + ay * box.height) / PANGO_SCALE);
    cairo_move_to(cr, 0, 0);
    svg_texts *log = cairo_get_user_data(cr, &svg_texts_key);
    if (log != NULL) {
        const char *families;
        bool bold;
        double points;
        font_parts(font, &families, &bold, &points);
        log_layout(cr, log, layout, families, points, bold, ax);
    } else {
        pango_cairo_show_layout(cr, layout);
    }
    cairo_restore(cr);
    g_object_unref(layout);
}

void fig_draw_text(cairo_t *cr, const char *font, const char *text,
                   double width, double x, double y, double ax, double ay,
                   double angle)
{
    draw_layout_text(cr, font, text, width, false, x, y, ax, ay, angle);
}

void fig_draw_wrapped(cairo_t *cr, const char *font, const char *text,
                      double width, double x, double y, double ax, double ay,
                      double angle)
{
    draw_layout_text(cr, font, text, width, true, x, y, ax, ay, angle);
}

void fig_draw_paragraph(cairo_t *cr, const char *text, double width, double x,
                        double y)
{
    PangoLayout *layout = text_layout(cr, LABEL_FONT, text, width, true);
    svg_texts *log = cairo_get_user_data(cr, &svg_texts_key);
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_move_to(cr, 0, 0);
    if (log != NULL)
        log_layout(cr, log, layout, font_families(), LABEL_SIZE, false, 0);
    else
        pango_cairo_show_layout(cr, layout);
    cairo_restore(cr);
    g_object_unref(layout);
}

/* The UTF-8 character after c's (tokenize.c checked the text). */
static const char *next_char(const char *c)
{
    const unsigned char b = (unsigned char)*c;
    size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    for (size_t i = 1; i < n; i++)
        if (c[i] == '\0')
            return c + i;
    return c + n;
}

bool fig_upright_char(uint32_t u)
{
    return (u >= 0x2E80 && u <= 0xA4CF) || (u >= 0xAC00 && u <= 0xD7AF) ||
           (u >= 0xF900 && u <= 0xFAFF) || (u >= 0xFE30 && u <= 0xFE4F) ||
           (u >= 0xFF00 && u <= 0xFFEF) || u >= 0x20000;
}

bool fig_upright(const char *label)
{
    for (const char *c = label; *c != '\0'; c = next_char(c))
        if (fig_upright_char(g_utf8_get_char(c)))
            return true;
    return false;
}

size_t fig_upright_count(const char *label, double line_h)
{
    size_t n = (size_t)g_utf8_strlen(label, -1);
    size_t most = (size_t)(MAX_LABEL / line_h);
    return n < most ? n : most;
}

void fig_draw_upright(cairo_t *cr, const char *label, double cx, double top,
                      double line_h)
{
    size_t n = (size_t)g_utf8_strlen(label, -1),
           shown = fig_upright_count(label, line_h);
    const char *c = label;
    for (size_t i = 0; i < shown; i++, c = next_char(c)) {
        char one[8] = "\xef\xb8\x99"; /* U+FE19 PRESENTATION FORM FOR
                                       VERTICAL HORIZONTAL ELLIPSIS */
        if (i + 1 < shown || shown == n)
            snprintf(one, sizeof one, "%.*s", (int)(next_char(c) - c), c);
        fig_draw_text(cr, LABEL_FONT, one, 0, cx,
                      top + ((double)i + 0.5) * line_h, 0.5, 0.5, 0);
    }
}
