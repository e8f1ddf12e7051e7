/* attention_sublayer.c: the attention sublayer of every checkpoint family
 * (attention_sublayer.h).
 *
 * Shapes: rows = n T (n stacked texts of T new tokens), S keys per text
 * (S = past + T with a cache, T without), D the model's width, H query
 * heads and KV key/value heads of hd each.
 */
#include "model/layers/attention_sublayer.h"

#include <assert.h>
#include <stdbool.h>
#include <string.h>

#include "base/i18n.h"
#include "model/layers/rotary.h"

void attention_work_free(attention_work *w)
{
    matrix *all[] = {&w->fused, &w->q_all,  &w->k_all,  &w->v_all,
                     &w->k_new, &w->q,      &w->k,      &w->v,
                     &w->q_rot, &w->k_rot,  &w->scores, &w->weights,
                     &w->ctx,   &w->concat, &w->attn,   &w->shared};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        matrix_free(all[i]);
}

/* The matrices only some layers have: the projections' outputs (fused or
 * three), and with rope the rotated q and k and a cache's new keys. */
static int alloc_kind(attention_work *w, const attention_layer *a, size_t rows,
                      size_t T, size_t S, mx_error *err)
{
    const size_t hd = a->hd, Q = a->n_head * hd, KV = a->n_kv_head * hd;
    if (a->fused.weight != NULL) {
        if (matrix_alloc(&w->fused, rows, Q + 2 * KV, N_("hidden states"),
                         err) != 0)
            return -1;
    } else if (matrix_alloc(&w->q_all, rows, Q, N_("queries"), err) != 0 ||
               matrix_alloc(&w->k_all, rows, KV, N_("keys"), err) != 0 ||
               matrix_alloc(&w->v_all, rows, KV, N_("values"), err) != 0)
        return -1;
    if (a->spec.rope == NULL)
        return 0;
    if (matrix_alloc(&w->k_new, T, KV, N_("keys"), err) != 0 ||
        matrix_alloc(&w->q_rot, T, hd, N_("queries"), err) != 0 ||
        matrix_alloc(&w->k_rot, S, hd, N_("keys"), err) != 0)
        return -1;
    return 0;
}

int attention_work_alloc(attention_work *w, const attention_layer *a,
                         size_t rows, size_t T, size_t S, mx_error *err)
{
    const size_t hd = a->hd;
    *w = (attention_work){0};
    if (alloc_kind(w, a, rows, T, S, err) != 0 ||
        matrix_alloc(&w->q, T, hd, N_("queries"), err) != 0 ||
        matrix_alloc(&w->k, S, hd, N_("keys"), err) != 0 ||
        matrix_alloc(&w->v, S, hd, N_("values"), err) != 0 ||
        matrix_alloc(&w->scores, T, S, N_("attention scores"), err) != 0 ||
        matrix_alloc(&w->weights, T, S, N_("attention weights"), err) != 0 ||
        matrix_alloc(&w->ctx, T, hd, N_("context"), err) != 0 ||
        matrix_alloc(&w->concat, rows, a->n_head * hd, N_("context"), err) !=
            0 ||
        matrix_alloc(&w->attn, rows, a->out.out, N_("hidden states"), err) !=
            0 ||
        (rows > T && matrix_alloc(&w->shared, T, a->n_head * hd, N_("context"),
                                  err) != 0)) {
        attention_work_free(w);
        return -1;
    }
    return 0;
}

/* Where Q, K and V lie: columns [first[j], first[j] + width) of from[j]
 * (0 queries, 1 keys, 2 values), all the rows' or one text's. */
typedef struct {
    matrix from[3];
    size_t first[3];
} qkv_columns;

/* The projections over x (rows, D): the fused output Q | K | V, or the
 * three, in the order q, k, v; where each lies. */
static qkv_columns project(attention_work *w, const attention_layer *a,
                           const matrix *x, workers *pool)
{
    if (a->fused.weight != NULL) {
        // qkv (rows, (H + 2 KV) hd) = c_attn(x), then split
        dense_forward(&w->fused, x, &a->fused, pool);
        const size_t Q = a->n_head * a->hd, KV = a->n_kv_head * a->hd;
        return (qkv_columns){{w->fused, w->fused, w->fused}, {0, Q, Q + KV}};
    }
    dense_forward(&w->q_all, x, &a->q, pool);
    dense_forward(&w->k_all, x, &a->k, pool);
    dense_forward(&w->v_all, x, &a->v, pool);
    return (qkv_columns){{w->q_all, w->k_all, w->v_all}, {0, 0, 0}};
}

