/* kv_cache.c: the keys and values kept between generation's steps
 * (kv_cache.h). */
#include "model/layers/kv_cache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"

int kv_cache_init(kv_cache *c, size_t n_layer, size_t cap, size_t width,
                  mx_error *err)
{
    *c = (kv_cache){.n_layer = n_layer, .cap = cap, .width = width};
    int overflow = 0;
    const size_t n =
        size_mul(size_mul(n_layer, cap, &overflow), width, &overflow);
    if (overflow || n > SIZE_MAX / sizeof(float))
        return err_nomem(err, _("the cache of keys and values"));
    c->k = malloc(n * sizeof *c->k);
    c->v = malloc(n * sizeof *c->v);
    if (c->k == NULL || c->v == NULL) {
        kv_cache_free(c);
        return err_nomem(err, _("the cache of keys and values"));
    }
    return 0;
}

void kv_cache_free(kv_cache *c)
{
    free(c->k);
    free(c->v);
    *c = (kv_cache){0};
}

matrix kv_cache_keys(const kv_cache *c, size_t layer, size_t rows)
{
    return (matrix){rows, c->width, c->k + layer * c->cap * c->width};
}

matrix kv_cache_values(const kv_cache *c, size_t layer, size_t rows)
{
    return (matrix){rows, c->width, c->v + layer * c->cap * c->width};
}

void kv_cache_put(kv_cache *c, size_t layer, const matrix *k, size_t k_first,
                  const matrix *v, size_t v_first)
{
    const size_t W = c->width;
    float *keys = c->k + (layer * c->cap + c->len) * W;
    float *values = c->v + (layer * c->cap + c->len) * W;
    for (size_t t = 0; t < k->rows; t++) {
        memcpy(keys + t * W, k->v + t * k->cols + k_first, W * sizeof *keys);
        memcpy(values + t * W, v->v + t * v->cols + v_first,
               W * sizeof *values);
    }
}

void kv_cache_advance(kv_cache *c, size_t T)
{
    c->len += T;
}
