/* rng.c: MT19937 and the way PyTorch turns its output into floats.
 *
 * Each function names the PyTorch code it follows, so a reader can hold
 * the two side by side.
 */
#include "numerics/rng.h"

#include <math.h>
#include <stdbool.h>

#include "numerics/vecmath.h"

/* ---- MT19937 (Matsumoto and Nishimura), as at::mt19937 ------------- */

#define MT_M 397
#define MATRIX_A 0x9908b0dfu
#define UPPER_MASK 0x80000000u
#define LOWER_MASK 0x7fffffffu

void rng_seed(torch_rng *g, uint64_t seed)
{
    g->state[0] = (uint32_t)(seed & 0xffffffffu);
    for (uint32_t j = 1; j < MT_N; j++) {
        uint32_t prev = g->state[j - 1];
        g->state[j] = 1812433253u * (prev ^ (prev >> 30)) + j;
    }
    g->next = MT_N; /* regenerate on the first draw */
    g->has_cached_normal = false;
    g->cached_normal = 0.0;
}

/* One word of the twist: from s[k], s[k + 1] and s[k + M]. */
static inline uint32_t twist(uint32_t k, uint32_t next, uint32_t far)
{
    const uint32_t y = (k & UPPER_MASK) | (next & LOWER_MASK);
    return far ^ (y >> 1) ^ ((y & 1u) ? MATRIX_A : 0u);
}

/* Refill all 624 words of the state at once, in order, each word reading
 * the words after it as they are at that moment: the first N - M read
 * words not yet refilled, the rest words already refilled (k + M - N);
 * split in three loops so that none needs a remainder. */
static void mt_twist(torch_rng *g)
{
    uint32_t *s = g->state;
    size_t k = 0;
    for (; k < MT_N - MT_M; k++)
        s[k] = twist(s[k], s[k + 1], s[k + MT_M]);
    for (; k < MT_N - 1; k++)
        s[k] = twist(s[k], s[k + 1], s[k + MT_M - MT_N]);
    s[MT_N - 1] = twist(s[MT_N - 1], s[0], s[MT_M - 1]);
    g->next = 0;
}

