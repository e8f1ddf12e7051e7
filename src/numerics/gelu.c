/* gelu.c: GPT-2's GELU in PyTorch's bits (gelu.h).
 *
 * sleef_tanhf follows SLEEF 3.5's tanhf step by step: exp(|x|) as an
 * unevaluated sum of two floats (a "double-float"), then (e - 1/e) /
 * (e + 1/e) in double-float arithmetic, each step with the fused
 * multiply-adds of its FMA build; fmaf is correctly rounded, so it gives
 * the instruction's bits. On a processor with AVX-512, gelu_new takes
 * sixteen values at a time through the same steps (gelu_new_avx512).
 */
#include "numerics/gelu.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#endif

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

#if defined(__GNUC__) && defined(__x86_64__)
/* ---- AVX-512: the same steps on 16 values at a time ---------------------
 *
 * Each lane does what gelu_body does to one value, operation for
 * operation (a vector add, multiply, divide, fused multiply-add or
 * rounding to an integer gives the same bits as the scalar one); the
 * branches become masks: every lane computes exp, and the lanes past
 * 8.664339742 or NaN take their value from the branch they would have
 * taken. */

typedef struct {
    __m512 hi, lo;
} vdf;

#define VINLINE static inline __attribute__((always_inline, target("avx512f")))

/* x with its sign bits changed by the bits of m (integer logic: the
 * float forms are AVX-512DQ's) */
VINLINE __m512 vxor(__m512 x, __m512 m)
{
    return _mm512_castsi512_ps(
        _mm512_xor_si512(_mm512_castps_si512(x), _mm512_castps_si512(m)));
}

VINLINE __m512 vand(__m512 x, __m512 m)
{
    return _mm512_castsi512_ps(
        _mm512_and_si512(_mm512_castps_si512(x), _mm512_castps_si512(m)));
}

VINLINE __m512 vor(__m512 x, __m512 m)
{
    return _mm512_castsi512_ps(
        _mm512_or_si512(_mm512_castps_si512(x), _mm512_castps_si512(m)));
}

VINLINE vdf vdf_add_f(vdf x, __m512 y)
{
    const __m512 s = _mm512_add_ps(x.hi, y), v = _mm512_sub_ps(s, x.hi);
    const __m512 t = _mm512_add_ps(_mm512_sub_ps(x.hi, _mm512_sub_ps(s, v)),
                                   _mm512_sub_ps(y, v));
    return (vdf){s, _mm512_add_ps(t, x.lo)};
}

VINLINE vdf vdf_add(vdf x, vdf y)
{
    const __m512 s = _mm512_add_ps(x.hi, y.hi), v = _mm512_sub_ps(s, x.hi);
    const __m512 t = _mm512_add_ps(_mm512_sub_ps(x.hi, _mm512_sub_ps(s, v)),
                                   _mm512_sub_ps(y.hi, v));
    return (vdf){s, _mm512_add_ps(t, _mm512_add_ps(x.lo, y.lo))};
}

VINLINE vdf vdf_add_big(vdf x, vdf y)
{
    const __m512 s = _mm512_add_ps(x.hi, y.hi);
    return (vdf){
        s, _mm512_add_ps(
               _mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(x.hi, s), y.hi), x.lo),
               y.lo)};
}

VINLINE vdf vf_add_df(__m512 x, vdf y)
{
    const __m512 s = _mm512_add_ps(x, y.hi);
    return (vdf){s,
                 _mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(x, s), y.hi), y.lo)};
}

/* fmaf(a, b, -c) and fmaf(-a, b, c): the negation is exact, so these are
 * the fused a * b - c and -(a * b) + c */
VINLINE vdf vdf_mul_f(vdf x, __m512 y)
{
    const __m512 s = _mm512_mul_ps(x.hi, y);
    return (vdf){s, _mm512_fmadd_ps(x.lo, y, _mm512_fmsub_ps(x.hi, y, s))};
}

VINLINE vdf vdf_mul(vdf x, vdf y)
{
    const __m512 s = _mm512_mul_ps(x.hi, y.hi);
    return (vdf){
        s, _mm512_fmadd_ps(
               x.hi, y.lo,
               _mm512_fmadd_ps(x.lo, y.hi, _mm512_fmsub_ps(x.hi, y.hi, s)))};
}

VINLINE vdf vdf_square(vdf x)
{
    const __m512 s = _mm512_mul_ps(x.hi, x.hi);
    return (vdf){s, _mm512_fmadd_ps(_mm512_add_ps(x.hi, x.hi), x.lo,
                                    _mm512_fmsub_ps(x.hi, x.hi, s))};
}

VINLINE vdf vdf_reciprocal(vdf d)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512 s = _mm512_div_ps(one, d.hi);
    return (vdf){
        s, _mm512_mul_ps(
               s, _mm512_fnmadd_ps(d.lo, s, _mm512_fnmadd_ps(d.hi, s, one)))};
}