/* Text i's rows (T of them) of each of c's matrices. */
static qkv_columns text_rows(const qkv_columns *c, size_t i, size_t T)
{
    qkv_columns t = *c;
    for (size_t j = 0; j < 3; j++)
        t.from[j] = (matrix){T, c->from[j].cols,
                             c->from[j].v + i * T * c->from[j].cols};
    return t;
}

/* With a cache: past_key_value.update(keys, values), the T new keys
 * rotated by their positions first when the heads have rope; then c's
 * keys and values are the cache's (past + T, KV hd). */
static void cache_update(qkv_columns *c, attention_work *w,
                         const attention_layer *a, kv_cache *cache, size_t li)
{
    const size_t T = c->from[0].rows, past = cache->len, hd = a->hd;
    const matrix *keys = &c->from[1];
    size_t k_first = c->first[1];
    if (a->spec.rope != NULL) {
        // each key/value head j's new keys (T, hd), rotated, in the first
        // rows of the head's working matrices (S >= T)
        matrix k = {T, hd, w->k.v}, k_rot = {T, hd, w->k_rot.v};
        for (size_t j = 0; j < a->n_kv_head; j++) {
            take_columns(&k, keys, k_first + j * hd);
            rotary_apply(&k_rot, &k, a->spec.rope);
            put_columns(&w->k_new, &k_rot, j * hd);
        }
        keys = &w->k_new;
        k_first = 0;
    }
    kv_cache_put(cache, li, keys, k_first, &c->from[2], c->first[2]);
    c->from[1] = kv_cache_keys(cache, li, past + T);
    c->from[2] = kv_cache_values(cache, li, past + T);
    c->first[1] = c->first[2] = 0;
}

/* Head hh of layer li over one text's Q, K and V: its head_context in
 * w->ctx (T, hd), its tables passing the hooks hk. */
static int one_head(attention_work *w, const qkv_columns *c,
                    const attention_layer *a, int li, size_t hh,
                    const forward_hooks *hk, workers *pool, mx_error *err)
{
    const size_t hd = a->hd, groups = a->n_head / a->n_kv_head;
    const head_tables t = {.q = &w->q,
                           .k = &w->k,
                           .v = &w->v,
                           .q_rot = &w->q_rot,
                           .k_rot = &w->k_rot,
                           .scores = &w->scores,
                           .weights = &w->weights,
                           .context = &w->ctx};
    // query head hh reads key/value head hh / groups (repeat_kv)
    const size_t kv = hh / groups;
    const head_source src = {.from = {&c->from[0], &c->from[1], &c->from[2]},
                             .first = {c->first[0] + hh * hd,
                                       c->first[1] + kv * hd,
                                       c->first[2] + kv * hd}};
    const table_key at = layer_table_key(li, (int)hh, TABLE_QUERIES);
    return attention_head_forward(&t, &src, &a->spec, hk, &at, pool, err);
}

/* Every head of layer li over one text's Q, K and V, its head_context
 * into the text's rows of concat (T, H hd), the heads' tables passing
 * the hooks hk. */
static int text_heads(attention_work *w, matrix *concat, const qkv_columns *c,
                      const attention_layer *a, int li, const forward_hooks *hk,
                      workers *pool, mx_error *err)
{
    for (size_t hh = 0; hh < a->n_head; hh++) {
        if (one_head(w, c, a, li, hh, hk, pool, err) != 0)
            return -1;
        put_columns(concat, &w->ctx, hh * a->hd);
    }
    return 0;
}

/* ---- stacked copies of one text ------------------------------------------ */

/* Whether the n texts' rows of x (n T, D) are bit for bit the first
 * text's: an intervention's copies before the layer it changes. */
static bool texts_equal(const matrix *x, size_t n, size_t T)
{
    const size_t size = T * x->cols;
    for (size_t i = 1; i < n; i++)
        if (memcmp(x->v, x->v + i * size, size * sizeof *x->v) != 0)
            return false;
    return true;
}

/* What the hooks hk name of head hh of layer li. */
typedef enum {
    NAMES_NOTHING,
    NAMES_CONTEXT, /* its head_context only (an ablation, a patch) */
    NAMES_MORE,    /* another of its tables */
} head_named;

