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

/* The length of the UTF-8 character at s (1 to 4), or 0 when s does not
 * start one (a stray or overlong byte, a surrogate, past U+10FFFF). */
static size_t utf8_length(const unsigned char *s)
{
    const unsigned char c = s[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

/* s with XML's five special characters escaped, and what XML 1.0 does not
 * allow in a document shown by a stand-in, so that the label still shows
 * that something is there: a control character U+0001 to U+001F (but
 * tab, line feed and carriage return) by its picture, U+2401 to U+241F
 * (U+001B, escape, as U+241B); U+FFFE, U+FFFF and bytes that are not
 * UTF-8 by U+FFFD, the replacement character. */
static void put_escaped(strbuf *b, const char *s)
{
    while (*s != '\0') {
        const unsigned char c = (unsigned char)*s;
        const size_t n = utf8_length((const unsigned char *)s);
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            const char picture[] = {'\xe2', '\x90', (char)(0x80 + c), '\0'};
            puts_(b, picture);
        } else if (n == 0 || (n == 3 && memcmp(s, "\xef\xbf", 2) == 0 &&
                              (unsigned char)s[2] >= 0xbe)) {
            puts_(b, "\xef\xbf\xbd"); /* U+FFFD */
            s += n > 0 ? n - 1 : 0;
        } else if (n > 1) {
            put(b, s, n);
            s += n - 1;
        } else if (c == '&') {
            puts_(b, "&amp;");
        } else if (c == '<') {
            puts_(b, "&lt;");
        } else if (c == '>') {
            puts_(b, "&gt;");
        } else if (c == '"') {
            puts_(b, "&quot;");
        } else if (c == '\'') {
            puts_(b, "&apos;");
        } else {
            put(b, s, 1);
        }
        s++;
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
