/* config_flag.c: a true-or-false key of a checkpoint's config.json
 * (config_flag.h). */
#include "io/config_flag.h"

#include "base/i18n.h"

int config_flag(bool *out, const json_doc *doc, const char *key, bool fallback,
                const char *path, mx_error *err)
{
    const json_node *n = json_get(doc, json_root(doc), key);
    *out = fallback;
    if (n == NULL)
        return 0;
    if (n->type != JSON_BOOL)
        /* TRANSLATORS: the first %s is the file, the second the key */
        return err_input(err, _("%s: %s must be true or false"), path, key);
    *out = n->number != 0;
    return 0;
}

int config_refuse_flags(const json_doc *doc, const char *const *keys, size_t n,
                        const char *path, mx_error *err)
{
    for (size_t i = 0; i < n; i++) {
        bool on;
        if (config_flag(&on, doc, keys[i], false, path, err) != 0)
            return -1;
        if (on)
            return err_input(err, _("%s: %s is not supported"), path, keys[i]);
    }
    return 0;
}
