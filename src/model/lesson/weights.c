/* weights.c: loading parameter files over the seeded parameters. */
#include "model/lesson/weights.h"

#include "base/i18n.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/lesson/variants.h"

/* Where a module's parameter files are read from. */
typedef struct {
    const weights_files *files;
    const char *variant;
    const csv_style *style;
    mx_error *err;
} weights_source;

/* The file the check opened for name ("<variant>.<param>.csv"), or NULL
 * when the folder had none. */
static const weights_file *file_named(const weights_files *w, const char *name)
{
    for (size_t i = 0; i < w->n; i++)
        if (strcmp(w->files[i].name, name) == 0)
            return &w->files[i];
    return NULL;
}

/* A param_fn: reads the parameter from the file the check opened for it,
 * when there is one. ctx is a weights_source. */
static int load_param(const param_info *p, void *ctx)
{
    const weights_source *src = ctx;
    char name[512];
    snprintf(name, sizeof name, "%s.%s.csv", src->variant, p->name);
    const weights_file *file = file_named(src->files, name);
    if (file == NULL)
        return 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", src->files->dir, name);
    if (!p->present)
        return err_input(src->err,
                         _("%s: the %s module's %s has no bias (W_query, "
                           "W_key and W_value have one only with --qkv-bias)"),
                         path, src->variant, p->layer);
    /* each sentence of --input reads the same open file from its start */
    if (fseek(file->f, 0, SEEK_SET) != 0)
        return err_input(src->err, _("%s: cannot open: %s"), path,
                         strerror(errno));
    clearerr(file->f);
    return read_weight_matrix_stream(p->value, file->f, path, src->style,
                                     src->err);
}

int weights_load(unsigned variant, const model_dims *dims, void *module,
                 const weights_files *files, const csv_style *style,
                 mx_error *err)
{
    weights_source src = {files, variant_id_name(variant_of_bit(variant)),
                          style, err};
    return model_params_each(variant, dims, module, load_param, &src);
}

/* The file the check opened for <variant>.<table>.csv and its path, or
 * NULL. */
static const weights_file *trained_file(char *path, size_t size,
                                        const weights_files *w, variant_id v,
                                        table_id id)
{
    char name[512];
    snprintf(name, sizeof name, "%s.%s.csv", variant_id_name(v),
             table_info_of(id)->name);
    const weights_file *file = file_named(w, name);
    if (file != NULL)
        snprintf(path, size, "%s/%s", w->dir, name);
    return file;
}

/* The trained run's file of table id, rewound for reading, its path in
 * path; NULL with *rc 0 when the folder has none, or with *rc -1 (err
 * set) when it cannot be read from its start. */
static FILE *rewound_file(char *path, size_t size, const weights_files *w,
                          variant_id v, table_id id, int *rc, mx_error *err)
{
    const weights_file *file = trained_file(path, size, w, v, id);
    *rc = 0;
    if (file == NULL)
        return NULL;
    if (fseek(file->f, 0, SEEK_SET) != 0) {
        *rc = err_input(err, _("%s: cannot open: %s"), path, strerror(errno));
        return NULL;
    }
    clearerr(file->f);
    return file->f;
}

int weights_read_table(char ***rows, size_t *n, matrix *m,
                       const weights_files *w, variant_id v, table_id id,
                       const csv_style *style, size_t max_width, mx_error *err)
{
    char path[4096];
    int rc;
    FILE *f = rewound_file(path, sizeof path, w, v, id, &rc, err);
    *rows = NULL;
    *n = 0;
    if (f == NULL)
        return rc;
    return read_embeddings_stream(rows, n, m, f, path, style, max_width, err) !=
                   0
               ? -1
               : 1;
}

int weights_load_table(matrix *m, const weights_files *w, variant_id v,
                       table_id id, const csv_style *style, mx_error *err)
{
    char path[4096];
    int rc;
    FILE *f = rewound_file(path, sizeof path, w, v, id, &rc, err);
    if (f == NULL)
        return rc;
    return read_weight_matrix_stream(m, f, path, style, err);
}

int weights_load_words(matrix *m, const char *const *words,
                       const weights_files *w, variant_id v, table_id id,
                       const csv_style *style, mx_error *err)
{
    char path[4096];
    int rc;
    FILE *f = rewound_file(path, sizeof path, w, v, id, &rc, err);
    if (f == NULL)
        return rc;
    return read_word_matrix_stream(m, words, f, path, style, err);
}

