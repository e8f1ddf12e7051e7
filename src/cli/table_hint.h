/* table_hint.h: what --tables' refusals suggest: the catalogue's name
 * most likely meant by a mistyped one, and the option that makes a
 * table this run does not make (its row's .makes, option_list.h). */
#ifndef MHA_TABLE_HINT_H
#define MHA_TABLE_HINT_H

#include "cli/options.h"

/* The catalogue's table name (catalogue.h) that name most likely meant,
 * or NULL: the one name nearest to it, read in lower case with '-' as
 * '_', at most 2 edits away (1 for a name of up to 5 letters), when no
 * other name is as near. */
const char *table_name_guess(const char *name);

/* The option (its row) that makes table id, that opt does not give and
 * that applies where opt's run is (a checkpoint, or the lesson's
 * variants opt runs), the first in --help's order, or NULL. */
const option_row *table_option_missing(const options *opt, table_id id);

#endif
