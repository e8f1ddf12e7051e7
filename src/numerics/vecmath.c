/* vecmath.c: PyTorch's float32 log, sin, cos and exp, one lane at a time.
 *
 * PyTorch's x86 kernels do not call the C library for these: the normal
 * generator uses Cephes polynomials (avx_mathfun.h, after Julien
 * Pommier's sse_mathfun) and softmax uses SLEEF's expf (u10, AVX2). Each
 * is written out here operation by operation, with a fused multiply-add
 * (fmaf) exactly where the vector code, or the compiler building it, fuses
 * one. tests/unit/test_rng.c and the reference tables check them bit for bit.
 */
#include "numerics/vecmath.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#endif

static float bits_to_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t float_to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

float cephes_logf(float x)
{
    const float min_normal = bits_to_float(0x00800000u);
    if (x < min_normal)
        x = min_normal;

    /* x = m * 2^e with m in [0.5, 1) */
    uint32_t bits = float_to_bits(x);
    float e = (float)((int32_t)(bits >> 23) - 0x7f);
    x = bits_to_float((bits & ~0x7f800000u) | float_to_bits(0.5f));
    e = e + 1.0f;

    /* if m < sqrt(1/2): e -= 1, x = m + m - 1; else x = m - 1 */
    const bool small = x < 0.707106781186547524f;
    const float keep = small ? x : 0.0f;
    x = x - 1.0f;
    e = e - (small ? 1.0f : 0.0f);
    x = x + keep;

    const float z = x * x;
    float y = 7.0376836292E-2f;
    y = fmaf(y, x, -1.1514610310E-1f);
    y = fmaf(y, x, 1.1676998740E-1f);
    y = fmaf(y, x, -1.2420140846E-1f);
    y = fmaf(y, x, 1.4249322787E-1f);
    y = fmaf(y, x, -1.6668057665E-1f);
    y = fmaf(y, x, 2.0000714765E-1f);
    y = fmaf(y, x, -2.4999993993E-1f);
    y = fmaf(y, x, 3.3333331174E-1f);
    y = y * x;
    y = fmaf(y, z, e * -2.12194440e-4f);
    y = fmaf(-z, 0.5f, y);
    x = x + y;
    return fmaf(e, 0.693359375f, x);
}

void cephes_sincosf(float x, float *sin_out, float *cos_out)
{
    uint32_t sign_sin = float_to_bits(x) & 0x80000000u;
    x = fabsf(x);

    /* j = octant of x, rounded up to even */
    float y = x * 1.27323954473516f; /* 4 / pi */
    int32_t j = (int32_t)y;
    j = (j + 1) & ~1;
    y = (float)j;
    const uint32_t swap_sign_sin = (uint32_t)(j & 4) << 29;
    /* in octants 0, 3, 4, 7 the sine comes from the sine polynomial and
     * the cosine from the cosine one; elsewhere they swap */
    const bool direct = (j & 2) == 0;
    const uint32_t sign_cos = (uint32_t)(~(j - 2) & 4) << 29;
    sign_sin ^= swap_sign_sin;

    /* extended precision modular arithmetic: x -= y * pi/4 in three parts */
    x = fmaf(y, -0.78515625f, x);
    x = fmaf(y, -2.4187564849853515625e-4f, x);
    x = fmaf(y, -3.77489497744594108e-8f, x);

    const float z = x * x;
    float c = 2.443315711809948E-005f;
    c = fmaf(c, z, -1.388731625493765E-003f);
    c = fmaf(c, z, 4.166664568298827E-002f);
    c = c * z;
    c = fmaf(c, z, -(z * 0.5f));
    c = c + 1.0f;

    float s = -1.9515295891E-4f;
    s = fmaf(s, z, 8.3321608736E-3f);
    s = fmaf(s, z, -1.6666654611E-1f);
    s = s * z;
    s = fmaf(s, x, x);

    /* pick per octant with the vector code's masks and additions */
    const float s_for_sin = direct ? s : 0.0f;
    const float c_for_sin = direct ? 0.0f : c;
    const float sin_value = c_for_sin + s_for_sin;
    const float cos_value = (c - c_for_sin) + (s - s_for_sin);
    *sin_out = bits_to_float(float_to_bits(sin_value) ^ sign_sin);
    *cos_out = bits_to_float(float_to_bits(cos_value) ^ sign_cos);
}

