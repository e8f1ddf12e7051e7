/* csv_guard.c: the apostrophe before a CSV text cell that a spreadsheet
 * would read as a formula (csv_guard.h). */
#include "base/csv_guard.h"

#include <string.h>

bool csv_guard_needed(const char *s)
{
    s += strspn(s, "'");
    return *s != '\0' && strchr("=+-@\t\r", *s) != NULL;
}

const char *csv_unguard(const char *s)
{
    return s[0] == '\'' && csv_guard_needed(s + 1) ? s + 1 : s;
}
