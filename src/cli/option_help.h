/* option_help.h: an option's help in the reader's language, as --help
 * prints it and the man page tells it. Most rows' help is their own text,
 * wrapped by hand in each language; a row whose help names other rows
 * (option_table.h's help_fill: --variant the variant rows of VARIANT_LIST,
 * --model and --pair the family rows of model/family.h) is filled from
 * them and its own default, then wrapped here, so that a new variant or
 * family is named in every language without a new message.
 */
#ifndef MHA_OPTION_HELP_H
#define MHA_OPTION_HELP_H

#include <stddef.h>
#include <stdio.h>

#include "cli/option_table.h"

/* The most a help text takes, filled, in bytes. */
#define OPTION_HELP_SIZE 1024

/* The widest a filled help's line is, in terminal cells from where the
 * help starts: the right edge of its default, as the texts wrapped by
 * hand place theirs. */
#define OPTION_HELP_WIDTH 57

/* o's help as one text, in the reader's language, into out (size bytes):
 * the row's own, or, filled, its text with the names of the rows it
 * names (every variant, "single, wrapper, fused, block" as the language
 * lists them; the checkpoint families, "GPT-2 (gpt2), ..."), then a
 * space and its default ("(default single,wrapper,fused)", the names as
 * --variant takes them; "(default none)"). The row must have a help (not
 * the page's core, which has none). */
void option_help_text(char *out, size_t size, const option_row *o);

/* o's help as --help prints it: from the current column to the line's
 * end, each further line indented by `column` spaces. A row's own text
 * keeps its lines; a filled one is broken into lines of at most
 * OPTION_HELP_WIDTH cells, at spaces and after wide characters (a
 * Chinese text has no spaces), its default right-aligned at the end of
 * the last line, or on a line of its own when it does not fit there. */
void option_help_print(FILE *out, const option_row *o, int column);

#endif
