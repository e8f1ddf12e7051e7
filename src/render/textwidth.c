/* textwidth.c: display widths with utf8proc. */
#include "render/textwidth.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

static bool is_regional_indicator(utf8proc_int32_t c)
{
    return c >= 0x1F1E6 && c <= 0x1F1FF;
}

/* The cells of code point c; its cluster takes its widest one's. */
static size_t char_cells(utf8proc_int32_t c)
{
    if (c == 0xFE0F) /* emoji presentation selector */
        return 2;
    if (is_regional_indicator(c)) /* a pair of them is one flag */
        return 2;
    return (size_t)utf8proc_charwidth(c);
}

size_t display_width(const char *s)
{
    /* printable ASCII, most labels and every number: a cell a byte */
    size_t ascii = 0;
    while (s[ascii] >= 0x20 && s[ascii] <= 0x7E)
        ascii++;
    if (s[ascii] == '\0')
        return ascii;
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)s;
    size_t total = 0;
    size_t cluster = 0;         /* width of the cluster being read */
    utf8proc_int32_t prev = -1; /* previous code point, -1 at a start */
    utf8proc_int32_t state = 0; /* utf8proc's grapheme break state */

    while (*p != '\0') {
        if (p[0] == 0x1B && p[1] == '[') { /* a colour: ESC [ ... m */
            p += 2;
            while (*p != '\0' && !(*p >= 0x40 && *p <= 0x7E))
                p++;
            p += *p != '\0';
            continue;
        }
        utf8proc_int32_t c;
        utf8proc_ssize_t n = utf8proc_iterate(p, -1, &c);
        if (n < 0) { /* an invalid byte shows as one escape, 4 cells */
            total += cluster + 4;
            cluster = 0;
            prev = -1;
            state = 0;
            p++;
            continue;
        }
        if (prev < 0 || utf8proc_grapheme_break_stateful(prev, c, &state)) {
            total += cluster;
            cluster = 0;
        }
        const size_t w = char_cells(c);
        if (w > cluster)
            cluster = w;
        prev = c;
        p += n;
    }
    return total + cluster;
}

static bool is_control(utf8proc_int32_t c)
{
    return c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0);
}

/* Marks and embeddings, overrides and isolates of the bidirectional
 * algorithm: LRM, RLM, ALM, LRE..RLO, LRI..PDI. */