VINLINE vdf vdf_div(vdf n, vdf d)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512 t = _mm512_div_ps(one, d.hi), s = _mm512_mul_ps(n.hi, t);
    const __m512 u = _mm512_fmsub_ps(t, n.hi, s);
    const __m512 v = _mm512_fnmadd_ps(d.lo, t, _mm512_fnmadd_ps(d.hi, t, one));
    return (vdf){s, _mm512_fmadd_ps(s, v, _mm512_fmadd_ps(n.lo, t, u))};
}

/* 2^q for q in the normal exponent range. */
VINLINE __m512 vpow2i(__m512i q)
{
    return _mm512_castsi512_ps(
        _mm512_slli_epi32(_mm512_add_epi32(q, _mm512_set1_epi32(0x7f)), 23));
}

/* exp_df of each lane (0 <= d <= 8.67). */
VINLINE vdf vexp_df(__m512 d)
{
    // rounded to the nearest integer, ties to even, as rintf
    const __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(
        d,
        _mm512_set1_ps(
            1.442695040888963407359924681001892137426645954152985934135449406931f)));
    const __m512 qf = _mm512_cvtepi32_ps(q);
    vdf s = vdf_add_f((vdf){d, _mm512_setzero_ps()},
                      _mm512_mul_ps(qf, _mm512_set1_ps(-0.693145751953125f)));
    s = vdf_add_f(
        s, _mm512_mul_ps(qf, _mm512_set1_ps(-1.428606765330187045e-06f)));

    __m512 u = _mm512_set1_ps(0.1980960224e-3f);
    u = _mm512_fmadd_ps(u, s.hi, _mm512_set1_ps(0.1394256484e-2f));
    u = _mm512_fmadd_ps(u, s.hi, _mm512_set1_ps(0.8333456703e-2f));
    u = _mm512_fmadd_ps(u, s.hi, _mm512_set1_ps(0.4166637361e-1f));

    vdf t = vdf_add_f(vdf_mul_f(s, u),
                      _mm512_set1_ps(0.166666659414234244790680580464e+0f));
    t = vdf_add_f(vdf_mul(s, t), _mm512_set1_ps(0.5f));
    t = vdf_add(s, vdf_mul(vdf_square(s), t));
    t = vf_add_df(_mm512_set1_ps(1.0f), t);

    const __m512i h = _mm512_srai_epi32(q, 1);
    const __m512 p0 = vpow2i(h), p1 = vpow2i(_mm512_sub_epi32(q, h));
    t.hi = _mm512_mul_ps(_mm512_mul_ps(t.hi, p0), p1);
    t.lo = _mm512_mul_ps(_mm512_mul_ps(t.lo, p0), p1);
    return t;
}

VINLINE __m512 vtanh_body(__m512 x)
{
    const __m512 sign = _mm512_set1_ps(-0.0f);
    const __m512 a = _mm512_abs_ps(x);
    // lanes that take the exp branch (not NaN, not past 8.664339742);
    // the others compute it on 0, and drop it
    const __mmask16 in =
        _mm512_cmp_ps_mask(a, _mm512_set1_ps(8.664339742f), _CMP_NGT_UQ) &
        _mm512_cmp_ps_mask(x, x, _CMP_ORD_Q);
    vdf d = vexp_df(_mm512_maskz_mov_ps(in, a));
    const vdf e = vdf_reciprocal(d);
    d = vdf_div(vdf_add_big(d, (vdf){vxor(e.hi, sign), vxor(e.lo, sign)}),
                vdf_add_big(d, e));
    __m512 y = _mm512_add_ps(d.hi, d.lo);
    const __mmask16 nan_y = _mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q);
    y = _mm512_mask_mov_ps(_mm512_set1_ps(1.0f), (__mmask16)(in & ~nan_y), y);
    y = vor(y, vand(x, sign)); /* y >= 0: the sign of x */
    // SLEEF's NaN, every bit set, for a NaN x
    return _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q),
                              _mm512_castsi512_ps(_mm512_set1_epi32(-1)));
}

static __attribute__((target("avx512f"))) void gelu_new_avx512(float *x,
                                                               size_t n)
{
    const __m512 cube = _mm512_set1_ps(0.044715f);
    const __m512 root = _mm512_set1_ps((float)0.7978845608028654);
    const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.0f);
    for (size_t i = 0; i < n; i += 16) {
        // the last values: the lanes past n are neither read nor written
        const __mmask16 m =
            (__mmask16)(n - i >= 16 ? 0xffffu : (1u << (n - i)) - 1u);
        const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
        const __m512 cubed = _mm512_mul_ps(_mm512_mul_ps(v, v), v);
        const __m512 inner =
            _mm512_mul_ps(root, _mm512_add_ps(v, _mm512_mul_ps(cube, cubed)));
        const __m512 y = _mm512_mul_ps(_mm512_mul_ps(half, v),
                                       _mm512_add_ps(one, vtanh_body(inner)));
        _mm512_mask_storeu_ps(x + i, m, y);
    }
}
#endif

void gelu_new(float *x, size_t n)
{
#if defined(__GNUC__) && defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        gelu_new_avx512(x, n);
        return;
    }
    if (__builtin_cpu_supports("fma")) {
        gelu_new_fma(x, n);
        return;
    }
#endif
    gelu_body(x, n);
}
