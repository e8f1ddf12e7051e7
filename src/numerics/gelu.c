/* gelu.c: GPT-2's GELU in PyTorch's bits (gelu.h).
 *
 * sleef_tanhf follows SLEEF 3.5's tanhf step by step: exp(|x|) as an
 * unevaluated sum of two floats (a "double-float"), then (e - 1/e) /
 * (e + 1/e) in double-float arithmetic, each step with the fused
 * multiply-adds of its FMA build; fmaf is correctly rounded, so it gives
 * the instruction's bits.
 */
#include "numerics/gelu.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

/* Every step is inlined into its callers, so that gelu_new_fma's copy
 * computes fmaf with the FMA instruction rather than a call. */
#define INLINE inline __attribute__((always_inline))

/* A value hi + lo, |lo| below half an ulp of hi. */
typedef struct {
    float hi, lo;
} df;

static INLINE df df_add_f(df x, float y) /* any magnitudes */
{
    const float s = x.hi + y, v = s - x.hi;
    const float t = (x.hi - (s - v)) + (y - v);
    return (df){s, t + x.lo};
}

static INLINE df df_add(df x, df y) /* any magnitudes */
{
    const float s = x.hi + y.hi, v = s - x.hi;
    const float t = (x.hi - (s - v)) + (y.hi - v);
    return (df){s, t + (x.lo + y.lo)};
}

static INLINE df df_add_big(df x, df y) /* |x| >= |y| */
{
    const float s = x.hi + y.hi;
    return (df){s, (((x.hi - s) + y.hi) + x.lo) + y.lo};
}

static INLINE df f_add_df(float x, df y) /* |x| >= |y| */
{
    const float s = x + y.hi;
    return (df){s, ((x - s) + y.hi) + y.lo};
}

static INLINE df df_mul_f(df x, float y)
{
    const float s = x.hi * y;
    return (df){s, fmaf(x.lo, y, fmaf(x.hi, y, -s))};
}

static INLINE df df_mul(df x, df y)
{
    const float s = x.hi * y.hi;
    return (df){s, fmaf(x.hi, y.lo, fmaf(x.lo, y.hi, fmaf(x.hi, y.hi, -s)))};
}

static INLINE df df_square(df x)
{
    const float s = x.hi * x.hi;
    return (df){s, fmaf(x.hi + x.hi, x.lo, fmaf(x.hi, x.hi, -s))};
}

static INLINE df df_reciprocal(df d)
{
    const float s = 1.0f / d.hi;
    return (df){s, s * fmaf(-d.lo, s, fmaf(-d.hi, s, 1.0f))};
}

static INLINE df df_div(df n, df d)
{
    const float t = 1.0f / d.hi, s = n.hi * t;
    const float u = fmaf(t, n.hi, -s);
    const float v = fmaf(-d.lo, t, fmaf(-d.hi, t, 1.0f));
    return (df){s, fmaf(s, v, fmaf(n.lo, t, u))};
}

/* 2^q for q in the normal exponent range. */
static INLINE float pow2i(int q)
{
    const uint32_t bits = (uint32_t)(q + 0x7f) << 23;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* exp(d) for 0 <= d <= 8.67, as a double-float. */
static INLINE df exp_df(float d)
{
    const int q = (int)rintf(
        d *
        1.442695040888963407359924681001892137426645954152985934135449406931f);
    df s = df_add_f((df){d, 0.0f}, (float)q * -0.693145751953125f);
    s = df_add_f(s, (float)q * -1.428606765330187045e-06f);

    float u = 0.1980960224e-3f;
    u = fmaf(u, s.hi, 0.1394256484e-2f);
    u = fmaf(u, s.hi, 0.8333456703e-2f);
    u = fmaf(u, s.hi, 0.4166637361e-1f);

    df t = df_add_f(df_mul_f(s, u), 0.166666659414234244790680580464e+0f);
    t = df_add_f(df_mul(s, t), 0.5f);
    t = df_add(s, df_mul(df_square(s), t));
    t = f_add_df(1.0f, t);

    const int h = q >> 1;
    t.hi = t.hi * pow2i(h) * pow2i(q - h);
    t.lo = t.lo * pow2i(h) * pow2i(q - h);
    return t;
}

static INLINE float tanh_body(float x)
{
    if (isnan(x)) {
        const uint32_t bits = 0xffffffffu; /* SLEEF's NaN: every bit set */
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    const float a = fabsf(x);
    float y = 1.0f;
    if (!(a > 8.664339742f)) {
        df d = exp_df(a);
        const df e = df_reciprocal(d);
        d = df_div(df_add_big(d, (df){-e.hi, -e.lo}), df_add_big(d, e));
        y = d.hi + d.lo;
        if (isnan(y))
            y = 1.0f;
    }
    return signbit(x) ? -y : y;
}

float sleef_tanhf(float x)
{
    return tanh_body(x);
}

static INLINE void gelu_body(float *x, size_t n)
{
    // the Python constants, rounded to float as a tensor op rounds them
    const float cube = 0.044715f;
    const float root = (float)0.7978845608028654; /* math.sqrt(2 / pi) */
    for (size_t i = 0; i < n; i++) {
        const float v = x[i];
        const float inner = root * (v + cube * (v * v * v));
        x[i] = 0.5f * v * (1.0f + tanh_body(inner));
    }
}

#if defined(__GNUC__) && defined(__x86_64__)
/* The same steps, built for processors with FMA: fmaf is one instruction
 * (correctly rounded, as the C library's fmaf, so the same bits). The
 * build keeps -ffp-contract=off: nothing else is fused. */
static __attribute__((target("fma"))) void gelu_new_fma(float *x, size_t n)
{
    gelu_body(x, n);
}
#endif

void gelu_new(float *x, size_t n)
{
#if defined(__GNUC__) && defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("fma")) {
        gelu_new_fma(x, n);
        return;
    }
#endif
    gelu_body(x, n);
}
