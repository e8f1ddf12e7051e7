/* manifest.c: model.json written after a trained run and read back by
 * --weights (manifest.h). */
#include "model/lesson/manifest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "io/json.h"
#include "model/lesson/model.h"
#include "model/lesson/stack.h"
#include "model/lesson/variants.h"
#include "numerics/floatfmt.h"

#define MANIFEST_FORMAT "mha-explain trained model"
#define MANIFEST_VERSION 1

/* The largest size a field may give: the options' (MAX_WIDTH). */
#define MAX_MODEL_WIDTH 8192

/* --punct's values, by enum punct_mode. */
static const char *const punct_names[] = {"keep", "split", "drop"};

/* ---- writing ------------------------------------------------------------ */

/* s as a JSON string: quotes, backslashes and control characters
 * escaped; the rest (valid UTF-8) as it is. */
static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s != '\0'; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static const char *bool_text(bool b)
{
    return b ? "true" : "false";
}

/* The rows of variant v's table id in tr, or 0 when it has none. */
static size_t rows_of(const trace *tr, variant_id v, table_id id)
{
    const table_key key = {v, 0, NO_HEAD, id, false};
    const table *t = trace_find(tr, &key);
    return t != NULL ? t->rows->n : 0;
}

/* "final_loss": each variant's loss at the final parameters (the last
 * row of its loss table), null when not finite. */
static void put_losses(FILE *f, const run_request *rq, const trace *tr,
                       const trained_manifest *from)
{
    fputs("  \"final_loss\": {", f);
    const char *sep = "";
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        const variant_info *v = &model_variants[i];
        if (!(rq->variants & v->bit))
            continue;
        const table_key key = {v->id, 0, NO_HEAD, TABLE_LOSS, false};
        const table *t = trace_find(tr, &key);
        fprintf(f, "%s\"%s\": ", sep, v->name);
        sep = ", ";
        const float loss = from != NULL ? from->final_loss[i]
                           : t != NULL && t->values.v != NULL
                               ? t->values.v[t->values.rows - 1]
                               : NAN;
        if (isfinite(loss)) {
            char text[FLOAT_TEXT_SIZE];
            float_text(text, loss, false);
            fputs(text, f);
        } else {
            fputs("null", f);
        }
    }
    fputs("}\n", f);
}