static inline uint32_t temper(uint32_t y)
{
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

uint32_t rng_next32(torch_rng *g)
{
    if (g->next >= MT_N)
        mt_twist(g);
    return temper(g->state[g->next++]);
}

/* y[0..n) = the next n outputs of rng_next32, a run of the state at a
 * time. */
static void next_words(torch_rng *g, uint32_t *y, size_t n)
{
    for (size_t i = 0; i < n;) {
        if (g->next >= MT_N)
            mt_twist(g);
        size_t run = MT_N - g->next;
        if (run > n - i)
            run = n - i;
        const uint32_t *s = g->state + g->next;
        for (size_t j = 0; j < run; j++)
            y[i + j] = temper(s[j]);
        g->next += run;
        i += run;
    }
}

uint64_t rng_next64(torch_rng *g)
{
    uint64_t hi = rng_next32(g);
    uint64_t lo = rng_next32(g);
    return (hi << 32) | lo;
}

/* ---- uniform numbers: at::uniform_real_distribution ---------------- */

float rng_float01(torch_rng *g)
{
    return (float)(rng_next32(g) & 0xffffffu) * (1.0f / 16777216.0f);
}

double rng_double01(torch_rng *g)
{
    const uint64_t mask = (UINT64_C(1) << 53) - 1;
    return (double)(rng_next64(g) & mask) * (1.0 / 9007199254740992.0);
}

/* out[i] = fmaf(u_i, width, lo), u_i from the low 24 bits of y[i], as
 * rng_float01. fmaf is correctly rounded, so the FMA instruction (where
 * the processor has it) gives the C library's bits without a call per
 * value. */
static void uniform_from_words(float *out, const uint32_t *y, size_t n,
                               float width, float lo)
{
    for (size_t i = 0; i < n; i++)
        out[i] =
            fmaf((float)(y[i] & 0xffffffu) * (1.0f / 16777216.0f), width, lo);
}

#if defined(__GNUC__) && defined(__x86_64__)
static __attribute__((target("avx2,fma"))) void
uniform_from_words_fma(float *out, const uint32_t *y, size_t n, float width,
                       float lo)
{
    for (size_t i = 0; i < n; i++)
        out[i] =
            fmaf((float)(y[i] & 0xffffffu) * (1.0f / 16777216.0f), width, lo);
}

static bool have_avx2_fma(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif

void rng_uniform_fill(float *out, size_t n, double from, double to,
                      torch_rng *g)
{
    /* The bounds are cast to float first; the arithmetic stays in float.
     * PyTorch's x86 build compiles `u * (to - from) + from` into one fused
     * multiply-add (one rounding), so that is what we compute. */
    const float lo = (float)from;
    const float width = (float)to - lo;
#if defined(__GNUC__) && defined(__x86_64__)
    const bool fma = have_avx2_fma();
#endif
    uint32_t y[MT_N];
    for (size_t i = 0; i < n; i += MT_N) {
        const size_t m = n - i < MT_N ? n - i : MT_N;
        next_words(g, y, m);
#if defined(__GNUC__) && defined(__x86_64__)
        if (fma) {
            uniform_from_words_fma(out + i, y, m, width, lo);
            continue;
        }
#endif
        uniform_from_words(out + i, y, m, width, lo);
    }
}

/* ---- normal numbers ------------------------------------------------- */

/* Path 1, at::normal_distribution<double>: one value per call, the
 * second half of each Box-Muller pair cached in the generator. */
static double normal_double(torch_rng *g)
{
    if (g->has_cached_normal) {
        g->has_cached_normal = false;
        return g->cached_normal;
    }
    const double pi = 3.14159265358979323846;
    double u1 = rng_double01(g);
    double u2 = rng_double01(g);
    double r = sqrt(-2.0 * log(1.0 - u2));
    double theta = 2.0 * pi * u1;
    g->cached_normal = r * sin(theta);
    g->has_cached_normal = true;
    return r * cos(theta);
}

/* Path 2 runs, on x86 CPUs with AVX2 (what PyTorch picks on any recent
 * PC), the vectorised normal_fill_16_AVX2, with its own log, sin and cos
 * (vecmath.h). */

/* normal_fill_16_AVX2: x[0..15] holds uniforms; pair j with j + 8. */
static void normal_fill_16(float *x, float mean, float std)
{
    const float two_pi = (float)(2.0f * 3.14159265358979323846);
    for (size_t j = 0; j < 8; j++) {
        const float u1 = 1.0f - x[j]; /* [0, 1) -> (0, 1] for the log */
        const float u2 = x[j + 8];
        const float radius = sqrtf(-2.0f * cephes_logf(u1));
        const float theta = two_pi * u2;
        float s, c;
        cephes_sincosf(theta, &s, &c);
        x[j] = fmaf(radius * c, std, mean);
        x[j + 8] = fmaf(radius * s, std, mean);
    }
}

void rng_normal_fill(float *out, size_t n, double mean, double std,
                     torch_rng *g)
{
    if (n < 16) {
        for (size_t i = 0; i < n; i++)
            out[i] = (float)(normal_double(g) * std + mean);
        return;
    }
    const float fmean = (float)mean;
    const float fstd = (float)std;
    for (size_t i = 0; i < n; i++)
        out[i] = rng_float01(g);
    for (size_t i = 0; i + 16 <= n; i += 16)
        normal_fill_16(out + i, fmean, fstd);
    if (n % 16 != 0) {
        /* Redraw the last 16 values and transform them once more. */
        float *tail = out + n - 16;
        for (size_t i = 0; i < 16; i++)
            tail[i] = rng_float01(g);
        normal_fill_16(tail, fmean, fstd);
    }
}

/* ---- Bernoulli draws: dropout's masks -------------------------------- */

void rng_bernoulli_fill(float *out, size_t n, double p, torch_rng *g)
{
    for (size_t i = 0; i < n; i++)
        out[i] = rng_double01(g) < p ? 1.0f : 0.0f;
}

void rng_exponential_fill(float *out, size_t n, torch_rng *g)
{
    // transformation::exponential: -1 / lambda * log(1 - u), lambda 1
    for (size_t i = 0; i < n; i++)
        out[i] = (float)(-1.0 / 1.0 * log(1.0 - rng_double01(g)));
}

void rng_bernoulli_skip(size_t n, torch_rng *g)
{
    for (size_t i = 0; i < n; i++)
        (void)rng_next64(g);
}

/* ---- nn.Linear.reset_parameters ------------------------------------- */

void rng_linear_init(float *weight, float *bias, size_t in, size_t out,
                     torch_rng *g)
{
    /* kaiming_uniform_(weight, a=sqrt(5)), in double as torch.nn.init:
     * gain = sqrt(2 / (1 + a^2)), std = gain / sqrt(fan_in),
     * bound = sqrt(3) * std. */
    const double a = sqrt(5.0);
    const double gain = sqrt(2.0 / (1.0 + pow(a, 2.0)));
    const double std = gain / sqrt((double)in);
    const double bound = sqrt(3.0) * std;
    rng_uniform_fill(weight, out * in, -bound, bound, g);
    if (bias != NULL) {
        const double bias_bound = 1.0 / sqrt((double)in);
        rng_uniform_fill(bias, out, -bias_bound, bias_bound, g);
    }
}