bool weights_has_table(const weights_files *w, variant_id v, table_id id)
{
    char path[4096];
    return trained_file(path, sizeof path, w, v, id) != NULL;
}

/* Whether layer (a file's name between its variant and ".weight.csv")
 * is a table of a trained run (--train): its embedding, positions or
 * lm_head. */
static bool trained_layer(const char *layer, const char *suffix)
{
    const table_id tables[] = {TABLE_EMBEDDING, TABLE_POS_EMBEDDING,
                               TABLE_LM_HEAD};
    char name[300];
    snprintf(name, sizeof name, "%s%s", layer, suffix);
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
        if (strcmp(name, table_info_of(tables[i])->name) == 0)
            return true;
    return false;
}

void weights_files_free(weights_files *w)
{
    manifest_free(&w->manifest);
    for (size_t i = 0; i < w->n; i++) {
        fclose(w->files[i].f);
        free(w->files[i].name);
    }
    free(w->files);
    free(w->dir);
    *w = (weights_files){0};
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

/* Opens a parameter file the listing found and adds it to w: a file that
 * cannot be opened (a dangling symlink, one removed since the listing) or
 * is not a regular file is an error, never a reason to fall back on
 * seeded values. The open descriptor is checked, and read later. */
static int keep_open(weights_files *w, int dir_fd, const char *name,
                     mx_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", w->dir, name);
    /* O_NONBLOCK: a FIFO put in the folder is refused below, not waited on */
    const int fd =
        openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return err_input(err, _("%s: cannot open: %s"), path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        const int e = errno;
        close(fd);
        return err_input(err, _("%s: cannot open: %s"), path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return err_input(err, _("%s: not a regular file"), path);
    }
    weights_file *grown = realloc(w->files, (w->n + 1) * sizeof *grown);
    if (grown == NULL) {
        close(fd);
        return err_nomem(err, _("a path"));
    }
    w->files = grown;
    weights_file *file = &w->files[w->n];
    file->name = strdup(name);
    file->f = file->name != NULL ? fdopen(fd, "rb") : NULL;
    if (file->f == NULL) {
        close(fd);
        free(file->name);
        return err_nomem(err, _("a path"));
    }
    w->n++;
    return 0;
}

/* The error of file name, of a variant the folder's model.json does not
 * describe (its variants: read). */
static int not_its_own(const weights_files *w, const char *name, unsigned read,
                       mx_error *err)
{
    char names[64];
    variant_names_separated(names, sizeof names, read, ", ");
    return err_input(err,
                     _("%s/%s: the folder's %s describes a trained model of "
                       "the variants %s: the file is not its own (remove "
                       "it)"),
                     w->dir, name, MANIFEST_NAME, names);
}

/* The check of every file DIR lists (weights_open_dir), d open on it. */
static int check_listing(weights_files *w, DIR *d, unsigned variants,
                         size_t heads, size_t layers, bool tie, mx_error *err)
{
    // names only: the shapes of the listed parameters are not used
    const model_dims dims = {
        .heads = heads, .layers = layers, .attn_only = w->manifest.attn_only};
    const char *dir = w->dir;
    // --tie reads the files of the module the fused one takes its heads
    // from (the wrapper's) too
    const unsigned read = variants | (tie ? variants_tied_from(variants) : 0u);
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
            /* a module this run does not read: its files wait, but for a
             * folder whose model.json names its variants */
            if (!(read & v->bit) && w->manifest.present)
                rc = not_its_own(w, e->d_name, read, err);
            if (!(read & v->bit))
                continue;
            char layer[256];
            snprintf(layer, sizeof layer, "%.*s", (int)(stem - vlen - 1),
                     e->d_name + vlen + 1);
            layer_match m = {layer, false, false};
            model_params_each(v->bit, &dims, NULL, match_layer, &m);
            // a trained run's tables (--csv-dir of --train): weights
            // only (nn.Embedding has no bias, lm_head is made without)
            const bool bias = ends_with(e->d_name, ".bias.csv", &(size_t){0});
            if (!m.found && trained_layer(layer, ".weight")) {
                if (bias) {
                    rc = err_input(err,
                                   _("%s/%s: a trained model's %s has no "
                                     "bias (nn.Embedding has none, and "
                                     "lm_head is nn.Linear(..., "
                                     "bias=False)): remove the file"),
                                   dir, e->d_name, layer);
                    continue;
                }
                m.found = true;
            }
            // with --layers N, a file of one block (a run without
            // --layers, a trained block): its name has no block number
            layer_match one = {layer, false, false};
            const model_dims alone = {.heads = heads};
            if (!m.found && layers > 0)
                model_params_each(v->bit, &alone, NULL, match_layer, &one);
            if (one.found)
                rc = err_input(err,
                               _("%s/%s: a file of one block, not of a "
                                 "stack: with --layers N a stack's files "
                                 "are named %s.K.LAYER (K from 0); rename "
                                 "them, or leave out --layers"),
                               dir, e->d_name, v->name);
            else if (!m.found && w->manifest.present)
                rc = err_input(err,
                               _("%s/%s: the %s module has no layer "
                                 "'%s' (with heads %zu, as the folder's %s "
                                 "says)"),
                               dir, e->d_name, v->name, layer, heads,
                               MANIFEST_NAME);
            else if (!m.found)
                rc = err_input(err,
                               _("%s/%s: the %s module has no layer "
                                 "'%s' (with --heads %zu)"),
                               dir, e->d_name, v->name, layer, heads);
            else if (tie && m.tied)
                rc = err_input(err,
                               _("%s/%s: --tie builds the fused %s from "
                                 "the wrapper's heads; give the wrapper's "
                                 "files instead, or leave out --tie"),
                               dir, e->d_name, layer);
            else
                rc = keep_open(w, dirfd(d), e->d_name, err);
        }
        if (rc == 0 && !known) {
            char names[VARIANT_NAMES_SIZE];
            variant_names_joined(names, sizeof names, VARIANTS_ALL,
                                 VARIANT_NAMES_OR);
            rc = err_input(err,
                           _("%s/%s: a parameter file's name starts with "
                             "its module: %s"),
                           dir, e->d_name, names);
        }
    }
    return rc;
}

