/* gelu.h: GPT-2's GELU ("gelu_new", the tanh form) in PyTorch's float32
 * bits, as transformers' NewGELUActivation computes it on the CPU:
 *
 *   0.5 * x * (1.0 + torch.tanh(sqrt(2 / pi) * (x + 0.044715 *
 *   torch.pow(x, 3.0))))
 *
 * one float32 operation after another: pow(x, 3.0) is x * x * x, the
 * Python constants are rounded to float, and torch.tanh is SLEEF's
 * Sleef_tanhf8_u10 on every value (PyTorch's vml::vtanh maps the
 * vectorised function over the tensor, its last partial vector too).
 */
#ifndef MHA_GELU_H
#define MHA_GELU_H

#include <stddef.h>

/* tanh(x) as SLEEF's tanhf (1.0-ULP, FMA build) computes it. */
float sleef_tanhf(float x);

/* x (n values) = gelu_new(x), in place. */
void gelu_new(float *x, size_t n);

#endif
