/* table_hint.c: the guesses of --tables' refusals (table_hint.h). */
#include "cli/table_hint.h"

#include <stdint.h>
#include <string.h>

#include "base/edit_distance.h"

const char *table_name_guess(const char *name)
{
    char said[EDIT_NAME_MAX + 1];
    const size_t n = strlen(name);
    if (n == 0 || n > EDIT_NAME_MAX)
        return NULL;
    for (size_t i = 0; i <= n; i++) {
        char c = name[i];
        said[i] = c == '-' ? '_' : (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
    }
    const char *best = NULL;
    size_t best_distance = SIZE_MAX;
    bool tied = false;
    for (size_t id = 0; id < TABLE_COUNT; id++) {
        const char *row = table_info_of((table_id)id)->name;
        if (row[0] == '\0')
            continue;
        const size_t d = edit_distance(said, row);
        if (d == best_distance)
            tied = true;
        if (d < best_distance) {
            best = row;
            best_distance = d;
            tied = false;
        }
    }
    const size_t limit = n <= 5 ? 1 : 2;
    return best_distance <= limit && !tied ? best : NULL;
}

const option_row *table_option_missing(const options *opt, table_id id)
{
    // where this run is: a checkpoint's, or the lesson's variants
    const unsigned here =
        opt->model != NULL ? APPLIES_CHECKPOINT : opt->variants;
    for (size_t o = 0; o < N_OPTIONS; o++)
        if ((option_rows[o].makes & table_bit(id)) != 0 && !opt->given[o] &&
            (option_applies(&option_rows[o]) & here) != 0)
            return &option_rows[o];
    return NULL;
}
