/* gelu_erf.h: the exact GELU, x * 0.5 * (1 + erf(x / sqrt(2))), in the
 * bits torch 1.13 gives on the CPU (F.gelu, approximate='none'), as
 * BERT's ACT2FN["gelu"] computes it.
 *
 * A float32 tensor of more than one value, contiguous, goes to oneDNN
 * (aten/src/ATen/native/Activation.cpp, gelu_out_cpu: use_mkldnn, then
 * ideep's eltwise_gelu_erf); Debian's torch links oneDNN 2.6.3, whose
 * JIT kernel (src/cpu/x64/injectors/jit_uni_eltwise_injector.cpp,
 * gelu_erf_compute_vector_fwd) computes each value on its own, with
 * fused multiply-adds:
 *
 *   x = s * 0.70710677f;  t = 1 / fma(0.3275911f, |x|, 1)
 *   e = -exp(-(x * x)) * t    (oneDNN's own exp: 2^n times a degree-5
 *                              polynomial, exp_compute_vector_fwd)
 *   r = the polynomial p5..p1 of Abramowitz and Stegun 7.1.26 in t
 *   erf = sign(x) * fma(e, r, 1);  S = 0.5f * s;  gelu = fma(erf, S, S)
 *
 * A lone value goes to ATen's own kernel instead: s * 0.5f * (1 +
 * erff(s * 0.70710677f)). tests/unit/test_bert.c compares both with
 * PyTorch's values.
 */
#ifndef MHA_GELU_ERF_H
#define MHA_GELU_ERF_H

#include <stddef.h>

/* exp(x) as oneDNN 2.6's JIT eltwise injector computes it. */
float onednn_expf(float x);

/* gelu(s) as oneDNN 2.6's gelu_erf computes one value. */
float onednn_gelu_erf(float s);

/* x (n values) = gelu(x), in place, as F.gelu gives them. */
void gelu_erf(float *x, size_t n);

#endif