/* 2^q for q in the normal exponent range. */
static float pow2_int(int q)
{
    return bits_to_float((uint32_t)(q + 0x7f) << 23);
}

/* The body of sleef_expf, inlined twice: into sleef_expf, with fmaf a
 * call to the C library unless the build targets FMA, and into
 * expf_row_fma, where fmaf is one instruction. fmaf is correctly rounded
 * either way, so both give the same bits. */
static inline __attribute__((always_inline)) float expf_body(float d)
{
    if (isnan(d))
        return d;
    if (d < -104.0f)
        return 0.0f; /* also exp(-inf) */
    if (d > 104.0f)
        return INFINITY;

    /* d = q ln2 + s, with ln2 split in two for precision */
    const int q = (int)rintf(
        d *
        1.442695040888963407359924681001892137426645954152985934135449406931f);
    float s = fmaf((float)q, -0.693145751953125f, d);
    s = fmaf((float)q, -1.428606765330187045e-06f, s);

    float u = 0.000198527617612853646278381f;
    u = fmaf(u, s, 0.00139304355252534151077271f);
    u = fmaf(u, s, 0.00833336077630519866943359f);
    u = fmaf(u, s, 0.0416664853692054748535156f);
    u = fmaf(u, s, 0.166666671633720397949219f);
    u = fmaf(u, s, 0.5f);
    u = 1.0f + fmaf(s * s, u, s);

    /* u * 2^q, in two steps so that neither factor overflows */
    return u * pow2_int(q >> 1) * pow2_int(q - (q >> 1));
}

float sleef_expf(float d)
{
    return expf_body(d);
}

/* log(d) as SLEEF's xlogf_u1 (Sleef_logf8_u10 with AVX2 and FMA), which
 * PyTorch's vectorised log uses (log_softmax): d = m 2^e with m in [0.75,
 * 1.5), x = (m - 1) / (m + 1) in double-float arithmetic (a pair of
 * floats, head and tail), then log d = e ln2 + 2x + x^3 t(x^2). */
float sleef_logf(float d)
{
    const int tiny = d < FLT_MIN;
    if (tiny)
        d *= 18446744073709551616.0f; /* 2^64 */
    float scaled = d * (1.0f / 0.75f);
    int e = (int)((float_to_bits(scaled) >> 23) & 0xff) - 0x7f;
    const float m = bits_to_float(float_to_bits(d) - ((uint32_t)e << 23));
    if (tiny)
        e -= 64;

    /* s = e * ln2, ln2 as a double-float */
    const float ef = (float)e;
    float s_hi = 0.69314718246459960938f * ef;
    float s_lo = fmaf(-1.904654323148236017e-09f, ef,
                      fmaf(0.69314718246459960938f, ef, -s_hi));

    /* n = m - 1 and dd = m + 1, each exact as a double-float */
    const float n_hi = -1.0f + m;
    const float n_v = n_hi - -1.0f;
    const float n_lo = (-1.0f - (n_hi - n_v)) + (m - n_v);
    const float d_hi = 1.0f + m;
    const float d_v = d_hi - 1.0f;
    const float d_lo = (1.0f - (d_hi - d_v)) + (m - d_v);

    /* x = n / dd */
    const float t = 1.0f / d_hi;
    const float x_hi = n_hi * t;
    const float u = fmaf(t, n_hi, -x_hi);
    const float v = fmaf(-d_lo, t, fmaf(-d_hi, t, 1.0f));
    const float x_lo = fmaf(x_hi, v, fmaf(n_lo, t, u));

    const float x2 = x_hi * x_hi;
    float p = 0.3027294874e+0f;
    p = fmaf(p, x2, 0.3996108174e+0f);
    p = fmaf(p, x2, 0.6666694880e+0f);

    /* s += 2x (double-float) */
    const float a_hi = x_hi * 2.0f, a_lo = x_lo * 2.0f;
    float r_hi = s_hi + a_hi;
    float r_lo = (((s_hi - r_hi) + a_hi) + s_lo) + a_lo;
    s_hi = r_hi;
    s_lo = r_lo;
    /* s += x^3 p (a float) */
    const float w = x2 * x_hi * p;
    r_hi = s_hi + w;
    r_lo = ((s_hi - r_hi) + w) + s_lo;
    float r = r_hi + r_lo;

    if (isinf(d) && d > 0)
        r = INFINITY;
    if (d < 0 || isnan(d))
        r = NAN;
    if (d == 0)
        r = -INFINITY;
    return r;
}

