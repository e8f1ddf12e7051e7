/* rotary.c: rotary position embeddings (rotary.h). */
#include "model/layers/rotary.h"

#include <stdlib.h>

#include "base/i18n.h"
#include "numerics/rotary_trig.h"

int rotary_table_init(rotary_table *r, size_t T, size_t hd, double theta,
                      mx_error *err)
{
    return rotary_table_init_from(r, 0, T, hd, theta, err);
}

int rotary_table_init_from(rotary_table *r, size_t first, size_t T, size_t hd,
                           double theta, mx_error *err)
{
    *r = (rotary_table){0};
    const size_t half = hd / 2;
    float *inv = malloc((half ? half : 1) * sizeof *inv);
    if (inv == NULL)
        return err_nomem(err, N_("rotary positions"));
    if (matrix_alloc(&r->cos, T, hd, N_("rotary positions"), err) != 0 ||
        matrix_alloc(&r->sin, T, hd, N_("rotary positions"), err) != 0) {
        free(inv);
        rotary_table_free(r);
        return -1;
    }
    // inv_freq = 1.0 / (base ** (arange(0, hd, 2).float() / hd)): the
    // exponent a float division, base ** e through the tensor's pow, then
    // the reciprocal
    for (size_t j = 0; j < half; j++)
        inv[j] = (float)(2 * j) / (float)hd;
    torch_pow_row(inv, (float)theta, inv, half);
    for (size_t j = 0; j < half; j++)
        inv[j] = 1.0f / inv[j];
    // emb (T, hd) = cat(freqs, freqs), freqs[t][j] = inv_freq[j] * (first
    // + t) (a product of one term), kept in cos until cos and sin are
    // taken
    float *emb = r->cos.v;
    for (size_t t = 0; t < T; t++)
        for (size_t j = 0; j < half; j++) {
            const float f = inv[j] * (float)(first + t);
            emb[t * hd + j] = f;
            emb[t * hd + half + j] = f;
        }
    free(inv);
    // sin first: it reads emb before cos overwrites it
    torch_sin_row(r->sin.v, emb, T * hd);
    torch_cos_row(r->cos.v, emb, T * hd);
    return 0;
}

void rotary_table_free(rotary_table *r)
{
    matrix_free(&r->cos);
    matrix_free(&r->sin);
}

void rotary_apply(matrix *out, const matrix *in, const rotary_table *r)
{
    const size_t T = in->rows, hd = in->cols, half = hd / 2;
    for (size_t t = 0; t < T; t++) {
        const float *x = in->v + t * hd;
        const float *c = r->cos.v + t * hd, *s = r->sin.v + t * hd;
        float *o = out->v + t * hd;
        for (size_t i = 0; i < hd; i++) {
            // rotate_half(x)[i]: -x[i + hd/2] in the first half, x[i -
            // hd/2] in the second
            const float rot = i < half ? -x[i + half] : x[i - half];
            const float a = x[i] * c[i], b = rot * s[i];
            o[i] = a + b;
        }
    }
}
