/* model_type.c: the model_type of a checkpoint's config.json
 * (model_type.h). */
#include "io/model_type.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/file_read.h"
#include "io/json.h"

model_type_found read_model_type(char *type, size_t n, const char *dir)
{
    type[0] = '\0';
    const size_t len = strlen(dir) + sizeof "/config.json";
    char *path = malloc(len);
    if (path == NULL)
        return MODEL_TYPE_NONE;
    snprintf(path, len, "%s/config.json", dir);
    char *text = NULL;
    size_t size = 0;
    mx_error err;
    model_type_found found = MODEL_TYPE_NONE;
    json_doc doc;
    if (file_read_small(&text, &size, path, (size_t)1 << 20, &err) == 0 &&
        json_parse(&doc, text, size, path, &err) == 0) {
        const json_node *root = json_root(&doc);
        const json_node *t = root->type == JSON_OBJECT
                                 ? json_get(&doc, root, "model_type")
                                 : NULL;
        if (t != NULL && t->type == JSON_STRING) {
            snprintf(type, n, "%s", json_str(&doc, t));
            for (char *c = type; *c != '\0'; c++)
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                    *c = '?';
            found = MODEL_TYPE_NAMED;
        } else if (t != NULL)
            found = MODEL_TYPE_NOT_STRING;
        json_free(&doc);
    }
    free(text);
    free(path);
    return found;
}