/* ---- rows of exponentials ----------------------------------------------
 *
 * Four ways to compute a row, all giving sleef_expf's bits: the plain
 * body, the body with the FMA instruction, and 8 or 16 lanes at once with
 * AVX2 + FMA or AVX-512, doing in each lane the operations of expf_body
 * in its order (the special cases chosen by masks at the end). */

static void expf_row_generic(float *w, size_t n, float shift)
{
    for (size_t i = 0; i < n; i++)
        w[i] = expf_body(w[i] - shift);
}

#if defined(__GNUC__) && defined(__x86_64__)
static __attribute__((target("fma"))) void expf_row_fma(float *w, size_t n,
                                                        float shift)
{
    for (size_t i = 0; i < n; i++)
        w[i] = expf_body(w[i] - shift);
}

#define EXPF_LOG2E \
    1.442695040888963407359924681001892137426645954152985934135449406931f

static __attribute__((target("avx2,fma"))) __m256 expf8(__m256 d)
{
    const __m256 is_nan = _mm256_cmp_ps(d, d, _CMP_UNORD_Q);
    const __m256 low = _mm256_cmp_ps(d, _mm256_set1_ps(-104.0f), _CMP_LT_OQ);
    const __m256 high = _mm256_cmp_ps(d, _mm256_set1_ps(104.0f), _CMP_GT_OQ);
    const __m256i q = _mm256_cvtps_epi32(
        _mm256_round_ps(_mm256_mul_ps(d, _mm256_set1_ps(EXPF_LOG2E)),
                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    const __m256 qf = _mm256_cvtepi32_ps(q); /* (float)q: +0 for q == 0 */
    __m256 s = _mm256_fmadd_ps(qf, _mm256_set1_ps(-0.693145751953125f), d);
    s = _mm256_fmadd_ps(qf, _mm256_set1_ps(-1.428606765330187045e-06f), s);
    __m256 u = _mm256_set1_ps(0.000198527617612853646278381f);
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.00139304355252534151077271f));
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.00833336077630519866943359f));
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.0416664853692054748535156f));
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.166666671633720397949219f));
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.5f));
    u = _mm256_add_ps(_mm256_set1_ps(1.0f),
                      _mm256_fmadd_ps(_mm256_mul_ps(s, s), u, s));
    const __m256i half = _mm256_srai_epi32(q, 1);
    const __m256i bias = _mm256_set1_epi32(0x7f);
    const __m256 p1 = _mm256_castsi256_ps(
        _mm256_slli_epi32(_mm256_add_epi32(half, bias), 23));
    const __m256 p2 = _mm256_castsi256_ps(_mm256_slli_epi32(
        _mm256_add_epi32(_mm256_sub_epi32(q, half), bias), 23));
    __m256 r = _mm256_mul_ps(_mm256_mul_ps(u, p1), p2);
    r = _mm256_blendv_ps(r, _mm256_setzero_ps(), low);
    r = _mm256_blendv_ps(r, _mm256_set1_ps(INFINITY), high);
    return _mm256_blendv_ps(r, d, is_nan);
}

static __attribute__((target("avx2,fma"))) void
expf_row_avx2(float *w, size_t n, float shift)
{
    const __m256 sh = _mm256_set1_ps(shift);
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(w + i,
                         expf8(_mm256_sub_ps(_mm256_loadu_ps(w + i), sh)));
    expf_row_fma(w + i, n - i, shift);
}

