/* safetensors_set.c: one safetensors file or the shards of an index
 * (safetensors_set.h). */
#include "io/safetensors_set.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "io/file_read.h"
#include "io/json.h"

static char *join(const char *dir, const char *name)
{
    const size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p != NULL)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* Opens the file name of dir as the set's next file. */
static int add_file(safetensors_set *s, const char *dir, const char *name,
                    mx_error *err)
{
    char *path = join(dir, name);
    if (path == NULL)
        return err_nomem(err, dir);
    s->paths[s->n_files] = path;
    if (safetensors_open(&s->files[s->n_files], path, err) != 0) {
        free(path);
        s->paths[s->n_files] = NULL;
        return -1;
    }
    s->n_files++;
    return 0;
}

static int room(safetensors_set *s, size_t n, const char *dir, mx_error *err)
{
    s->files = calloc(n, sizeof *s->files);
    s->paths = calloc(n, sizeof *s->paths);
    if (s->files == NULL || s->paths == NULL)
        return err_nomem(err, dir);
    return 0;
}

/* The index's distinct file names, in first-seen order, opened; then
 * every entry checked against its file. */
static int open_index(safetensors_set *s, const char *dir,
                      const char *index_path, const json_doc *doc,
                      mx_error *err)
{
    const json_node *map = json_get(doc, json_root(doc), "weight_map");
    if (json_root(doc)->type != JSON_OBJECT || map == NULL ||
        map->type != JSON_OBJECT)
        return err_input(err, _("%s: weight_map must be an object"),
                         index_path);
    const char *twice;
    const int repeated = json_repeated_key(&twice, doc, map);
    if (repeated != 0)
        return repeated > 0
                   ? err_input(err,
                               _("%s: tensor %s appears twice in weight_map"),
                               index_path, twice)
                   : err_nomem(err, index_path);
    size_t distinct = 0;
    const char **names = calloc(map->len ? map->len : 1, sizeof *names);
    if (names == NULL)
        return err_nomem(err, index_path);
    int rc = 0;
    for (const json_node *m = json_first(doc, map); m && rc == 0;
         m = json_next(doc, m)) {
        if (m->type != JSON_STRING) {
            rc = err_input(err, _("%s: weight_map: %s must name a file"),
                           index_path, json_key(doc, m));
            break;
        }
        const char *file = json_str(doc, m);
        if (file[0] == '\0' || file[0] == '.' || strchr(file, '/') != NULL) {
            rc = err_input(
                err, _("%s: weight_map names %s, not a file of the folder"),
                index_path, file);
            break;
        }
        size_t k = 0;
        while (k < distinct && strcmp(names[k], file) != 0)
            k++;
        if (k == distinct) {
            if (distinct == SAFETENSORS_MAX_SHARDS) {
                rc = err_input(err, _("%s: more than %d files"), index_path,
                               SAFETENSORS_MAX_SHARDS);
                break;
            }
            names[distinct++] = file;
        }
    }
    if (rc == 0 && distinct == 0)
        rc = err_input(err, _("%s: weight_map names no tensor"), index_path);
    if (rc == 0)
        rc = room(s, distinct, dir, err);
    for (size_t k = 0; rc == 0 && k < distinct; k++)
        rc = add_file(s, dir, names[k], err);
    free(names);
    // every entry in its file, no tensor in two files
    for (const json_node *m = json_first(doc, map); m && rc == 0;
         m = json_next(doc, m)) {
        const char *name = json_key(doc, m), *file = json_str(doc, m);
        const char *first = NULL;
        size_t found = 0;
        for (size_t k = 0; k < s->n_files && rc == 0; k++) {
            if (safetensors_find(&s->files[k], name) == NULL)
                continue;
            const char *here = strrchr(s->paths[k], '/') + 1;
            if (found++ > 0)
                rc = err_input(err,
                               _("%s: tensor %s is in two files, %s and %s"),
                               index_path, name, first, here);
            else if (strcmp(here, file) != 0)
                rc = err_input(
                    err, _("%s: tensor %s is in %s, but weight_map names %s"),
                    index_path, name, here, file);
            first = here;
        }
        if (rc == 0 && found == 0)
            rc = err_input(err, _("%s: tensor %s is not in %s"), index_path,
                           name, file);
    }
    return rc;
}

/* Refuses dir, which has neither model.safetensors nor its shards'
 * index: a folder with PyTorch's pickle alone is told to convert it. */
static int no_safetensors(const char *dir, mx_error *err)
{
    char *bin = join(dir, "pytorch_model.bin");
    char *bin_index = join(dir, "pytorch_model.bin.index.json");
    if (bin == NULL || bin_index == NULL) {
        free(bin);
        free(bin_index);
        return err_nomem(err, dir);
    }
    const char *pickle = file_present(bin) ? "pytorch_model.bin"
                         : file_present(bin_index)
                             ? "pytorch_model.bin.index.json"
                             : NULL;
    free(bin);
    free(bin_index);
    if (pickle != NULL)
        return err_input(err,
                         _("%s: has %s, which this program does not read: "
                           "convert it to model.safetensors (docs/models.md, "
                           "\"Converting a repository without safetensors\")"),
                         dir, pickle);
    return err_input(err,
                     _("%s: has no model.safetensors (nor "
                       "model.safetensors.index.json)"),
                     dir);
}

int safetensors_set_open(safetensors_set *s, const char *dir, mx_error *err)
{
    *s = (safetensors_set){0};
    char *single = join(dir, "model.safetensors");
    char *index = join(dir, "model.safetensors.index.json");
    int rc = -1;
    if (single == NULL || index == NULL) {
        err_nomem(err, dir);
        goto out;
    }
    if (!file_present(single) && !file_present(index))
        rc = no_safetensors(dir, err);
    else if (file_present(single)) {
        // one file
        if (room(s, 1, dir, err) == 0)
            rc = add_file(s, dir, "model.safetensors", err);
    } else {
        char *text = NULL;
        size_t len = 0;
        json_doc doc;
        if (file_read_small(&text, &len, index, (size_t)64 << 20, err) == 0) {
            if (json_parse(&doc, text, len, index, err) == 0) {
                rc = open_index(s, dir, index, &doc, err);
                json_free(&doc);
            }
            free(text);
        }
    }
    if (rc == 0)
        s->shown = s->paths[0];
out:
    free(single);
    free(index);
    if (rc != 0)
        safetensors_set_close(s);
    return rc;
}

void safetensors_set_close(safetensors_set *s)
{
    for (size_t k = 0; k < s->n_files; k++)
        safetensors_close(&s->files[k]);
    if (s->paths != NULL)
        for (size_t k = 0; k < s->n_files; k++)
            free(s->paths[k]);
    free(s->files);
    free(s->paths);
    *s = (safetensors_set){0};
}

const st_tensor *safetensors_set_find(const safetensors_set *s,
                                      const char *name, const safetensors **in)
{
    for (size_t k = 0; k < s->n_files; k++) {
        const st_tensor *t = safetensors_find(&s->files[k], name);
        if (t != NULL) {
            if (in != NULL)
                *in = &s->files[k];
            return t;
        }
    }
    return NULL;
}

size_t safetensors_set_count(const safetensors_set *s)
{
    size_t n = 0;
    for (size_t k = 0; k < s->n_files; k++)
        n += s->files[k].n;
    return n;
}
