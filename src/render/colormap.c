/* colormap.c: matplotlib's colour maps looked up by name (colormap.h). */
#include "render/colormap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool colormap_find(colormap *out, const char *name)
{
    size_t len = strlen(name);
    bool reversed = len > 2 && strcmp(name + len - 2, "_r") == 0;
    size_t base = reversed ? len - 2 : len;
    for (size_t i = 0; i < colormap_def_count; i++) {
        const char *n = colormap_defs[i].name;
        if (strlen(n) == base && strncmp(n, name, base) == 0) {
            out->def = &colormap_defs[i];
            out->reversed = reversed;
            return true;
        }
    }
    return false;
}

void colormap_list(char *out, size_t size)
{
    size_t at = 0;
    out[0] = '\0';
    for (size_t i = 0; i < colormap_def_count && at < size; i++) {
        int n = snprintf(out + at, size - at, "%s%s", i > 0 ? ", " : "",
                         colormap_defs[i].name);
        if (n < 0)
            break;
        at += (size_t)n;
    }
}

bool colormap_diverging(const colormap *m)
{
    static const char *const names[] = {"RdBu", "PuOr", "RdYlBu", "Spectral",
                                        "coolwarm"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(m->def->name, names[i]) == 0)
            return true;
    return false;
}

/* Anchor k's position: numpy's linspace(0, 1, n)[k] (k * (1 / (n - 1)),
 * the last exactly 1), or the map's own; reversed as matplotlib reverses a
 * segmented map, 1 - x of the anchors in reverse order. */
static double anchor_at(const colormap_def *d, bool reversed, size_t k)
{
    size_t j = reversed ? d->n - 1 - k : k;
    double x = d->at != NULL   ? d->at[j]
               : j + 1 == d->n ? 1.0
                               : (double)j * (1.0 / (double)(d->n - 1));
    return reversed ? 1.0 - x : x;
}

static double anchor_value(const colormap_def *d, bool reversed, size_t k,
                           int channel)
{
    return d->rgb[reversed ? d->n - 1 - k : k][channel];
}

void colormap_entry(const colormap *m, size_t i, double out[3])
{
    const colormap_def *d = m->def;
    if (i >= COLORMAP_ENTRIES)
        i = COLORMAP_ENTRIES - 1;
    if (d->listed) {
        // the decimal's own double: one correctly rounded division
        const uint32_t *c = d->millionths[m->reversed ? d->n - 1 - i : i];
        for (int ch = 0; ch < 3; ch++)
            out[ch] = (double)c[ch] / 1e6;
        return;
    }
    /* matplotlib's _create_lookup_table: the first and last entries are
     * the end anchors; entry i in between lies at xi = 255 * (i / 255)
     * (numpy's linspace, scaled by N - 1 as the anchors are), between the
     * anchors around it (searchsorted, side "left"), interpolated
     * linearly */
    if (i == 0 || i == COLORMAP_ENTRIES - 1) {
        size_t k = i == 0 ? 0 : d->n - 1;
        for (int ch = 0; ch < 3; ch++)
            out[ch] = anchor_value(d, m->reversed, k, ch);
        return;
    }
    const double n1 = COLORMAP_ENTRIES - 1;
    double xi = n1 * ((double)i * (1.0 / n1));
    size_t k = 0;
    while (k < d->n && n1 * anchor_at(d, m->reversed, k) < xi)
        k++;
    if (k == 0)
        k = 1;
    if (k >= d->n)
        k = d->n - 1;
    double x0 = n1 * anchor_at(d, m->reversed, k - 1),
           x1 = n1 * anchor_at(d, m->reversed, k);
    double distance = (xi - x0) / (x1 - x0);
    for (int ch = 0; ch < 3; ch++) {
        double y0 = anchor_value(d, m->reversed, k - 1, ch),
               y1 = anchor_value(d, m->reversed, k, ch);
        double v = distance * (y1 - y0) + y0;
        out[ch] = v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
    }
}

rgb colormap_color(const colormap *m, double x)
{
    if (!(x > 0.0)) /* also NaN */
        x = 0.0;
    if (x > 1.0)
        x = 1.0;
    size_t i = (size_t)(x * COLORMAP_ENTRIES);
    double c[3];
    colormap_entry(m, i, c);
    rgb out = {(unsigned char)lround(c[0] * 255.0),
               (unsigned char)lround(c[1] * 255.0),
               (unsigned char)lround(c[2] * 255.0)};
    return out;
}
