/* rotary_trig.h: float32 sin and cos as torch.Tensor.sin() and .cos()
 * compute them on x86 (PyTorch's vml::vsin and vml::vcos map SLEEF's
 * Sleef_sinf8_u10 and Sleef_cosf8_u10, AVX2 with FMA, over the tensor in
 * groups of 8 values, the last group padded with zeros), and the
 * frequencies of rotary positions as base ** (k / dim) is computed.
 *
 * SLEEF's u10 functions reduce the argument by pi in one of two ways: a
 * short Cody-Waite reduction when every lane of the 8 is below 125 in
 * magnitude, a longer one otherwise. Which one a value gets therefore
 * depends on its 7 neighbours in the tensor, and so it does here: the
 * functions take the whole row as PyTorch lays it out. The long
 * reduction follows a newer SLEEF than Debian's torch 1.13 links: equal
 * on every angle checked below 4096, it differs in the last bit on about
 * one angle in 50 000 above 7000 radians.
 */
#ifndef MHA_ROTARY_TRIG_H
#define MHA_ROTARY_TRIG_H

#include <stddef.h>

/* out[i] = sin(x[i]) (sine) or cos(x[i]) for i < n, x and out the
 * contiguous values of one tensor, in PyTorch's groups of 8. */
void torch_sin_row(float *out, const float *x, size_t n);
void torch_cos_row(float *out, const float *x, size_t n);

/* out[i] = base ** y[i] for i < n, base > 0 a scalar and y the n
 * contiguous values of a tensor, as torch.pow computes it: whole groups
 * of 16 with SLEEF's powf (Sleef_powf8_u10), the rest with the C
 * library's powf. out may be y. */
void torch_pow_row(float *out, float base, const float *y, size_t n);

#endif
