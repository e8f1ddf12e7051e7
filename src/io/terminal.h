/* terminal.h: what the terminal on standard output can show: colour, and
 * how wide and tall it is. */
#ifndef MHA_TERMINAL_H
#define MHA_TERMINAL_H

#include <stdbool.h>
#include <stddef.h>

/* --color auto: shading only on a terminal, and not when NO_COLOR is set
 * (not empty) or TERM is dumb. */
bool terminal_color(void);

/* Terminals that draw 24-bit colour say so in COLORTERM. */
bool terminal_truecolor(void);

/* The terminal's width when standard output is one, else $COLUMNS (a
 * whole number from 1 to max), else 80 as PyTorch's linewidth. */
size_t terminal_columns(size_t max);

/* The terminal's height when standard output is one, else $LINES, else
 * 24: output with as many lines goes through the pager. */
size_t terminal_rows(void);

#endif
