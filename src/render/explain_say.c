/* explain_say.c: the sentences of --explain as "# " lines wrapped to the
 * screen, at spaces outside shapes or between Chinese characters
 * (explain_parts.h). */
#include "render/explain_parts.h"

#include <stdarg.h>
#include <string.h>
#include <utf8proc.h>

#define NOTE_WIDTH 76
#define MIN_NOTE_WIDTH 20 /* narrower screens get lines this long */

/* Whether the word p[a, b) is an operator between the items of a shape:
 * "x", "@", "->", "+", "-", "*", "/", "=", "·". */
static bool operator_word(const char *p, size_t a, size_t b)
{
    static const char *const ops[] = {"x", "@", "->", "+",     "-",
                                      "*", "/", "=",  "\u00b7"};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (strlen(ops[k]) == b - a && strncmp(p + a, ops[k], b - a) == 0)
            return true;
    return false;
}

/* Whether the group opened by the parenthesis p[open] is a shape "(5, 2,
 * 2)", "(T x S)", "(L·H)", which a line never splits, rather than words
 * in parentheses "(--answer minus --wrong at the last token)": in a
 * shape, every space follows a comma or has an operator beside it. A
 * group never closed is words. */
static bool shape_group(const char *p, size_t open)
{
    int depth = 0;
    size_t close = open;
    for (size_t k = open; p[k] != '\0'; k++) {
        depth += p[k] == '(' ? 1 : (p[k] == ')' ? -1 : 0);
        if (depth == 0) {
            close = k;
            break;
        }
    }
    if (close == open)
        return false;
    /* one word: a shape when it has a digit, a comma or a product
     * ("(5)", "(L·H)"), or is a letter or two ("(T)", "(hd)"); not a
     * word in parentheses ("(duplicate)") */
    if (memchr(p + open, ' ', close - open) == NULL) {
        bool mark = close - open <= 3;
        for (size_t k = open + 1; k < close; k++)
            mark |= strchr("0123456789,\xc2", p[k]) != NULL;
        return mark;
    }
    size_t start = open + 1; /* of the word before the space */
    for (size_t k = open + 1; k < close; k++) {
        if (p[k] != ' ')
            continue;
        size_t end = k + 1;
        while (end < close && p[end] != ' ')
            end++;
        if (!(k > start && p[k - 1] == ',') && !operator_word(p, start, k) &&
            !operator_word(p, k + 1, end))
            return false;
        start = k + 1;
    }
    return true;
}

/* Whether p[i] lies inside a shape (shape_group) opened before it. */
static bool inside_shape(const char *p, size_t i)
{
    size_t open[16];
    size_t n = 0, deep = 0; /* groups open, and those past the stack */
    for (size_t k = 0; k < i; k++) {
        if (p[k] == '(') {
            if (n < sizeof open / sizeof open[0])
                open[n++] = k;
            else
                deep++;
        } else if (p[k] == ')') {
            if (deep > 0)
                deep--;
            else if (n > 0)
                n--;
        }
    }
    for (size_t g = 0; g < n; g++)
        if (shape_group(p, open[g]))
            return true;
    return false;
}

/* A line may break at the space p[i], unless that splits a shape "(5, 2,
 * 2)", a chain "(5, 4) -> view (5, 2, 2)" or a product "(5, 3) @ (3, 4)".
 * Words in parentheses break as any words. */
static bool break_allowed(const char *p, size_t i)
{
    if (p[i] != ' ' || inside_shape(p, i))
        return false;
    const bool arrow_after =
        strncmp(p + i + 1, "->", 2) == 0 || p[i + 1] == '@';
    const bool arrow_before = (i >= 2 && strncmp(p + i - 2, "->", 2) == 0) ||
                              (i >= 1 && p[i - 1] == '@');
    /* "view (5, 2, 2)": a word stays with the shape after it */
    const bool before_shape = i >= 1 && p[i - 1] != ')' && p[i - 1] != ',' &&
                              p[i + 1] == '(' && shape_group(p, i + 1);
    return !arrow_after && !arrow_before && !before_shape;
}

