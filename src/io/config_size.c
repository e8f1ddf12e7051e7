/* config_size.c: a size key of a checkpoint's config.json
 * (config_size.h). */
#include "io/config_size.h"

#include <math.h>

#include "base/i18n.h"

int config_size_key(size_t *out, const json_doc *doc, const json_node *n,
                    const char *key, const char *path, mx_error *err)
{
    const size_t most =
        CONFIG_SIZE_MAX < SIZE_MAX ? (size_t)CONFIG_SIZE_MAX : SIZE_MAX;
    // a whole number past the largest: 1e12, 4294967297, 2^63
    if (n != NULL && n->type == JSON_NUMBER && n->number > (double)most &&
        n->number == floor(n->number))
        /* TRANSLATORS: the first %s is the file, the second the key;
         * then the value as the file writes it, and the largest value
         * taken */
        return err_input(err, _("%s: %s is %.*s, too large (at most %zu)"),
                         path, key, (int)n->len, json_str(doc, n), most);
    if (!json_size(n, most, out) || *out == 0)
        return err_input(err, _("%s: %s must be a positive whole number"), path,
                         key);
    return 0;
}
