/* option_help.c: an option's help as --help and the man page show it
 * (option_help.h). */
#include "cli/option_help.h"

#include <stdbool.h>
#include <string.h>

#include "base/i18n.h"
#include "model/family.h"
#include "model/lesson/model.h"
#include "render/textwidth.h"

/* The names of the variants of set (variant_bits), as --variant takes
 * them: "single,wrapper,fused". */
static void names_as_given(char *out, size_t size, unsigned set)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; i < MODEL_N_VARIANTS && n < size; i++)
        if (set & model_variants[i].bit)
            n += (size_t)snprintf(out + n, size - n, "%s%s", n > 0 ? "," : "",
                                  model_variants[i].name);
}

/* The names a filled row's "%s" stands for (option_table.h's
 * help_fill), in the reader's language, into names. */
static void fill_names(char *names, size_t size, const option_row *o)
{
    if (o->filled == HELP_VARIANTS)
        variant_names_joined(names, size, VARIANTS_ALL, VARIANT_NAMES_ALL);
    else
        family_titles(names, size,
                      o->filled == HELP_PAIRS ? FAMILIES_PAIRING
                                              : FAMILIES_CHECKPOINT,
                      o->filled == HELP_FAMILIES);
}

/* A filled row's text (its "%s" filled: fill_names) into text, and its
 * default into tag, both in the reader's language. */
static void filled(char *text, size_t text_size, char *tag, size_t tag_size,
                   const option_row *o)
{
    char names[OPTION_HELP_SIZE];
    fill_names(names, sizeof names, o);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(text, text_size, _(o->help), names);
#pragma GCC diagnostic pop
    if (o->filled != HELP_VARIANTS) {
        /* TRANSLATORS: the default of an option that has none, at the end
         * of its help in --help, as the other options' help texts end */
        snprintf(tag, tag_size, "%s", _("(default none)"));
        return;
    }
    char given[VARIANT_NAMES_SIZE];
    names_as_given(given, sizeof given, (unsigned)o->def);
    /* TRANSLATORS: an option's default at the end of its help in --help
     * ("(default single,wrapper,fused)"), as the other options' help
     * texts end. */
    snprintf(tag, tag_size, _("(default %s)"), given);
}

void option_help_text(char *out, size_t size, const option_row *o)
{
    if (o->filled == HELP_OWN) {
        snprintf(out, size, "%s", _(o->help));
        return;
    }
    char text[OPTION_HELP_SIZE], tag[OPTION_HELP_SIZE];
    filled(text, sizeof text, tag, sizeof tag, o);
    snprintf(out, size, "%s %s", text, tag);
}

/* The cells of the n bytes at s. */
static size_t width_of(const char *s, size_t n)
{
    char buf[OPTION_HELP_SIZE];
    snprintf(buf, sizeof buf, "%.*s", (int)n, s);
    return display_width(buf);
}

/* The bytes of the UTF-8 character at s. */
static size_t char_bytes(const char *s)
{
    const unsigned char c = (unsigned char)*s;
    size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    for (size_t i = 1; i < n; i++)
        if (s[i] == '\0')
            return i;
    return n;
}

/* The bytes of the piece of text at s that a line may not break inside:
 * up to a space or the end, or through a wide character (after which a
 * line may break, as a Chinese text does). */
static size_t piece_bytes(const char *s)
{
    size_t n = 0;
    while (s[n] != '\0' && s[n] != ' ') {
        const size_t c = char_bytes(s + n);
        n += c;
        if (width_of(s + n - c, c) > 1)
            break;
    }
    return n;
}

/* One line of the help, the lines after the first indented. */
static void put_line(FILE *out, const char *line, bool *first, int column)
{
    if (!*first)
        fprintf(out, "%*s", column, "");
    *first = false;
    fprintf(out, "%s\n", line);
}

/* text broken into lines of at most OPTION_HELP_WIDTH cells, tag
 * right-aligned at the end. */
static void print_wrapped(FILE *out, const char *text, const char *tag,
                          int column)
{
    char line[OPTION_HELP_SIZE] = "", longer[OPTION_HELP_SIZE];
    bool first = true;
    for (const char *p = text; *p != '\0';) {
        const bool spaced = *p == ' ';
        p += strspn(p, " ");
        const size_t n = piece_bytes(p);
        if (n == 0)
            break;
        snprintf(longer, sizeof longer, "%s%s%.*s", line,
                 spaced && line[0] != '\0' ? " " : "", (int)n, p);
        if (line[0] != '\0' && display_width(longer) > OPTION_HELP_WIDTH) {
            put_line(out, line, &first, column);
            snprintf(line, sizeof line, "%.*s", (int)n, p);
        } else
            snprintf(line, sizeof line, "%s", longer);
        p += n;
    }
    const size_t tag_width = display_width(tag);
    size_t used = display_width(line);
    if (used > 0 && used + 2 + tag_width > OPTION_HELP_WIDTH) {
        put_line(out, line, &first, column);
        line[0] = '\0';
        used = 0;
    }
    const size_t pad = used + tag_width < OPTION_HELP_WIDTH
                           ? OPTION_HELP_WIDTH - used - tag_width
                           : (used > 0 ? 2 : 0);
    if (!first)
        fprintf(out, "%*s", column, "");
    fprintf(out, "%s%*s%s\n", line, (int)pad, "", tag);
}

void option_help_print(FILE *out, const option_row *o, int column)
{
    if (o->filled != HELP_OWN) {
        char text[OPTION_HELP_SIZE], tag[OPTION_HELP_SIZE];
        filled(text, sizeof text, tag, sizeof tag, o);
        print_wrapped(out, text, tag, column);
        return;
    }
    for (const char *line = _(o->help);;) {
        const char *end = strchr(line, '\n');
        if (end == NULL) {
            fprintf(out, "%s\n", line);
            return;
        }
        fprintf(out, "%.*s\n%*s", (int)(end - line), line, column, "");
        line = end + 1;
    }
}
