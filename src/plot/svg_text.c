/* svg_text.c: the text of an SVG picture as <text> elements
 * (svg_text.h). */
#include "plot/svg_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *text;
    double x, y, angle, size;
    char anchor;
    const char *families;
    bool bold;
    double rgb[3];
} svg_text;

struct svg_texts {
    svg_text *items;
    size_t n, cap;
    bool failed;
};

svg_texts *svg_texts_new(void)
{
    return calloc(1, sizeof(svg_texts));
}

void svg_texts_free(svg_texts *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->n; i++)
        free(t->items[i].text);
    free(t->items);
    free(t);
}

int svg_texts_add(svg_texts *t, const char *text, size_t len, double x,
                  double y, double angle, char anchor, const char *families,
                  double size, bool bold, const double rgb[3])
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        svg_text *items = realloc(t->items, cap * sizeof *items);
        if (items == NULL) {
            t->failed = true;
            return -1;
        }
        t->items = items;
        t->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (copy == NULL) {
        t->failed = true;
        return -1;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    svg_text *e = &t->items[t->n++];
    e->text = copy;
    e->x = x;
    e->y = y;
    e->angle = angle;
    e->size = size;
    e->anchor = anchor;
    e->families = families;
    e->bold = bold;
    memcpy(e->rgb, rgb, sizeof e->rgb);
    return 0;
}

/* A growing string for one element. */
typedef struct {
    char *s;
    size_t len, cap;
    bool failed;
} strbuf;

static void put(strbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->len + n + 1) * 2;
        char *p = realloc(b->s, cap);
        if (p == NULL) {
            b->failed = true;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void puts_(strbuf *b, const char *s)
{
    put(b, s, strlen(s));
}

/* s with XML's five special characters escaped. */
static void put_escaped(strbuf *b, const char *s)
{
    for (; *s != '\0'; s++) {
        switch (*s) {
        case '&':
            puts_(b, "&amp;");
            break;
        case '<':
            puts_(b, "&lt;");
            break;
        case '>':
            puts_(b, "&gt;");
            break;
        case '"':
            puts_(b, "&quot;");
            break;
        case '\'':
            puts_(b, "&apos;");
            break;
        default:
            put(b, s, 1);
        }
    }
}

/* pango's "Noto Sans CJK TC,Sans" as CSS: 'Noto Sans CJK TC', sans-serif
 * (pango's generic names Sans, Serif and Monospace as CSS's). */
static void put_families(strbuf *b, const char *families)
{
    const char *f = families;
    bool first = true;
    while (*f != '\0') {
        while (*f == ' ' || *f == ',')
            f++;
        size_t n = strcspn(f, ",");
        while (n > 0 && f[n - 1] == ' ')
            n--;
        if (n == 0)
            break;
        if (!first)
            puts_(b, ", ");
        first = false;
        if ((n == 4 && strncmp(f, "Sans", 4) == 0) ||
            (n == 10 && strncmp(f, "sans-serif", 10) == 0))
            puts_(b, "sans-serif");
        else if (n == 5 && strncmp(f, "Serif", 5) == 0)
            puts_(b, "serif");
        else if (n == 9 && strncmp(f, "Monospace", 9) == 0)
            puts_(b, "monospace");
        else {
            puts_(b, "'");
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(n < 127 ? n : 127), f);
            put_escaped(b, name);
            puts_(b, "'");
        }
        f += strcspn(f, ",");
    }
}

static void put_element(strbuf *b, const svg_text *e)
{
    char num[160];
    snprintf(num, sizeof num, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.2f\"",
             e->x, e->y, e->size);
    puts_(b, num);
    puts_(b, " font-family=\"");
    put_families(b, e->families);
    puts_(b, "\"");
    if (e->bold)
        puts_(b, " font-weight=\"bold\"");
    if (e->anchor == 'm')
        puts_(b, " text-anchor=\"middle\"");
    else if (e->anchor == 'e')
        puts_(b, " text-anchor=\"end\"");
    int r = (int)(e->rgb[0] * 255 + 0.5), g = (int)(e->rgb[1] * 255 + 0.5),
        bl = (int)(e->rgb[2] * 255 + 0.5);
    if (r != 0 || g != 0 || bl != 0) {
        snprintf(num, sizeof num, " fill=\"#%02x%02x%02x\"", r, g, bl);
        puts_(b, num);
    }
    if (e->angle != 0) {
        snprintf(num, sizeof num, " transform=\"rotate(%.2f %.2f %.2f)\"",
                 e->angle, e->x, e->y);
        puts_(b, num);
    }
    puts_(b, ">");
    put_escaped(b, e->text);
    puts_(b, "</text>\n");
}

cairo_status_t svg_text_write(const char *svg, size_t len, const svg_texts *t,
                              cairo_write_func_t write, void *closure)
{
    if (t->failed)
        return CAIRO_STATUS_NO_MEMORY;
    /* the closing tag: the last "</svg>" of cairo's document */
    size_t end = len;
    for (size_t i = len >= 6 ? len - 6 + 1 : 0; i-- > 0;)
        if (memcmp(svg + i, "</svg>", 6) == 0) {
            end = i;
            break;
        }
    cairo_status_t st =
        write(closure, (const unsigned char *)svg, (unsigned int)end);
    strbuf b = {0};
    puts_(&b, "<g id=\"text\">\n");
    for (size_t i = 0; i < t->n && st == CAIRO_STATUS_SUCCESS; i++) {
        put_element(&b, &t->items[i]);
        if (b.failed)
            break;
        if (b.len > 65536) {
            st =
                write(closure, (const unsigned char *)b.s, (unsigned int)b.len);
            b.len = 0;
        }
    }
    puts_(&b, "</g>\n");
    if (b.failed) {
        free(b.s);
        return CAIRO_STATUS_NO_MEMORY;
    }
    if (st == CAIRO_STATUS_SUCCESS)
        st = write(closure, (const unsigned char *)b.s, (unsigned int)b.len);
    free(b.s);
    if (st == CAIRO_STATUS_SUCCESS)
        st = write(closure, (const unsigned char *)svg + end,
                   (unsigned int)(len - end));
    return st;
}