/* The folder's model.json (manifest.h), when there is one, read through
 * its descriptor dir_fd into w->manifest. */
static int read_manifest(weights_files *w, int dir_fd, mx_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", w->dir, MANIFEST_NAME);
    const int fd = openat(dir_fd, MANIFEST_NAME,
                          O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return errno == ENOENT ? 0
                               : err_input(err, _("%s: cannot open: %s"), path,
                                           strerror(errno));
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        rc = err_input(err, _("%s: not a regular file"), path);
    else if ((size_t)st.st_size > MANIFEST_MAX_BYTES)
        rc = err_input(err, _("%s: larger than %zu MiB"), path,
                       MANIFEST_MAX_BYTES >> 20);
    char *text = rc == 0 ? malloc((size_t)st.st_size + 1) : NULL;
    if (rc == 0 && text == NULL)
        rc = err_nomem(err, _("the model's description"));
    size_t len = 0;
    while (rc == 0 && len <= (size_t)st.st_size) {
        const ssize_t got = read(fd, text + len, (size_t)st.st_size + 1 - len);
        if (got < 0)
            rc =
                err_input(err, _("%s: cannot read: %s"), path, strerror(errno));
        else if (got == 0)
            break;
        else
            len += (size_t)got;
    }
    if (rc == 0 && len > (size_t)st.st_size)
        rc = err_input(err, _("%s: larger than %zu MiB"), path,
                       MANIFEST_MAX_BYTES >> 20);
    if (rc == 0)
        rc = manifest_parse(&w->manifest, text, len, path, err);
    free(text);
    close(fd);
    return rc;
}

/* What a complete model's check looks for: a file the model lacks. */
typedef struct {
    const weights_files *w;
    const char *variant;
    mx_error *err;
} model_files;

/* A param_fn: a present parameter of the model must have its file. */
static int has_param_file(const param_info *p, void *ctx)
{
    const model_files *m = ctx;
    char name[512];
    snprintf(name, sizeof name, "%s.%s.csv", m->variant, p->name);
    if (!p->present || file_named(m->w, name) != NULL)
        return 0;
    return err_input(m->err,
                     _("%s/%s: missing: the folder's %s describes a trained "
                       "%s module, and each of its parameters has a file"),
                     m->w->dir, name, MANIFEST_NAME, m->variant);
}

/* With model.json: every file of each variant it describes is there, and
 * no pos_embedding file beside a model without positions. */
static int check_model_files(const weights_files *w, mx_error *err)
{
    const trained_manifest *t = &w->manifest;
    const model_dims dims = {.d_model = t->d_model,
                             .d_out = t->d_out,
                             .heads = t->heads,
                             .ff = t->ff,
                             .qkv_bias = t->qkv_bias,
                             .layers = t->layers,
                             .attn_only = t->attn_only};
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        const variant_info *v = &model_variants[i];
        if (!(t->variants & v->bit))
            continue;
        const table_id tables[] = {TABLE_EMBEDDING, TABLE_LM_HEAD,
                                   TABLE_POS_EMBEDDING};
        for (size_t k = 0; k < sizeof tables / sizeof *tables; k++) {
            const bool want = tables[k] != TABLE_POS_EMBEDDING || t->positions;
            if (weights_has_table(w, v->id, tables[k]) == want)
                continue;
            const char *name = table_info_of(tables[k])->name;
            if (want)
                return err_input(err,
                                 _("%s/%s.%s.csv: missing: the folder's %s "
                                   "describes a trained %s module, and each "
                                   "of its parameters has a file"),
                                 w->dir, v->name, name, MANIFEST_NAME, v->name);
            return err_input(err,
                             _("%s/%s.%s.csv: the folder's %s describes a "
                               "model without positions: the file is not "
                               "its own (remove it)"),
                             w->dir, v->name, name, MANIFEST_NAME);
        }
        model_files m = {w, v->name, err};
        if (model_params_each(v->bit, &dims, NULL, has_param_file, &m) != 0)
            return -1;
    }
    return 0;
}

