/* svg_text.h: the text of an SVG picture kept as text.
 *
 * cairo's SVG surface draws pango's text as glyph outlines: a picture
 * that cannot be searched, edited or translated, and large (1.4 MB for
 * eight heads). So the page is drawn without its text onto the SVG
 * surface, each piece of text is logged instead (plot_figure.c's
 * draw_text), and svg_text_write puts it back as <text> elements before
 * the SVG's end, where a viewer lays it out in the same fonts. */
#ifndef MHA_SVG_TEXT_H
#define MHA_SVG_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include <cairo.h>

typedef struct svg_texts svg_texts;

svg_texts *svg_texts_new(void);
void svg_texts_free(svg_texts *t);

/* Logs one line of text: its anchor point (x, y) on the baseline in the
 * SVG's units, turned by angle degrees about it; anchor 's' (start), 'm'
 * (middle) or 'e' (end); the pango font family list, size in the SVG's
 * units, bold or not, and its colour (0 to 1). Returns -1 when out of
 * memory (the log is then marked failed and svg_text_write fails). */
int svg_texts_add(svg_texts *t, const char *text, size_t len, double x,
                  double y, double angle, char anchor, const char *families,
                  double size, bool bold, const double rgb[3]);

/* Writes the SVG that cairo made (svg[len]) with the logged text before
 * its closing tag, through write(closure, ...). */
cairo_status_t svg_text_write(const char *svg, size_t len, const svg_texts *t,
                              cairo_write_func_t write, void *closure);

#endif
