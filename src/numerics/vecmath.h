/* vecmath.h: the float32 log, sin, cos and exp of PyTorch's x86 kernels.
 *
 * The C library's logf or expf can differ from them in the last bit, and a
 * last bit is enough to change a printed digit; these agree with PyTorch
 * bit for bit. */
#ifndef MHA_VECMATH_H
#define MHA_VECMATH_H

#include <stdbool.h>
#include <stddef.h>

/* log(x) for x in (0, 1], as normal_fill_16_AVX2 computes it. */
float cephes_logf(float x);

/* The end of PyTorch's vectorised reductions (vec::reduce_all and its
 * kin): 8 lanes folded in halves, lane i + lane (i+4), then + (i+2), then
 * lane 0 + lane 1. */
static inline float fold_lanes8(const float lane[8])
{
    float half[4], quarter[2];
    for (int l = 0; l < 4; l++)
        half[l] = lane[l] + lane[l + 4];
    for (int l = 0; l < 2; l++)
        quarter[l] = half[l] + half[l + 2];
    return quarter[0] + quarter[1];
}

/* sin(x) and cos(x) for x in [0, 2 pi), as normal_fill_16_AVX2 computes
 * them. */
void cephes_sincosf(float x, float *sin_out, float *cos_out);

/* exp(x) as SLEEF's Sleef_expf8_u10 (AVX2), which torch.softmax uses;
 * exp(-inf) is 0. */
float sleef_expf(float x);

/* log(x) as SLEEF's Sleef_logf8_u10 (AVX2), which torch.log_softmax
 * uses. */
float sleef_logf(float x);

/* w[i] = sleef_expf(w[i] - shift) for i < n (w is n values), the fastest
 * way the processor has (expf_path_best): always the same bits, and never
 * a C library call per fmaf. */
void expf_row(float *w, size_t n, float shift);

/* The ways expf_row can run: the plain body (fmaf from the C library
 * unless the build targets FMA), one value at a time with the FMA
 * instruction, 8 values at a time with AVX2 and FMA, 16 with AVX-512. */
enum expf_path { EXPF_PLAIN, EXPF_FMA, EXPF_AVX2, EXPF_AVX512 };

/* Whether this processor runs path. */
bool expf_path_supported(enum expf_path path);

/* The fastest supported path. */
enum expf_path expf_path_best(void);

/* expf_row by the given path, which must be supported. */
void expf_row_with(enum expf_path path, float *w, size_t n, float shift);

#endif
