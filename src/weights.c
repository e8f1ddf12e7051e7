/* weights.c: loading parameter files over the seeded parameters. */
#include "weights.h"

#include "i18n.h"
#include "options.h"

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

/* Loads <dir>/<variant>.<name>.weight.csv and .bias.csv into l when they
 * are present. */
static int load_layer(linear *l, const char *dir, const char *variant,
                      const char *name, const csv_style *style, mx_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s.weight.csv", dir, variant, name);
    int found = file_exists(path, err);
    if (found < 0 ||
        (found && read_weight_matrix(&l->weight, path, style, err) != 0))
        return -1;

    snprintf(path, sizeof path, "%s/%s.%s.bias.csv", dir, variant, name);
    found = file_exists(path, err);
    if (found < 0)
        return -1;
    if (found && l->bias.v == NULL)
        return err_input(err,
                         _("%s: the %s module's %s has no bias (W_query, "
                           "W_key and W_value have one only with --qkv-bias)"),
                         path, variant, name);
    if (found && read_weight_matrix(&l->bias, path, style, err) != 0)
        return -1;
    return 0;
}

static int load_qkv(qkv *p, const char *dir, const char *variant,
                    const char *prefix, const csv_style *style, mx_error *err)
{
    char name[48];
    snprintf(name, sizeof name, "%sW_query", prefix);
    if (load_layer(&p->query, dir, variant, name, style, err) != 0)
        return -1;
    snprintf(name, sizeof name, "%sW_key", prefix);
    if (load_layer(&p->key, dir, variant, name, style, err) != 0)
        return -1;
    snprintf(name, sizeof name, "%sW_value", prefix);
    return load_layer(&p->value, dir, variant, name, style, err);
}

int weights_load_single(single_params *p, const char *dir,
                        const csv_style *style, mx_error *err)
{
    return load_qkv(&p->attn, dir, "single", "", style, err);
}

int weights_load_wrapper(wrapper_params *p, const char *dir,
                         const csv_style *style, mx_error *err)
{
    for (size_t h = 0; h < p->heads; h++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "heads.%zu.", h);
        if (load_qkv(&p->head[h], dir, "wrapper", prefix, style, err) != 0)
            return -1;
    }
    return 0;
}

int weights_load_fused(fused_params *p, const char *dir, const csv_style *style,
                       mx_error *err)
{
    if (load_qkv(&p->attn, dir, "fused", "", style, err) != 0)
        return -1;
    return load_layer(&p->out_proj, dir, "fused", "out_proj", style, err);
}

/* block.norm1.weight.csv and block.norm1.bias.csv, each (1, D). */
static int load_norm(matrix *weight, matrix *bias, const char *dir,
                     const char *name, const csv_style *style, mx_error *err)
{
    char path[4096];
    matrix *parts[2] = {weight, bias};
    const char *suffix[2] = {"weight", "bias"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/block.%s.%s.csv", dir, name, suffix[i]);
        int found = file_exists(path, err);
        if (found < 0 ||
            (found && read_weight_matrix(parts[i], path, style, err) != 0))
            return -1;
    }
    return 0;
}

int weights_load_block(block_params *p, const char *dir, const csv_style *style,
                       mx_error *err)
{
    if (load_qkv(&p->attention.attn, dir, "block", "attention.", style, err) !=
            0 ||
        load_layer(&p->attention.out_proj, dir, "block", "attention.out_proj",
                   style, err) != 0 ||
        load_norm(&p->norm1_weight, &p->norm1_bias, dir, "norm1", style, err) !=
            0 ||
        load_layer(&p->ff0, dir, "block", "ff.0", style, err) != 0 ||
        load_layer(&p->ff2, dir, "block", "ff.2", style, err) != 0)
        return -1;
    return load_norm(&p->norm2_weight, &p->norm2_bias, dir, "norm2", style,
                     err);
}

/* ---- checking the directory ------------------------------------------ */

static int is_qkv(const char *layer)
{
    return strcmp(layer, "W_query") == 0 || strcmp(layer, "W_key") == 0 ||
           strcmp(layer, "W_value") == 0;
}

/* Nonzero when `layer` (the part between "<variant>." and
 * ".weight.csv") is a layer of the variant. */
static int known_layer(unsigned variant, const char *layer, size_t heads)
{
    if (variant == VARIANT_SINGLE)
        return is_qkv(layer);
    if (variant == VARIANT_FUSED)
        return is_qkv(layer) || strcmp(layer, "out_proj") == 0;
    if (variant == VARIANT_BLOCK)
        return (strncmp(layer, "attention.", 10) == 0 &&
                (is_qkv(layer + 10) || strcmp(layer + 10, "out_proj") == 0)) ||
               strcmp(layer, "norm1") == 0 || strcmp(layer, "norm2") == 0 ||
               strcmp(layer, "ff.0") == 0 || strcmp(layer, "ff.2") == 0;
    /* wrapper: heads.N.W_query ... with N < heads */
    if (strncmp(layer, "heads.", 6) != 0)
        return 0;
    char *end;
    const char *digits = layer + 6;
    if (*digits < '0' || *digits > '9')
        return 0;
    if (digits[0] == '0' && digits[1] != '.') /* "01" is not a head */
        return 0;
    unsigned long h = strtoul(digits, &end, 10);
    return *end == '.' && h < heads && is_qkv(end + 1);
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
        for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
            // files of a variant start with its name and a dot
            const variant_info *v = &model_variants[i];
            const size_t vlen = strlen(v->name);
            if (!(variants & v->bit) ||
                strncmp(e->d_name, v->name, vlen) != 0 ||
                e->d_name[vlen] != '.' || stem <= vlen + 1)
                continue;
            char layer[256];
            snprintf(layer, sizeof layer, "%.*s", (int)(stem - vlen - 1),
                     e->d_name + vlen + 1);
            if (!known_layer(v->bit, layer, heads))
                rc = err_input(err,
                               _("%s/%s: the %s module has no layer "
                                 "'%s' (with --heads %zu)"),
                               dir, e->d_name, v->name, layer, heads);
            else if (!readable(dir, e->d_name, err))
                rc = -1;
            else if (tie && v->bit == VARIANT_FUSED && is_qkv(layer))
                rc = err_input(err,
                               _("%s/%s: --tie builds the fused %s from "
                                 "the wrapper's heads; give the wrapper's "
                                 "files instead, or leave out --tie"),
                               dir, e->d_name, layer);
        }
    }
    closedir(d);
    return rc;
}
