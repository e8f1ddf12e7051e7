/* csv_dir_stale.c: the files of --csv-dir's folder another run left
 * there (csv_dir_stale.h). */
#include "cli/csv_dir_stale.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "io/folder_list.h"

/* How many of the names the warning writes out. */
#define NAMES_SHOWN 5

static bool ends_with(const char *s, const char *end)
{
    const size_t n = strlen(s), k = strlen(end);
    return n >= k && strcmp(s + n - k, end) == 0;
}

/* Whether file is named as a --csv-dir run names a table,
 * "<variant or family>.<table>.csv" (render_csvdir.c): a name with a dot
 * before ".csv", so that a user's "corpus.csv" beside them is not one. */
static bool csv_table_name(const char *file)
{
    if (!ends_with(file, ".csv"))
        return false;
    const char *dot = strchr(file, '.');
    return dot > file && dot < file + strlen(file) - 4;
}

/* Whether name ("file" or "folder/file") is where a --csv-dir run puts
 * a file: a table or model.json, in DIR or in a folder sentence<k>. */
static bool csv_dir_kind(const char *name)
{
    const char *slash = strchr(name, '/');
    if (slash != NULL) {
        static const char folder[] = "sentence";
        const size_t k = sizeof folder - 1;
        if (strncmp(name, folder, k) != 0)
            return false;
        const size_t digits = strspn(name + k, "0123456789");
        if (digits == 0 || name + k + digits != slash)
            return false;
    }
    const char *file = slash != NULL ? slash + 1 : name;
    return csv_table_name(file) || strcmp(file, "model.json") == 0;
}

void csv_dir_warn_stale(FILE *out, const csv_dir_set *set)
{
    char **names = NULL;
    size_t n = 0, stale = 0;
    mx_error err;
    // a warning only: a folder that cannot be listed now says nothing
    if (set == NULL || folder_list(&names, &n, csv_dir_path(set), &err) != 0)
        return;
    for (size_t i = 0; i < n; i++)
        if (csv_dir_kind(names[i]) && !csv_dir_wrote(set, names[i]))
            names[stale++] = names[i];
        else
            free(names[i]);
    if (stale > 0) {
        fprintf(out,
                ngettext("mha-explain: warning: %s holds %zu file this run "
                         "did not write, left by another run:",
                         "mha-explain: warning: %s holds %zu files this run "
                         "did not write, left by other runs:",
                         stale),
                csv_dir_path(set), stale);
        for (size_t i = 0; i < stale && i < NAMES_SHOWN; i++)
            fprintf(out, " %s", names[i]);
        fputs(stale > NAMES_SHOWN ? " ...\n" : "\n", out);
    }
    folder_list_free(names, stale);
}