int manifest_text(char **text, size_t *len, const run_request *rq,
                  const trace *tr, const csv_style *csv, const char *corpus,
                  const trained_manifest *from, mx_error *err)
{
    *text = NULL;
    *len = 0;
    const table *vocab = trace_find_input(tr, TABLE_VOCAB);
    if (vocab == NULL)
        return err_input(err, _("the trained run made no vocabulary"));
    FILE *f = open_memstream(text, len);
    if (f == NULL)
        return err_nomem(err, _("the model's description"));
    size_t C = 0;
    fprintf(f, "{\n  \"format\": \"%s\",\n  \"version\": %d,\n",
            MANIFEST_FORMAT, MANIFEST_VERSION);
    fputs("  \"variants\": [", f);
    const char *sep = "";
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if (rq->variants & model_variants[i].bit) {
            fprintf(f, "%s\"%s\"", sep, model_variants[i].name);
            sep = ", ";
            if (C == 0)
                C = rows_of(tr, model_variants[i].id, TABLE_POS_EMBEDDING);
        }
    const size_t D = rq->model.d_model;
    // the feed-forward width and the stack of a variant that has them
    const bool ffn = (rq->variants & variants_taking(TAKES_FF)) != 0;
    const bool stacked = (rq->variants & variants_taking(TAKES_LAYERS)) != 0;
    // the attention's width: d_model's when no variant is d_out wide
    const bool d_out_wide = (rq->variants & variants_taking(TAKES_D_OUT)) != 0;
    const size_t d_out = d_out_wide ? rq->model.d_out : D;
    const size_t ff = !ffn || rq->model.attn_only ? 0
                      : rq->model.ff != 0         ? rq->model.ff
                                                  : 4 * D;
    fprintf(f,
            "],\n  \"d_model\": %zu,\n  \"d_out\": %zu,\n  \"heads\": %zu,\n"
            "  \"ff\": %zu,\n  \"layers\": %zu,\n  \"attn_only\": %s,\n"
            "  \"qkv_bias\": %s,\n  \"causal\": %s,\n"
            "  \"scale\": %s,\n  \"positions\": %zu,\n  \"tokens\": \"%s\",\n"
            "  \"lower\": %s,\n  \"punct\": \"%s\",\n  \"unk\": %s,\n",
            D, d_out, rq->model.heads, ff, stacked ? rq->model.block_layers : 0,
            bool_text(ffn && rq->model.attn_only),
            bool_text(rq->model.qkv_bias), bool_text(rq->model.causal),
            bool_text(rq->model.scale), C,
            rq->tokens == TOKENS_CHARS ? "chars" : "words",
            bool_text(rq->rules.lower), punct_names[rq->rules.punct],
            bool_text(rq->unk));
    const char delimiter[2] = {csv->delimiter, '\0'};
    fputs("  \"csv\": {\"delimiter\": ", f);
    put_string(f, delimiter);
    fprintf(f, ", \"decimal_comma\": %s},\n", bool_text(csv->decimal_comma));
    if (tr->model.trained_context > 0)
        fprintf(f, "  \"context_length\": %zu,\n", tr->model.trained_context);
    fputs("  \"vocab\": [", f);
    for (size_t i = 0; i < vocab->rows->n; i++) {
        fputs(i ? ", " : "", f);
        put_string(f, vocab->rows->s[i]);
    }
    // a run of no step over a folder's model: that model's record
    const trained_manifest *kept =
        from != NULL && from->record && rq->training.steps == 0 ? from : NULL;
    // a run of steps over a folder's model: its steps come after the
    // folder's, which the record counts in
    const size_t before = kept                   ? kept->steps_before
                          : from && from->record ? from->steps
                                                 : 0;
    fprintf(f, "],\n  \"training\": {\"steps\": %zu, ",
            kept ? kept->steps : before + rq->training.steps);
    if (before > 0)
        fprintf(f, "\"steps_before\": %zu, ", before);
    fprintf(
        f, "\"optimizer\": \"%s\", \"lr\": %.17g, \"seed\": %llu, \"corpus\": ",
        (kept ? kept->adam : rq->training.optimizer == OPTIMIZER_ADAM) ? "adam"
                                                                       : "sgd",
        kept ? kept->lr : rq->training.lr,
        (unsigned long long)(kept && kept->has_seed ? kept->seed : rq->seed));
    const char *trained_on = kept ? kept->corpus : corpus;
    if (trained_on != NULL)
        put_string(f, trained_on);
    else
        fputs("null", f);
    fputs("},\n", f);
    put_losses(f, rq, tr, kept);
    fputs("}\n", f);
    if (ferror(f) != 0) {
        fclose(f);
        free(*text);
        *text = NULL;
        return err_nomem(err, _("the model's description"));
    }
    if (fclose(f) != 0) {
        free(*text);
        *text = NULL;
        return err_nomem(err, _("the model's description"));
    }
    return 0;
}

/* ---- reading ------------------------------------------------------------ */

/* The member named key of the root, which must be of type want; err
 * names the field otherwise. */
static const json_node *field(const json_doc *doc, const char *key,
                              enum json_type want, const char *path,
                              mx_error *err)
{
    const json_node *n = json_get(doc, json_root(doc), key);
    if (n == NULL || n->type != want) {
        err_input(err, _("%s: the field '%s' is missing or of the wrong type"),
                  path, key);
        return NULL;
    }
    return n;
}

/* A whole number field in [lo, hi]; one too large says the limit. */
static int size_field(size_t *out, const json_doc *doc, const char *key,
                      size_t lo, size_t hi, const char *path, mx_error *err)
{
    const json_node *n = field(doc, key, JSON_NUMBER, path, err);
    if (n == NULL)
        return -1;
    if (n->number > (double)hi && n->number == floor(n->number))
        return err_input(err,
                         _("%s: the field '%s' is %.*s, too large (at most "
                           "%zu)"),
                         path, key, (int)n->len, json_str(doc, n), hi);
    if (!json_size(n, hi, out) || *out < lo)
        return err_input(err,
                         _("%s: the field '%s' must be a whole number from "
                           "%zu to %zu"),
                         path, key, lo, hi);
    return 0;
}

