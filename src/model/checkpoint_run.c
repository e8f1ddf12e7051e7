/* checkpoint_run.c: the text, labels and shown layers and heads of a
 * checkpoint's run (checkpoint_run.h). */
#include "model/checkpoint_run.h"

#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/family.h"
#include "model/tied_head.h"
#include "numerics/workers.h"

void checkpoint_run_free(checkpoint_run *r)
{
    free(r->ids);
    if (r->pieces != NULL)
        for (size_t i = 0; i < r->T; i++)
            free(r->pieces[i]);
    free(r->pieces);
    free(r->layers);
    free(r->heads);
    *r = (checkpoint_run){0};
}

int checkpoint_run_refuse(const model_input *in, mx_error *err)
{
    if (in->embeddings == NULL && in->kv == NULL)
        return 0;
    return err_detail_set(err, RUN_FIXED_BY_CHECKPOINT,
                          in->kv ? RUN_INPUT_KV : RUN_INPUT_EMBEDDINGS, 0, 0);
}

int checkpoint_run_select(bool *keep, size_t n, const index_range *ranges,
                          size_t n_ranges, int list, mx_error *err)
{
    for (size_t i = 0; i < n; i++)
        keep[i] = n_ranges == 0;
    for (size_t k = 0; k < n_ranges; k++) {
        if (ranges[k].hi >= n)
            return err_detail_set(err, list, k, n, 0);
        for (size_t i = ranges[k].lo; i <= ranges[k].hi; i++)
            keep[i] = true;
    }
    return 0;
}

int checkpoint_run_shown(checkpoint_run *r, size_t n_layer, size_t n_head,
                         const run_request *rq, mx_error *err)
{
    r->n_layer = n_layer;
    r->n_head = n_head;
    r->layers = calloc(n_layer, sizeof *r->layers);
    r->heads = calloc(n_head, sizeof *r->heads);
    if (r->layers == NULL || r->heads == NULL)
        return err_nomem(err, rq->checkpoint);
    if (checkpoint_run_select(r->layers, n_layer, rq->layers, rq->n_layers,
                              RUN_LIST_LAYERS, err) != 0)
        return -1;
    return checkpoint_run_select(r->heads, n_head, rq->show_heads,
                                 rq->n_show_heads, RUN_LIST_SHOW_HEADS, err);
}

int checkpoint_run_param_present(const checkpoint_run *r, const table_pick *p,
                                 mx_error *err)
{
    checkpoint_param param;
    const safetensors *in;
    const st_tensor *st;
    if (!r->find_param(r->find_ctx, p->name, &param, &in, &st) || st != NULL)
        return 0;
    if (r->tied_embed != NULL && strcmp(p->name, TIED_HEAD_NAME) == 0)
        return err_usage(err,
                         _("--tables: the checkpoint has no tensor %s: its "
                           "lm_head is the embedding %s (tie_word_embeddings "
                           "is true), which --tables %s shows"),
                         p->name, r->tied_embed, r->tied_embed);
    return err_usage(err, _("--tables: the checkpoint has no tensor %s"),
                     p->name);
}

int checkpoint_run_params_present(const checkpoint_run *r,
                                  const run_request *rq, mx_error *err)
{
    for (size_t i = 0; i < rq->n_tables; i++)
        if (checkpoint_run_param_present(r, &rq->tables[i], err) != 0)
            return -1;
    return 0;
}

double checkpoint_run_params_values(const checkpoint_run *r,
                                    const run_request *rq)
{
    double v = 0;
    for (size_t i = 0; i < rq->n_tables; i++) {
        const table_pick *pick = &rq->tables[i];
        checkpoint_param p;
        const safetensors *in;
        const st_tensor *st;
        if (r->find_param(r->find_ctx, pick->name, &p, &in, &st) && st != NULL)
            v += (double)st_tensor_count(st);
    }
    return v;
}

int checkpoint_run_labels(checkpoint_run *r, mx_error *err)
{
    r->pieces = calloc(r->T, sizeof *r->pieces);
    if (r->pieces == NULL)
        return err_nomem(err, _("tokens"));
    for (size_t i = 0; i < r->T; i++) {
        char label[256];
        r->label(r->label_ctx, r->ids[i], label, sizeof label);
        if ((r->pieces[i] = strdup(label)) == NULL)
            return err_nomem(err, _("tokens"));
    }
    return 0;
}

static size_t count(const bool *keep, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += keep[i];
    return k;
}

size_t checkpoint_run_layers_shown(const checkpoint_run *r)
{
    return count(r->layers, r->n_layer);
}

size_t checkpoint_run_heads_shown(const checkpoint_run *r)
{
    return count(r->heads, r->n_head);
}

int checkpoint_run_fits(double values, mx_error *err)
{
    if (values <= (double)MAX_TRACE_VALUES)
        return 0;
    return err_input(
        err,
        _("the run would hold about %.0f million values (at most %zu million): use fewer tokens, or --layers and --show-heads"),
        values / 1e6, MAX_TRACE_VALUES / 1000000);
}

int checkpoint_run_pool(workers **pool, double values, const run_request *rq,
                        mx_error *err)
{
    *pool = NULL;
    if (checkpoint_run_fits(values, err) != 0)
        return -1;
    const size_t threads = rq->threads != 0 ? rq->threads : workers_available();
    return workers_init(pool, threads, err);
}

int checkpoint_run_tokens(tokenized *tok, size_t *n_queries,
                          const checkpoint_run *r, mx_error *err)
{
    *n_queries = r->T;
    return tokenize_words(tok, (const char *const *)r->pieces, r->T, err);
}

bool checkpoint_makes_table(const run_request *rq, const table_pick *p,
                            bool (*param_name)(const char *name, int *layer),
                            table_set made)
{
    if (param_name(p->name, NULL))
        return true;
    const table_id id = p->id;
    if (id == TABLE_COUNT)
        return false;
    if (id == TABLE_LOGITS)
        return rq->logits;
    if ((made & table_bit(id)) == 0)
        return false;
    if (id == TABLE_GENERATED || id == TABLE_GENERATED_TOP)
        return rq->generate > 0;
    if (table_bit(id) & GENERATE_CLEAN_TABLES)
        return rq->generate > 0 && rq->n_ablate > 0;
    if (id == TABLE_KV_CACHE_SIZE || (table_bit(id) & GENERATE_MAP_TABLES))
        return rq->generate > 0 && rq->kv_steps;
    return true;
}

int checkpoint_run_tokenizer(checkpoint_tokenizer **out, const run_request *rq,
                             size_t vocab, mx_error *err)
{
    *out = NULL;
    const model_family *family = family_of(rq, err);
    if (family == NULL)
        return -1;
    if (checkpoint_tokenizer_open(out, rq->checkpoint, family->tokenizer,
                                  err) != 0)
        return -1;
    if (checkpoint_tokenizer_fits(*out, vocab, rq->checkpoint, err) != 0) {
        checkpoint_tokenizer_free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}