/* A param_fn: the first parameter's name into ctx (a char[128]). */
static int first_name(const param_info *p, void *ctx)
{
    snprintf(ctx, 128, "%s", p->name);
    return 1;
}

/* The error of a folder with no parameter file of the run's variants: an
 * empty folder, or one of tables without parameters (--tables). */
static int no_parameter(const char *dir, unsigned variants, size_t heads,
                        mx_error *err)
{
    char names[64], param[128] = "";
    variant_names_separated(names, sizeof names, variants, ", ");
    const unsigned first = variants & (0u - variants);
    const model_dims dims = {.heads = heads};
    model_params_each(first, &dims, NULL, first_name, param);
    return err_input(err,
                     _("--weights %s: the folder holds no parameter file of "
                       "the modules this run includes (%s): expected the "
                       "files --csv-dir writes, such as %s.%s.csv"),
                     dir, names, variant_id_name(variant_of_bit(first)), param);
}

int weights_open_dir(weights_files *w, const char *dir, unsigned variants,
                     size_t heads, size_t layers, bool tie, mx_error *err)
{
    *w = (weights_files){0};
    DIR *d = opendir(dir);
    if (d == NULL)
        return err_input(err, _("--weights: cannot open %s: %s"), dir,
                         strerror(errno));
    w->dir = strdup(dir);
    if (w->dir == NULL) {
        closedir(d);
        return err_input(err, "%s", strerror(ENOMEM));
    }
    /* a run that puts --csv-dir files here holds the lock exclusively
     * while it moves them in: the files opened below are one run's;
     * closedir lets go of it */
    flock(dirfd(d), LOCK_SH);
    int rc = read_manifest(w, dirfd(d), err);
    if (rc == 0 && w->manifest.present) {
        // the model's own variants, heads and blocks name its files
        variants = w->manifest.variants;
        heads = w->manifest.heads;
        layers = w->manifest.layers;
        tie = false;
    }
    if (rc == 0)
        rc = check_listing(w, d, variants, heads, layers, tie, err);
    closedir(d);
    if (rc == 0 && w->manifest.present)
        rc = check_model_files(w, err);
    if (rc == 0 && w->n == 0)
        rc = no_parameter(dir,
                          variants | (tie ? variants_tied_from(variants) : 0u),
                          heads, err);
    if (rc != 0)
        weights_files_free(w);
    return rc;
}
