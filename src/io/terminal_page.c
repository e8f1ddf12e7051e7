/* terminal_page.c: io/terminal.h for the page's WebAssembly core
 * (src/wasm/meson.build names it in terminal.c's place). The page is no
 * terminal: no colour, 80 columns and 24 rows, the native functions'
 * answers when standard output is not a terminal and neither COLUMNS nor
 * LINES is set. */
#include "io/terminal.h"

bool terminal_color(void)
{
    return false;
}

bool terminal_truecolor(void)
{
    return false;
}

size_t terminal_columns(size_t max)
{
    (void)max;
    return 80;
}

size_t terminal_rows(void)
{
    return 24;
}
