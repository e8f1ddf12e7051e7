/* terminal.c: probing the terminal on standard output. */
#include "io/terminal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

bool terminal_color(void)
{
    const char *no_color = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    if (no_color != NULL && no_color[0] != '\0')
        return false;
    if (term != NULL && strcmp(term, "dumb") == 0)
        return false;
    return isatty(STDOUT_FILENO);
}

bool terminal_truecolor(void)
{
    const char *c = getenv("COLORTERM");
    return c != NULL &&
           (strcmp(c, "truecolor") == 0 || strcmp(c, "24bit") == 0);
}

size_t terminal_columns(size_t max)
{
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
        ws.ws_col > 0)
        return ws.ws_col;
    const char *columns = getenv("COLUMNS");
    if (columns != NULL && columns[0] >= '1' && columns[0] <= '9') {
        char *end = NULL;
        unsigned long n = strtoul(columns, &end, 10);
        if (*end == '\0' && n <= max)
            return n;
    }
    return 80;
}

size_t terminal_rows(void)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0)
        return ws.ws_row;
    const char *lines = getenv("LINES");
    if (lines != NULL && lines[0] >= '1' && lines[0] <= '9')
        return strtoul(lines, NULL, 10);
    return 24;
}