/* The code point at s (U+FFFD for a bad byte) and its length in *len. */
static utf8proc_int32_t code_point(const char *s, size_t *len)
{
    utf8proc_int32_t c;
    utf8proc_ssize_t n = utf8proc_iterate((const utf8proc_uint8_t *)s, -1, &c);
    *len = n > 0 ? (size_t)n : 1;
    return n > 0 ? c : 0xFFFD;
}

/* Terminal cells of the code point c: 2 for ideographs, 0 for marks. */
static size_t cells(utf8proc_int32_t c)
{
    int w = utf8proc_charwidth(c);
    return w > 0 ? (size_t)w : 0;
}

/* Nonzero when c is one of the n code points of set. */
static bool one_of(utf8proc_int32_t c, const utf8proc_int32_t *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (set[i] == c)
            return true;
    return false;
}

/* A line of Chinese may also break between two characters when one of
 * them is wide (an ideograph), outside a shape, and not before closing
 * or after opening punctuation. i starts a code point, i > 0. */
static bool wide_break_allowed(const char *p, size_t i)
{
    static const utf8proc_int32_t closing[] = {
        0xFF0C, 0x3002, 0x3001, 0xFF1A, 0xFF1B, 0xFF01, 0xFF1F,
        0xFF09, 0x300D, 0x300F, 0x201D, 0x2019}; /* ，。、：；！？）」』”’ */
    static const utf8proc_int32_t opening[] = {0xFF08, 0x300C, 0x300E, 0x201C,
                                               0x2018}; /* （「『“‘ */
    size_t start = i - 1, len;
    while (start > 0 && ((unsigned char)p[start] & 0xC0) == 0x80)
        start--;
    const utf8proc_int32_t before = code_point(p + start, &len);
    const utf8proc_int32_t after = code_point(p + i, &len);
    if ((cells(before) != 2 && cells(after) != 2) || before == ' ' ||
        after == ' ' ||
        one_of(after, closing, sizeof closing / sizeof closing[0]) ||
        one_of(before, opening, sizeof opening / sizeof opening[0]))
        return false;
    return !inside_shape(p, i);
}

/* Prints a note as "# " lines of at most NOTE_WIDTH display cells (an
 * ideograph counts two), fewer on a screen narrower than that (screen 0:
 * no limit). Lines break at spaces, or between Chinese characters. */
/* clang-format off */
__attribute__((format(printf, 3, 4)))
void explain_say(FILE *out, size_t screen, const char *fmt, ...)
/* clang-format on */
{
    size_t note_width = NOTE_WIDTH;
    if (screen > 0 && screen < NOTE_WIDTH + 2)
        note_width = screen > 2 + MIN_NOTE_WIDTH ? screen - 2 : MIN_NOTE_WIDTH;
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (screen == EXPLAIN_NO_WRAP) {
        fprintf(out, "# %s\n", text);
        return;
    }
    const char *p = text;
    while (*p != '\0') {
        /* the last break within note_width cells; failing one, the last
         * space; failing that, the last character that fits */
        size_t i = 0, used = 0, best = 0, space = 0, fits = 0;
        while (p[i] != '\0' && used <= note_width) {
            if (i > 0 && (break_allowed(p, i) || wide_break_allowed(p, i)))
                best = i;
            if (i > 0 && p[i] == ' ')
                space = i;
            fits = i;
            size_t len;
            used += cells(code_point(p + i, &len));
            i += len;
        }
        size_t cut = strlen(p);
        if (used > note_width)
            cut = best > 0 ? best : (space > 0 ? space : fits);
        fprintf(out, "# %.*s\n", (int)cut, p);
        p += cut;
        while (*p == ' ')
            p++;
    }
}

void explain_note(FILE *out, size_t screen, const char *text)
{
    explain_say(out, screen, "%s", text);
}