static int bool_field(bool *out, const json_doc *doc, const char *key,
                      const char *path, mx_error *err)
{
    const json_node *n = field(doc, key, JSON_BOOL, path, err);
    if (n == NULL)
        return -1;
    *out = n->number != 0;
    return 0;
}

/* A field a folder written before it lacks: missing, *out is left as it
 * was; present, it must be of its type. */
static bool has_field(const json_doc *doc, const char *key)
{
    return json_get(doc, json_root(doc), key) != NULL;
}

/* "variants": a non-empty list of distinct variant names. */
static int variants_field(unsigned *out, const json_doc *doc, const char *path,
                          mx_error *err)
{
    const json_node *list = field(doc, "variants", JSON_ARRAY, path, err);
    if (list == NULL)
        return -1;
    *out = 0;
    for (const json_node *n = json_first(doc, list); n != NULL;
         n = json_next(doc, n)) {
        const char *name = n->type == JSON_STRING ? json_str(doc, n) : "";
        const variant_info *v = variant_by_name(name, strlen(name));
        if (v == NULL || (*out & v->bit)) {
            char names[VARIANT_NAMES_SIZE];
            variant_names_joined(names, sizeof names, VARIANTS_ALL,
                                 VARIANT_NAMES_ALL);
            if (v == NULL)
                return err_input(err,
                                 _("%s: 'variants' lists '%s', which is not "
                                   "a variant (%s)"),
                                 path, name, names);
            return err_input(err,
                             _("%s: 'variants' lists '%s': each of %s "
                               "at most once"),
                             path, name, names);
        }
        *out |= v->bit;
    }
    if (*out == 0)
        return err_input(err, _("%s: 'variants' lists no variant"), path);
    return 0;
}

/* "vocab": the words, distinct and non-empty, at most MAX_VOCAB. */
static int vocab_field(trained_manifest *m, const json_doc *doc,
                       const char *path, mx_error *err)
{
    const json_node *list = field(doc, "vocab", JSON_ARRAY, path, err);
    if (list == NULL)
        return -1;
    if (list->len == 0 || list->len > MAX_VOCAB)
        return err_input(err, _("%s: 'vocab' must hold from 1 to %d words"),
                         path, MAX_VOCAB);
    m->vocab = calloc(list->len, sizeof *m->vocab);
    if (m->vocab == NULL)
        return err_nomem(err, _("the vocabulary"));
    for (const json_node *n = json_first(doc, list); n != NULL;
         n = json_next(doc, n)) {
        if (n->type != JSON_STRING || n->len == 0 ||
            strlen(json_str(doc, n)) != n->len)
            return err_input(err,
                             _("%s: 'vocab' word %zu is not a non-empty "
                               "string"),
                             path, m->n_vocab);
        m->vocab[m->n_vocab] = strdup(json_str(doc, n));
        if (m->vocab[m->n_vocab] == NULL)
            return err_nomem(err, _("the vocabulary"));
        m->n_vocab++;
    }
    return 0;
}

/* "training"'s "seed", when there (manifest.h). */
static int seed_field(trained_manifest *m, const json_doc *doc,
                      const char *path, mx_error *err)
{
    const json_node *training = json_get(doc, json_root(doc), "training");
    if (training == NULL)
        return 0;
    if (training->type != JSON_OBJECT)
        return err_input(err,
                         _("%s: the field '%s' is missing or of the wrong "
                           "type"),
                         path, "training");
    const json_node *seed = json_get(doc, training, "seed");
    if (seed == NULL)
        return 0;
    if (!json_u64(doc, seed, &m->seed))
        return err_input(err,
                         _("%s: the training's 'seed' must be a whole number "
                           "from 0 to %s"),
                         path, "18446744073709551615");
    m->has_seed = true;
    return 0;
}

/* The rest of "training" and "final_loss", when they say them in full
 * (manifest.h): m->record false otherwise. */