static bool is_bidi_control(utf8proc_int32_t c)
{
    return c == 0x200E || c == 0x200F || c == 0x061C ||
           (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

/* Whether s is not empty and holds only format characters (Cf), which
 * draw nothing: such a token is shown as its code points. */
static bool only_format(const utf8proc_uint8_t *p)
{
    if (*p == '\0')
        return false;
    while (*p != '\0') {
        utf8proc_int32_t c;
        utf8proc_ssize_t n = utf8proc_iterate(p, -1, &c);
        if (n <= 0 || utf8proc_category(c) != UTF8PROC_CATEGORY_CF)
            return false;
        p += n;
    }
    return true;
}

char *display_escape(const char *s)
{
    size_t len = strlen(s);
    /* every byte becomes at most four ("\xHH") */
    char *out = malloc(4 * len + 1);
    if (out == NULL)
        return NULL;
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)s;
    const bool invisible = only_format(p);
    char *w = out;
    while (*p != '\0') {
        utf8proc_int32_t c;
        utf8proc_ssize_t n = utf8proc_iterate(p, -1, &c);
        if (n < 0) {
            w += sprintf(w, "\\x%02x", (unsigned)*p);
            p++;
        } else if (is_bidi_control(c) || invisible) {
            /* they would reorder the text around them on a terminal */
            w += sprintf(w, "\\u%04x", (unsigned)c);
            p += n;
        } else if (is_control(c)) {
            /* C1 controls take 2 bytes; show them as their code point */
            w += sprintf(w, "\\x%02x", (unsigned)c);
            p += n;
        } else {
            memcpy(w, p, (size_t)n);
            w += n;
            p += n;
        }
    }
    *w = '\0';
    return out;
}

/* Display cells of the first n bytes of s. */
static size_t width_of(const char *s, size_t n)
{
    char buf[256];
    if (n < sizeof buf) {
        memcpy(buf, s, n);
        buf[n] = '\0';
        return display_width(buf);
    }
    char *copy = strndup(s, n);
    size_t w = copy != NULL ? display_width(copy) : n;
    free(copy);
    return w;
}

void write_wrapped(FILE *out, const char *s, size_t width, size_t indent)
{
    size_t used = 0; /* cells on the current line */
    bool line_empty = true;
    while (*s != '\0') {
        size_t spaces = strspn(s, " ");
        const char *word = s + spaces;
        size_t len = strcspn(word, " ");
        if (len == 0)
            break; /* trailing spaces */
        size_t w = width_of(word, len);
        if (!line_empty && width > 0 && used + spaces + w > width) {
            fputc('\n', out);
            for (size_t i = 0; i < indent; i++)
                fputc(' ', out);
            used = indent;
            spaces = 0;
        }
        for (size_t i = 0; i < spaces; i++)
            fputc(' ', out);
        fwrite(word, 1, len, out);
        used += spaces + w;
        line_empty = false;
        s = word + len;
    }
    fputc('\n', out);
}

int write_wrapped_lines(FILE *out, const char *text, size_t width,
                        size_t indent)
{
    while (*text != '\0') {
        size_t len = strcspn(text, "\n");
        char *line = strndup(text, len);
        if (line == NULL)
            return -1;
        write_wrapped(out, line, width, indent);
        free(line);
        text += len + (text[len] == '\n');
    }
    return 0;
}

/* The boundaries between the grapheme clusters of s (no colours in it):
 * at[0] = 0 < at[1] < ... < at[k] = strlen(s), and cells[i] the cells of
 * s's first i clusters, as display_width counts them; returns k. at and
 * cells hold strlen(s) + 1 each. */
static size_t clusters(const char *s, size_t *at, size_t *cells)
{
    const utf8proc_uint8_t *start = (const utf8proc_uint8_t *)s, *p = start;
    size_t k = 0, total = 0, cluster = 0;
    utf8proc_int32_t prev = -1, state = 0;
    at[0] = cells[0] = 0;
    while (*p != '\0') {
        utf8proc_int32_t c;
        const utf8proc_ssize_t n = utf8proc_iterate(p, -1, &c);
        const size_t here = (size_t)(p - start);
        if (n < 0 || prev < 0 ||
            utf8proc_grapheme_break_stateful(prev, c, &state)) {
            if (here > 0) {
                total += cluster;
                at[++k] = here;
                cells[k] = total;
            }
            cluster = 0;
        }
        if (n < 0) { /* an invalid byte: a cluster of its own, 4 cells */
            cluster = 4;
            prev = -1;
            state = 0;
            p++;
            continue;
        }
        const size_t w = char_cells(c);
        cluster = w > cluster ? w : cluster;
        prev = c;
        p += n;
    }
    if (p > start) {
        at[++k] = (size_t)(p - start);
        cells[k] = total + cluster;
    }
    return k;
}

char *display_cut(const char *s, size_t cells)
{
    static const char more[] = "...";
    const size_t len = strlen(s);
    if (display_width(s) <= cells)
        return strdup(s);
    size_t *at = malloc((len + 1) * sizeof *at);
    size_t *sum = malloc((len + 1) * sizeof *sum);
    char *out = malloc(len + sizeof more);
    if (at == NULL || sum == NULL || out == NULL) {
        free(at);
        free(sum);
        free(out);
        return NULL;
    }
    const size_t k = clusters(s, at, sum);
    // the room beside "...": its first half for the beginning, the rest
    // for the end (where two texts that differ late still differ)
    const size_t room = cells > sizeof more ? cells - (sizeof more - 1) : 1;
    size_t head = 0, tail = k;
    while (head < k && sum[head + 1] <= (room + 1) / 2)
        head++;
    while (tail > head && sum[k] - sum[tail - 1] <= room - sum[head])
        tail--;
    memcpy(out, s, at[head]);
    memcpy(out + at[head], more, sizeof more - 1);
    memcpy(out + at[head] + sizeof more - 1, s + at[tail], len - at[tail] + 1);
    free(at);
    free(sum);
    return out;
}
