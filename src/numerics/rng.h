/* rng.h: PyTorch's CPU random number generator, number for number.
 *
 * torch.manual_seed(s) seeds a 32-bit Mersenne Twister (MT19937) with the
 * low 32 bits of s. Layers then draw from it:
 *   nn.Embedding  -> normal_(0, 1)            (rng_normal_fill)
 *   nn.Linear     -> kaiming_uniform_, then uniform_ for the bias
 *                                              (rng_linear_init)
 * docs/torch-init.md gives the recipe and check values.
 */
#ifndef MHA_RNG_H
#define MHA_RNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MT_N 624

typedef struct {
    uint32_t state[MT_N];
    size_t next;            /* index of the next state word to temper */
    bool has_cached_normal; /* Box-Muller's second half, path 1 */
    double cached_normal;
} torch_rng;

/* torch.manual_seed(seed): only the low 32 bits count. */
void rng_seed(torch_rng *g, uint64_t seed);

uint32_t rng_next32(torch_rng *g);
/* First draw is the high half. */
uint64_t rng_next64(torch_rng *g);

/* Uniform in [0, 1) from 24 bits (float) and 53 bits (double). */
float rng_float01(torch_rng *g);
double rng_double01(torch_rng *g);

/* tensor.uniform_(from, to) on n float32 values, in memory order. */
void rng_uniform_fill(float *out, size_t n, double from, double to,
                      torch_rng *g);

/* tensor.normal_(mean, std) on n float32 values: PyTorch's two paths,
 * element-wise Box-Muller in double below 16 values, blocks of 16 in
 * float from 16 values on. */
void rng_normal_fill(float *out, size_t n, double mean, double std,
                     torch_rng *g);

/* tensor.bernoulli_(p) on n float32 values, in memory order, as
 * PyTorch's CPU kernel without MKL (bernoulli_kernel of
 * aten/src/ATen/native/cpu/DistributionTemplates.h): each value one
 * at::bernoulli_distribution<double>, a 53-bit uniform u from one 64-bit
 * draw, 1 when u < p, else 0. */
void rng_bernoulli_fill(float *out, size_t n, double p, torch_rng *g);

/* Skips what rng_bernoulli_fill would draw for n values. */
void rng_bernoulli_skip(size_t n, torch_rng *g);

/* tensor.exponential_(1) on n float32 values, in memory order, as
 * PyTorch's CPU kernel without MKL (exponential_kernel of
 * aten/src/ATen/native/cpu/DistributionTemplates.h): each value one
 * at::exponential_distribution<double>, a 53-bit uniform u from one
 * 64-bit draw, then (float)(-log(1 - u)). torch.multinomial draws these
 * (model/sampling.h). */
void rng_exponential_fill(float *out, size_t n, torch_rng *g);

/* nn.Linear(in, out): weight (out, in) from kaiming_uniform_(a=sqrt(5)),
 * then, when bias is not NULL, bias (out) from uniform_(+-1/sqrt(in)). */
void rng_linear_init(float *weight, float *bias, size_t in, size_t out,
                     torch_rng *g);

#endif
