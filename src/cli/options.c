/* options.c: what an options struct owns, freed, and the --tables
 * filter (options.h); option_parse.c fills the struct from the command
 * line. */
#include "cli/options.h"

#include <stdlib.h>
#include <string.h>

#include "cli/intervene_options.h"

void options_free(options *opt)
{
    if (opt == NULL)
        return;
    for (size_t i = 0; i < opt->n_tables; i++)
        free(opt->tables[i]);
    free(opt->tables);
    table_list_free(&opt->tables_read);
    free(opt->sentence);
    interventions_free(opt);
    free(opt->layer_list);
    free(opt->head_list);
    opt->layer_list = opt->head_list = NULL;
    opt->n_layer_list = opt->n_head_list = 0;
    opt->tables = NULL;
    opt->n_tables = 0;
    opt->sentence = NULL;
}

int options_wants_table(const options *opt, const char *name)
{
    if (opt->tables == NULL) {
        // the pictures' and the page's tables only when named
        const table_id id = table_by_name(name, strlen(name));
        return id == TABLE_COUNT || !(ON_REQUEST_TABLES & table_bit(id));
    }
    for (size_t i = 0; i < opt->n_tables; i++)
        if (strcmp(opt->tables[i], name) == 0)
            return 1;
    return 0;
}