static head_named names_of(const forward_hooks *hk, int li, size_t hh)
{
    head_named named = NAMES_NOTHING;
    for (size_t i = 0; hk != NULL && i < hk->n_replace; i++) {
        const table_key *at = &hk->replace[i].at;
        if (!is_layer_table(at) || at->layer != li ||
            at->head != (int)hh || at->grad)
            continue;
        if (at->id != TABLE_HEAD_CONTEXT)
            return NAMES_MORE;
        named = NAMES_CONTEXT;
    }
    return named;
}

/* Whether the pass may compute the heads once for n equal texts: no
 * recorder (which would see every text's tables). */
static bool may_share(const attention_pass *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const forward_hooks *hk =
            p->each_text != NULL ? &p->each_text[i] : p->hooks;
        if (hk != NULL && hk->record != NULL)
            return false;
    }
    return true;
}

/* The heads of n equal texts (c: the first text's Q, K and V): every
 * head once without hooks into w->shared (T, H hd), then each text's
 * rows of w->concat a copy of it, in which each head its hooks name is
 * made again: a head_context alone replaced on the copy (the tables
 * before it are the copy's), a head with more named computed again with
 * them. Each text's rows are what its own pass computes. */
static int shared_heads(attention_work *w, const qkv_columns *c,
                        const attention_layer *a, const attention_pass *p,
                        size_t n, mx_error *err)
{
    const size_t T = w->shared.rows, width = w->shared.cols, hd = a->hd;
    if (text_heads(w, &w->shared, c, a, p->layer, NULL, p->pool, err) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        matrix concat = {T, width, w->concat.v + i * T * width};
        memcpy(concat.v, w->shared.v, T * width * sizeof *concat.v);
        const forward_hooks *hk =
            p->each_text != NULL ? &p->each_text[i] : p->hooks;
        for (size_t hh = 0; hh < a->n_head; hh++) {
            const head_named named = names_of(hk, p->layer, hh);
            if (named == NAMES_NOTHING)
                continue;
            if (named == NAMES_MORE) {
                if (one_head(w, c, a, p->layer, hh, hk, p->pool, err) != 0)
                    return -1;
            } else {
                take_columns(&w->ctx, &concat, hh * hd);
                if (hook_layer_point(hk, p->layer, (int)hh, TABLE_HEAD_CONTEXT,
                                     &w->ctx, err) != 0)
                    return -1;
            }
            put_columns(&concat, &w->ctx, hh * hd);
        }
    }
    return 0;
}

int attention_sublayer_forward(attention_work *w, const attention_layer *a,
                               const matrix *x, const attention_pass *p,
                               mx_error *err)
{
    const size_t texts = p->texts > 1 ? p->texts : 1;
    const size_t T = x->rows / texts, width = w->concat.cols;
    assert(p->cache == NULL || texts == 1);
    if (texts > 1 && w->shared.v != NULL && texts_equal(x, texts, T) &&
        may_share(p, texts)) {
        // equal texts: the projections over the first text's rows only
        const matrix first = {T, x->cols, x->v};
        const qkv_columns all = project(w, a, &first, p->pool);
        const qkv_columns c = text_rows(&all, 0, T);
        if (shared_heads(w, &c, a, p, texts, err) != 0)
            return -1;
    } else {
        const qkv_columns all = project(w, a, x, p->pool);
        for (size_t i = 0; i < texts; i++) {
            qkv_columns c = text_rows(&all, i, T);
            if (p->cache != NULL)
                cache_update(&c, w, a, p->cache, (size_t)p->layer);
            matrix concat = {T, width, w->concat.v + i * T * width};
            const forward_hooks *hk =
                p->each_text != NULL ? &p->each_text[i] : p->hooks;
            if (text_heads(w, &concat, &c, a, p->layer, hk, p->pool, err) != 0)
                return -1;
        }
    }
    if (hook_layer_point(p->hooks, p->layer, NO_HEAD, TABLE_CONCAT_CONTEXT,
                         &w->concat, err) != 0)
        return -1;
    // attn_out (rows, D) = out(concat_context)
    dense_forward(&w->attn, &w->concat, &a->out, p->pool);
    return hook_layer_point(p->hooks, p->layer, NO_HEAD, TABLE_ATTN_OUT,
                            &w->attn, err);
}

int attention_sublayer_run(void *ctx, const matrix **out, const matrix *x,
                           mx_error *err)
{
    const attention_call *call = ctx;
    *out = &call->w->attn;
    return attention_sublayer_forward(call->w, call->a, x, call->p, err);
}
