/* man_page.h: the options as a man page (--man), in the reader's
 * language.
 *
 * The page is made from the option rows (option_list.h), as --help is:
 * its sections' headings, each option with its value's name and its help
 * text, all translated; around them the name, the synopsis, a
 * description that points to the whole English manual
 * (docs/mha-explain.1), the exit status and where to read more. The
 * build writes one per language of po/LINGUAS, installed under
 * share/man/LANG/man1/ (docs/man/meson.build).
 */
#ifndef MHA_MAN_PAGE_H
#define MHA_MAN_PAGE_H

#include <stdio.h>

/* The page, roff for man(7), to out. */
void options_print_man(FILE *out);

#endif