static int record_fields(trained_manifest *m, const json_doc *doc)
{
    const json_node *training = json_get(doc, json_root(doc), "training");
    const json_node *losses = json_get(doc, json_root(doc), "final_loss");
    if (training == NULL || training->type != JSON_OBJECT || losses == NULL ||
        losses->type != JSON_OBJECT)
        return 0;
    const json_node *steps = json_get(doc, training, "steps");
    const json_node *optimizer = json_get(doc, training, "optimizer");
    const json_node *lr = json_get(doc, training, "lr");
    const json_node *corpus = json_get(doc, training, "corpus");
    const json_node *before = json_get(doc, training, "steps_before");
    if (!json_size(steps, MANIFEST_MAX_STEPS, &m->steps) ||
        (before != NULL && (!json_size(before, m->steps, &m->steps_before) ||
                            m->steps_before == 0)) ||
        optimizer == NULL || optimizer->type != JSON_STRING || lr == NULL ||
        lr->type != JSON_NUMBER || !(lr->number > 0) || corpus == NULL ||
        (corpus->type != JSON_STRING && corpus->type != JSON_NULL))
        return 0;
    const char *name = json_str(doc, optimizer);
    if (strcmp(name, "adam") != 0 && strcmp(name, "sgd") != 0)
        return 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        m->final_loss[i] = NAN;
        if (!(m->variants & model_variants[i].bit))
            continue;
        const json_node *loss = json_get(doc, losses, model_variants[i].name);
        if (loss == NULL ||
            (loss->type != JSON_NUMBER && loss->type != JSON_NULL))
            return 0;
        if (loss->type == JSON_NUMBER)
            m->final_loss[i] = (float)loss->number;
    }
    if (corpus->type == JSON_STRING) {
        m->corpus = strdup(json_str(doc, corpus));
        if (m->corpus == NULL)
            return -1;
    }
    m->adam = strcmp(name, "adam") == 0;
    m->lr = lr->number;
    m->record = true;
    return 0;
}

/* "csv", when there (manifest.h): a delimiter the options would take,
 * and not ',' with decimal commas. */
static int csv_field(trained_manifest *m, const json_doc *doc, const char *path,
                     mx_error *err)
{
    const json_node *csv = json_get(doc, json_root(doc), "csv");
    if (csv == NULL)
        return 0;
    const json_node *delimiter =
        csv->type == JSON_OBJECT ? json_get(doc, csv, "delimiter") : NULL;
    const json_node *comma =
        csv->type == JSON_OBJECT ? json_get(doc, csv, "decimal_comma") : NULL;
    if (delimiter == NULL || delimiter->type != JSON_STRING ||
        delimiter->len != 1 || comma == NULL || comma->type != JSON_BOOL ||
        !csv_delimiter_usable(json_str(doc, delimiter)[0]) ||
        (comma->number != 0 && json_str(doc, delimiter)[0] == ','))
        return err_input(err,
                         _("%s: 'csv' must be {\"delimiter\": one character "
                           "such as \",\" or \";\", \"decimal_comma\": "
                           "true or false}, not ',' with decimal commas"),
                         path);
    m->csv.delimiter = json_str(doc, delimiter)[0];
    m->csv.decimal_comma = comma->number != 0;
    m->has_csv = true;
    return 0;
}

/* "heads" divides the width each variant splits into heads (as
 * options_validate checks --heads): d_out, or d_model where the
 * variant's attention is d_model wide; a variant of one head splits
 * none. */
static int check_heads(const trained_manifest *m, const char *path,
                       mx_error *err)
{
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        if (!(m->variants & model_variants[i].bit))
            continue;
        const variant_row *row = variant_row_of(model_variants[i].id);
        if (row->heads == HEADS_ONE)
            continue;
        const bool wide = row->heads == HEADS_SPLIT && row->d_model_wide;
        const size_t width = wide ? m->d_model : m->d_out;
        if (width % m->heads != 0)
            return err_input(err,
                             _("%s: the field 'heads' is %zu, which does "
                               "not divide the field '%s' (%zu), the width "
                               "the %s variant splits into its heads"),
                             path, m->heads, wide ? "d_model" : "d_out", width,
                             model_variants[i].name);
    }
    return 0;
}

