/* vecmath.h: the float32 log, sin, cos and exp of PyTorch's x86 kernels.
 *
 * The C library's logf or expf can differ from them in the last bit, and a
 * last bit is enough to change a printed digit; these agree with PyTorch
 * bit for bit. */
#ifndef MHA_VECMATH_H
#define MHA_VECMATH_H

#include <stddef.h>

/* log(x) for x in (0, 1], as normal_fill_16_AVX2 computes it. */
float cephes_logf(float x);

/* sin(x) and cos(x) for x in [0, 2 pi), as normal_fill_16_AVX2 computes
 * them. */
void cephes_sincosf(float x, float *sin_out, float *cos_out);

/* exp(x) as SLEEF's Sleef_expf8_u10 (AVX2), which torch.softmax uses;
 * exp(-inf) is 0. */
float sleef_expf(float x);

/* w[i] = sleef_expf(w[i] - shift) for i < n (w is n values), with the
 * processor's fused multiply-add instruction when it has one: the same
 * bits, without a C library call per fmaf. */
void expf_row(float *w, size_t n, float shift);

#endif
