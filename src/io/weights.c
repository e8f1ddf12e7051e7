/* weights.c: loading parameter files over the seeded parameters. */
#include "io/weights.h"

#include "cli/i18n.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Nonzero when path exists; -1 with err set when it cannot be checked. */
static int file_exists(const char *path, mx_error *err)
{
    struct stat st;
    if (stat(path, &st) == 0)
        return 1;
    if (errno == ENOENT)
        return 0;
    return err_input(err, "%s: %s", path, strerror(errno));
}

/* Where a module's parameter files are read from. */
typedef struct {
    const char *dir, *variant;
    const csv_style *style;
    mx_error *err;
} weights_source;

/* A param_fn: reads <dir>/<variant>.<name>.csv into the parameter when
 * the file is present. ctx is a weights_source. */
static int load_param(const param_info *p, void *ctx)
{
    const weights_source *src = ctx;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s.csv", src->dir, src->variant,
             p->name);
    int found = file_exists(path, src->err);
    if (found <= 0)
        return found;
    if (!p->present)
        return err_input(src->err,
                         _("%s: the %s module's %s has no bias (W_query, "
                           "W_key and W_value have one only with --qkv-bias)"),
                         path, src->variant, p->layer);
    return read_weight_matrix(p->value, path, src->style, src->err);
}

int weights_load(unsigned variant, const model_dims *dims, void *module,
                 const char *dir, const csv_style *style, mx_error *err)
{
    weights_source src = {dir, variant_id_name(variant_of_bit(variant)), style,
                          err};
    return model_params_each(variant, dims, module, load_param, &src);
}

/* ---- checking the directory ------------------------------------------ */

/* What a file's layer matched in a module's parameters. */
typedef struct {
    const char *layer; /* between "<variant>." and ".weight.csv" */
    bool found, tied;
} layer_match;

/* A param_fn: notes whether p belongs to the layer sought. */
static int match_layer(const param_info *p, void *ctx)
{
    layer_match *m = ctx;
    if (strcmp(p->layer, m->layer) == 0) {
        m->found = true;
        m->tied = m->tied || p->tied;
    }
    return 0;
}

static int ends_with(const char *s, const char *suffix, size_t *stem)
{
    size_t a = strlen(s), b = strlen(suffix);
    if (a < b || strcmp(s + a - b, suffix) != 0)
        return 0;
    *stem = a - b;
    return 1;
}

/* ends_with, ignoring the case of ASCII letters. */
static int ends_with_any_case(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    if (a < b)
        return 0;
    for (size_t i = 0; i < b; i++) {
        char c = s[a - b + i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != suffix[i])
            return 0;
    }
    return 1;
}

/* A parameter file that cannot be read (a dangling symlink, a folder)
 * is an error, never a reason to fall back on seeded values. */
static int readable(const char *dir, const char *name, mx_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    if (stat(path, &st) != 0) {
        err_input(err, _("%s: cannot open: %s"), path, strerror(errno));
        return 0;
    }
    if (!S_ISREG(st.st_mode)) {
        err_input(err, _("%s: not a regular file"), path);
        return 0;
    }
    return 1;
}

int weights_check_dir(const char *dir, unsigned variants, size_t heads,
                      bool tie, mx_error *err)
{
    // names only: the shapes of the listed parameters are not used
    const model_dims dims = {.heads = heads};
    DIR *d = opendir(dir);
    if (d == NULL)
        return err_input(err, _("--weights: cannot open %s: %s"), dir,
                         strerror(errno));
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        size_t stem;
        if (!ends_with(e->d_name, ".weight.csv", &stem) &&
            !ends_with(e->d_name, ".bias.csv", &stem)) {
            /* "X.weight.CSV" would be read by no one: say so */
            if (ends_with_any_case(e->d_name, ".weight.csv") ||
                ends_with_any_case(e->d_name, ".bias.csv"))
                rc = err_input(err,
                               _("%s/%s: parameter files end in "
                                 "'.weight.csv' or '.bias.csv', in lower case"),
                               dir, e->d_name);
            continue;
        }
        /* hidden files (an editor's, a backup) are not read; --csv-dir's
         * input.embedding.weight.csv is the seeded table, not a module's:
         * read by --embeddings, never by --weights */
        const char *input = variant_id_name(VARIANT_INPUT);
        if (e->d_name[0] == '.' ||
            (strncmp(e->d_name, input, strlen(input)) == 0 &&
             e->d_name[strlen(input)] == '.'))
            continue;
        bool known = false;
        for (size_t i = 0; i < MODEL_N_VARIANTS && rc == 0; i++) {
            // files of a variant start with its name and a dot
            const variant_info *v = &model_variants[i];
            const size_t vlen = strlen(v->name);
            if (strncmp(e->d_name, v->name, vlen) != 0 ||
                e->d_name[vlen] != '.' || stem <= vlen + 1)
                continue;
            known = true;
            /* a module this run does not include: its files wait */
            if (!(variants & v->bit))
                continue;
            char layer[256];
            snprintf(layer, sizeof layer, "%.*s", (int)(stem - vlen - 1),
                     e->d_name + vlen + 1);
            layer_match m = {layer, false, false};
            model_params_each(v->bit, &dims, NULL, match_layer, &m);
            if (!m.found)
                rc = err_input(err,
                               _("%s/%s: the %s module has no layer "
                                 "'%s' (with --heads %zu)"),
                               dir, e->d_name, v->name, layer, heads);
            else if (!readable(dir, e->d_name, err))
                rc = -1;
            else if (tie && m.tied)
                rc = err_input(err,
                               _("%s/%s: --tie builds the fused %s from "
                                 "the wrapper's heads; give the wrapper's "
                                 "files instead, or leave out --tie"),
                               dir, e->d_name, layer);
        }
        if (rc == 0 && !known)
            rc = err_input(err,
                           _("%s/%s: a parameter file's name starts with "
                             "its module: single, wrapper, fused or block"),
                           dir, e->d_name);
    }
    closedir(d);
    return rc;
}