/* The fields that describe the model (manifest.h). */
static int read_fields(trained_manifest *m, const json_doc *doc,
                       const char *path, mx_error *err)
{
    const json_node *format = field(doc, "format", JSON_STRING, path, err);
    if (format == NULL)
        return -1;
    size_t version = 0;
    if (strcmp(json_str(doc, format), MANIFEST_FORMAT) != 0 ||
        size_field(&version, doc, "version", 1, 1000, path, err) != 0 ||
        version != MANIFEST_VERSION)
        return err_input(err,
                         _("%s: not a model description this version "
                           "reads (\"format\": \"%s\", \"version\": %d)"),
                         path, MANIFEST_FORMAT, MANIFEST_VERSION);
    const json_node *tokens = field(doc, "tokens", JSON_STRING, path, err);
    if (tokens == NULL)
        return -1;
    if (strcmp(json_str(doc, tokens), "words") == 0)
        m->tokens = TOKENS_WORDS;
    else if (strcmp(json_str(doc, tokens), "chars") == 0)
        m->tokens = TOKENS_CHARS;
    else
        return err_input(err, _("%s: 'tokens' must be \"words\" or \"chars\""),
                         path);
    const json_node *punct = field(doc, "punct", JSON_STRING, path, err);
    if (punct == NULL)
        return -1;
    size_t p = 0;
    while (p < 3 && strcmp(json_str(doc, punct), punct_names[p]) != 0)
        p++;
    if (p == 3)
        return err_input(err,
                         _("%s: 'punct' must be \"keep\", \"split\" or "
                           "\"drop\""),
                         path);
    m->rules.punct = (enum punct_mode)p;
    if (bool_field(&m->rules.lower, doc, "lower", path, err) != 0 ||
        bool_field(&m->unk, doc, "unk", path, err) != 0)
        return -1;
    if (variants_field(&m->variants, doc, path, err) != 0 ||
        size_field(&m->d_model, doc, "d_model", 1, MAX_MODEL_WIDTH, path,
                   err) != 0 ||
        size_field(&m->d_out, doc, "d_out", 1, MAX_MODEL_WIDTH, path, err) !=
            0 ||
        size_field(&m->heads, doc, "heads", 1, MAX_MODEL_WIDTH, path, err) !=
            0 ||
        size_field(&m->ff, doc, "ff", 0, MAX_MODEL_WIDTH, path, err) != 0 ||
        (has_field(doc, "layers") &&
         size_field(&m->layers, doc, "layers", 0, MAX_STACK_LAYERS, path,
                    err) != 0) ||
        (has_field(doc, "attn_only") &&
         bool_field(&m->attn_only, doc, "attn_only", path, err) != 0) ||
        size_field(&m->positions, doc, "positions", 0, MAX_TOKENS, path, err) !=
            0 ||
        (has_field(doc, "context_length") &&
         size_field(&m->context, doc, "context_length", 1, MAX_TOKENS, path,
                    err) != 0) ||
        bool_field(&m->qkv_bias, doc, "qkv_bias", path, err) != 0 ||
        bool_field(&m->causal, doc, "causal", path, err) != 0 ||
        bool_field(&m->scale, doc, "scale", path, err) != 0 ||
        csv_field(m, doc, path, err) != 0 || seed_field(m, doc, path, err) != 0)
        return -1;
    /* d_model-wide variants alone (the block): an older folder wrote
     * --d-out's value, which they do not use */
    if ((m->variants & variants_taking(TAKES_D_OUT)) == 0)
        m->d_out = m->d_model;
    if (record_fields(m, doc) != 0)
        return err_nomem(err, path);
    if (check_heads(m, path, err) != 0)
        return -1;
    return vocab_field(m, doc, path, err);
}

int manifest_parse(trained_manifest *m, const char *text, size_t len,
                   const char *path, mx_error *err)
{
    *m = (trained_manifest){0};
    json_doc doc;
    if (json_parse(&doc, text, len, path, err) != 0)
        return -1;
    int rc = json_root(&doc)->type == JSON_OBJECT
                 ? read_fields(m, &doc, path, err)
                 : err_input(err, _("%s: not a JSON object"), path);
    json_free(&doc);
    if (rc != 0)
        manifest_free(m);
    else
        m->present = true;
    return rc;
}

void manifest_free(trained_manifest *m)
{
    for (size_t i = 0; i < m->n_vocab; i++)
        free(m->vocab[i]);
    free(m->vocab);
    free(m->corpus);
    *m = (trained_manifest){0};
}

bool manifest_table(const table *t)
{
    return !t->grad && t->variant != VARIANT_INPUT &&
           (t->id == TABLE_EMBEDDING || t->id == TABLE_POS_EMBEDDING ||
            t->id == TABLE_PARAM || t->id == TABLE_LM_HEAD);
}
