/* edit_distance.c: the edits between two short names (edit_distance.h). */
#include "base/edit_distance.h"

#include <stdint.h>
#include <string.h>

size_t edit_distance(const char *a, const char *b)
{
    size_t rows[3][EDIT_NAME_MAX + 1]; /* rows i - 2, i - 1 and i */
    const size_t la = strlen(a), lb = strlen(b);
    if (la > EDIT_NAME_MAX || lb > EDIT_NAME_MAX)
        return SIZE_MAX;
    for (size_t j = 0; j <= lb; j++)
        rows[1][j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t *older = rows[0], *prev = rows[1], *cur = rows[2];
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
                a[i - 2] == b[j - 1] && older[j - 2] + 1 < best)
                best = older[j - 2] + 1;
            cur[j] = best;
        }
        memcpy(rows[0], rows[1], sizeof rows[0]);
        memcpy(rows[1], rows[2], sizeof rows[1]);
    }
    return rows[1][lb];
}
