/* man_page.c: the options as a man page (man_page.h). */
#include "cli/man_page.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "base/i18n.h"
#include "cli/option_help.h"
#include "cli/option_table.h"

/* text as roff running text: a backslash as \e, a hyphen as \-, runs of
 * spaces and line breaks as one space, and no line starting with a dot
 * or a quote (which roff would read as a request). */
static void put_text(FILE *out, const char *text)
{
    bool space = false, line_start = true;
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == ' ' || *p == '\n') {
            space = true;
            continue;
        }
        if (space && !line_start)
            fputc(' ', out);
        space = false;
        if (line_start && (*p == '.' || *p == '\''))
            fputs("\\&", out);
        line_start = false;
        if (*p == '\\')
            fputs("\\e", out);
        else if (*p == '-')
            fputs("\\-", out);
        else
            fputc(*p, out);
    }
}

/* A line of running text. */
static void put_line(FILE *out, const char *text)
{
    put_text(out, text);
    fputc('\n', out);
}

/* A section heading (.SH) or a subsection's (.SS, its trailing colon,
 * ':' or the full-width U+FF1A, left out). */
static void put_heading(FILE *out, const char *request, const char *text)
{
    static const char wide_colon[] = "\xef\xbc\x9a";
    size_t n = strlen(text);
    for (;;) {
        if (n > 0 &&
            (text[n - 1] == ':' || isspace((unsigned char)text[n - 1])))
            n--;
        else if (n >= 3 && memcmp(text + n - 3, wide_colon, 3) == 0)
            n -= 3;
        else
            break;
    }
    fprintf(out, "%s \"%.*s\"\n", request, (int)n, text);
}

/* One option: its name in bold and its value's name in italics (.TP),
 * then its help. */
static void put_option(FILE *out, const option_row *o)
{
    fputs(".TP\n", out);
    if (o->short_name != 0)
        fprintf(out, "\\fB\\-%c\\fR, ", o->short_name);
    fputs("\\fB\\-\\-", out);
    put_text(out, o->name);
    fputs("\\fR", out);
    if (o->value != NULL) {
        fputs(" \\fI", out);
        put_text(out, _(o->value));
        fputs("\\fR", out);
    }
    fputc('\n', out);
    char help[OPTION_HELP_SIZE];
    option_help_text(help, sizeof help, o);
    put_line(out, help);
}

/* The synopsis: the three forms of a run, as --help's usage gives
 * them. */
static void put_synopsis(FILE *out)
{
    const char *opts = _("OPTIONS"), *file = _("FILE");
    fprintf(out, ".B mha-explain\n[\\fI%s\\fR] \\fI%s\\fR...\n.br\n", opts,
            _("SENTENCE"));
    fprintf(out,
            ".B mha-explain\n[\\fI%s\\fR] \\fB\\-\\-embeddings\\fR "
            "\\fI%s.csv\\fR\n.br\n",
            opts, file);
    fprintf(out,
            ".B mha-explain\n[\\fI%s\\fR] \\fB\\-\\-input\\fR \\fI%s.csv\\fR "
            "\\fB\\-\\-column\\fR \\fI%s\\fR\n",
            opts, file, _("NAME"));
}

void options_print_man(FILE *out)
{
    // the text is UTF-8: man's preconv reads this line
    fputs(".\\\" -*- coding: UTF-8 -*-\n", out);
    fprintf(out, ".TH MHA-EXPLAIN 1 \"\" \"mha-explain %s\" \"%s\"\n",
            MHA_VERSION,
            /* TRANSLATORS: the man page's header, as man pages of
             * section 1 name their section in the language. */
            _("User Commands"));
    fputs(".nh\n.ad l\n", out);
    /* TRANSLATORS: a man page's section headings (NAME, SYNOPSIS, ...),
     * upper case where the language has it, as the language's man pages
     * write them; NAME is also the name of --column's value in --help. */
    put_heading(out, ".SH", _("NAME"));
    fputs("mha-explain \\- ", out);
    put_line(out, _("show every table inside multi-head attention, with "
                    "PyTorch's numbers"));
    put_heading(out, ".SH", _("SYNOPSIS"));
    put_synopsis(out);
    put_heading(out, ".SH", _("DESCRIPTION"));
    fprintf(out, "\\fI%s\\fR ", _("SENTENCE"));
    put_line(out, _("is every argument that is not an option, joined by "
                    "spaces; a single - reads it from standard input."));
    fputs(".PP\n", out);
    put_line(out, _("This page lists the options, as --help does. The "
                    "whole manual, with the tables, the output formats, "
                    "the files and examples, is the English page: man -L "
                    "en mha-explain."));
    put_heading(out, ".SH", _("OPTIONS"));
    for (int s = 0; s < N_SECTIONS; s++) {
        const char *heading = option_section_heading((enum help_section)s);
        if (heading != NULL)
            put_heading(out, ".SS", _(heading));
        for (int id = 0; id < N_OPTIONS; id++)
            if (option_rows[id].section == (enum help_section)s)
                put_option(out, &option_rows[id]);
    }
    put_heading(out, ".SH", _("EXIT STATUS"));
    put_line(out, _("0 success, 1 the output could not be written, 2 bad "
                    "usage or input, 3 a --check failed."));
    put_heading(out, ".SH", _("SEE ALSO"));
    put_line(out, _("the English manual, man -L en mha-explain; in the "
                    "sources, docs/cli.md, docs/guide.md and "
                    "docs/models.md."));
}