static __attribute__((target("avx512f"))) __m512 expf16(__m512 d)
{
    const __mmask16 is_nan = _mm512_cmp_ps_mask(d, d, _CMP_UNORD_Q);
    const __mmask16 low =
        _mm512_cmp_ps_mask(d, _mm512_set1_ps(-104.0f), _CMP_LT_OQ);
    const __mmask16 high =
        _mm512_cmp_ps_mask(d, _mm512_set1_ps(104.0f), _CMP_GT_OQ);
    const __m512i q = _mm512_cvtps_epi32(
        _mm512_roundscale_ps(_mm512_mul_ps(d, _mm512_set1_ps(EXPF_LOG2E)),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    const __m512 qf = _mm512_cvtepi32_ps(q);
    __m512 s = _mm512_fmadd_ps(qf, _mm512_set1_ps(-0.693145751953125f), d);
    s = _mm512_fmadd_ps(qf, _mm512_set1_ps(-1.428606765330187045e-06f), s);
    __m512 u = _mm512_set1_ps(0.000198527617612853646278381f);
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.00139304355252534151077271f));
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.00833336077630519866943359f));
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.0416664853692054748535156f));
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.166666671633720397949219f));
    u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.5f));
    u = _mm512_add_ps(_mm512_set1_ps(1.0f),
                      _mm512_fmadd_ps(_mm512_mul_ps(s, s), u, s));
    const __m512i half = _mm512_srai_epi32(q, 1);
    const __m512i bias = _mm512_set1_epi32(0x7f);
    const __m512 p1 = _mm512_castsi512_ps(
        _mm512_slli_epi32(_mm512_add_epi32(half, bias), 23));
    const __m512 p2 = _mm512_castsi512_ps(_mm512_slli_epi32(
        _mm512_add_epi32(_mm512_sub_epi32(q, half), bias), 23));
    __m512 r = _mm512_mul_ps(_mm512_mul_ps(u, p1), p2);
    r = _mm512_mask_blend_ps(low, r, _mm512_setzero_ps());
    r = _mm512_mask_blend_ps(high, r, _mm512_set1_ps(INFINITY));
    return _mm512_mask_blend_ps(is_nan, r, d);
}

static __attribute__((target("avx512f"))) void
expf_row_avx512(float *w, size_t n, float shift)
{
    const __m512 sh = _mm512_set1_ps(shift);
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(w + i,
                         expf16(_mm512_sub_ps(_mm512_loadu_ps(w + i), sh)));
    expf_row_fma(w + i, n - i, shift);
}

static bool cpu_has(enum expf_path path)
{
    __builtin_cpu_init();
    switch (path) {
    case EXPF_PLAIN:
        return true;
    case EXPF_FMA:
        return __builtin_cpu_supports("fma");
    case EXPF_AVX2:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case EXPF_AVX512:
        return __builtin_cpu_supports("avx512f");
    }
    return false;
}
#else
static bool cpu_has(enum expf_path path)
{
    return path == EXPF_PLAIN;
}
#endif

bool expf_path_supported(enum expf_path path)
{
    return cpu_has(path);
}

void expf_row_with(enum expf_path path, float *w, size_t n, float shift)
{
#if defined(__GNUC__) && defined(__x86_64__)
    switch (path) {
    case EXPF_AVX512:
        expf_row_avx512(w, n, shift);
        return;
    case EXPF_AVX2:
        expf_row_avx2(w, n, shift);
        return;
    case EXPF_FMA:
        expf_row_fma(w, n, shift);
        return;
    case EXPF_PLAIN:
        break;
    }
#else
    (void)path;
#endif
    expf_row_generic(w, n, shift);
}

/* cppcheck reads the portable cpu_has above, for which only EXPF_PLAIN
 * is true, so the conditions below are suppressed. */
enum expf_path expf_path_best(void)
{
    // cppcheck-suppress knownConditionTrueFalse
    if (cpu_has(EXPF_AVX512))
        return EXPF_AVX512;
    // cppcheck-suppress knownConditionTrueFalse
    if (cpu_has(EXPF_AVX2))
        return EXPF_AVX2;
    // cppcheck-suppress knownConditionTrueFalse
    if (cpu_has(EXPF_FMA))
        return EXPF_FMA;
    return EXPF_PLAIN;
}

void expf_row(float *w, size_t n, float shift)
{
    expf_row_with(expf_path_best(), w, n, shift);
}
