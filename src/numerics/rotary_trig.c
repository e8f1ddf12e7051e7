/* rotary_trig.c: SLEEF's sinf and cosf (u10, the FMA build), as
 * torch.sin and torch.cos run them (rotary_trig.h).
 *
 * Each step follows SLEEF's xsinf_u1 and xcosf_u1 (src/libm/sleefsimdsp.c)
 * and its double-float helpers (src/common/df.h, the ENABLE_FMA_SP
 * branch): a value hi + lo held in two floats, fmaf exactly where the
 * vector code fuses a multiply-add (vmla is an FMA in the AVX2 build).
 */
#include "numerics/rotary_trig.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

#define PI_A2f 3.1414794921875f
#define PI_B2f 0.00011315941810607910156f
#define PI_C2f 1.9841872589410058936e-09f
#define TRIGRANGEMAX2f 125.0f
#define PI_A3f 3.14154052734375f
#define PI_B3f 5.212612450122833252e-05f
#define PI_C3f 1.2154188766544393729e-10f
#define PI_D3f 1.2246402351402674302e-16f
#define PI_E3f 6.5640073364868052239e-22f
#define TRIGRANGEMAX3f 5e+9f
#define ONE_PI 0.318309886183790671537767526745028724 /* M_1_PI */

/* A value x + y, |y| below half an ulp of x. */
typedef struct {
    float x, y;
} df;

static df df_add2_ff(float x, float y)
{
    const float s = x + y, v = s - x;
    return (df){s, (x - (s - v)) + (y - v)};
}

static df df_add2_f_df(float x, df y)
{
    const float s = x + y.x, v = s - x;
    return (df){s, ((x - (s - v)) + (y.x - v)) + y.y};
}

static df df_add2_df_f(df x, float y)
{
    const float s = x.x + y, v = s - x.x;
    const float t = (x.x - (s - v)) + (y - v);
    return (df){s, t + x.y};
}

static df df_add2_df_df(df x, df y)
{
    const float s = x.x + y.x, v = s - x.x;
    const float t = (x.x - (s - v)) + (y.x - v);
    return (df){s, t + (x.y + y.y)};
}

static df df_add_df_f(df x, float y) /* |x| >= |y| */
{
    const float s = x.x + y;
    return (df){s, ((x.x - s) + y) + x.y};
}

static df df_add_f_df(float x, df y) /* |x| >= |y| */
{
    const float s = x + y.x;
    return (df){s, ((x - s) + y.x) + y.y};
}

static df df_add_ff(float x, float y) /* |x| >= |y| */
{
    const float s = x + y;
    return (df){s, (x - s) + y};
}

static df df_normalize(df t)
{
    const float s = t.x + t.y;
    return (df){s, (t.x - s) + t.y};
}

static df df_mul_df_f(df x, float y)
{
    const float s = x.x * y;
    return (df){s, fmaf(x.y, y, fmaf(x.x, y, -s))};
}

static df df_mul_df_df(df x, df y)
{
    const float s = x.x * y.x;
    return (df){s, fmaf(x.x, y.y, fmaf(x.y, y.x, fmaf(x.x, y.x, -s)))};
}

static float df_mul_to_f(df x, df y)
{
    return fmaf(x.x, y.x, fmaf(x.y, y.x, x.x * y.y));
}

static df df_square(df x)
{
    const float s = x.x * x.x;
    return (df){s, fmaf(x.x + x.x, x.y, fmaf(x.x, x.x, -s))};
}

/* The reduction of d by pi (sine, half = false) or of d - pi/2 (cosine):
 * *q the quadrant's count, the result d - q pi/2 as a double-float. */
static df reduce_short(int *q, float d, bool cosine)
{
    if (!cosine) {
        const float u = rintf(d * (float)ONE_PI);
        *q = (int)u;
        const float v = fmaf(u, -PI_A2f, d);
        df s = df_add2_ff(v, u * -PI_B2f);
        return df_add_df_f(s, u * -PI_C2f);
    }
    const float dq = fmaf(rintf(fmaf(d, (float)ONE_PI, -0.5f)), 2, 1);
    *q = (int)rintf(dq);
    df s = df_add2_ff(d, dq * (-PI_A2f * 0.5f));
    s = df_add2_df_f(s, dq * (-PI_B2f * 0.5f));
    return df_add2_df_f(s, dq * (-PI_C2f * 0.5f));
}

static df reduce_long(int *q, float d, bool cosine)
{
    const df one_pi = {(float)ONE_PI, (float)(ONE_PI - (float)ONE_PI)};
    df dfq = df_mul_df_f(one_pi, d);
    if (cosine)
        dfq = df_add2_df_f(dfq, -0.5f);
    const float t = rintf(dfq.x * (1.0f / (1 << 16)));
    const float r = rintf(fmaf(t, -(float)(1 << 16), dfq.x) + dfq.y);
    dfq.y = cosine ? fmaf(r, 2, 1) : r;
    *q = (int)rintf(dfq.y);
    dfq.x = t * (float)(cosine ? 1 << 17 : 1 << 16);
    dfq = df_normalize(dfq);
    const float scale = cosine ? 0.5f : 1.0f;
    df s = df_add2_f_df(d, df_mul_df_f(dfq, -PI_A3f * scale));
    s = df_normalize(s);
    const float parts[] = {PI_B3f, PI_C3f, PI_D3f, PI_E3f};
    for (size_t i = 0; i < 4; i++) {
        s = df_add2_df_df(s, df_mul_df_f(dfq, -parts[i] * scale));
        s = df_normalize(s);
    }
    return s;
}

/* sin (cosine false) or cos of d, reduced the short way (short_path) or
 * the long one. */
static float sincos_u1(float d, bool cosine, bool short_path)
{
    int q;
    const df t =
        short_path ? reduce_short(&q, d, cosine) : reduce_long(&q, d, cosine);
    const df s = df_square(t);
    float u = 2.6083159809786593541503e-06f;
    u = fmaf(u, s.x, -0.0001981069071916863322258f);
    u = fmaf(u, s.x, 0.00833307858556509017944336f);
    const df x = df_add_f_df(
        1, df_mul_df_df(df_add_ff(-0.166666597127914428710938f, u * s.x), s));
    u = df_mul_to_f(t, x);
    const bool negate = cosine ? (q & 2) == 0 : (q & 1) == 1;
    if (negate)
        u = -u;
    if (isinf(d) || fabsf(d) > TRIGRANGEMAX3f)
        return cosine ? (isinf(d) ? NAN : 0.0f) : (isinf(d) ? NAN : -0.0f);
    if (!cosine && d == 0 && signbit(d))
        return -0.0f;
    return u;
}

static void row(float *out, const float *x, size_t n, bool cosine)
{
    for (size_t g = 0; g < n; g += 8) {
        const size_t m = g + 8 <= n ? 8 : n - g;
        // the short reduction only when all 8 lanes are below 125 (the
        // padding lanes are zeros)
        bool short_path = true;
        for (size_t i = 0; i < m; i++)
            if (!(fabsf(x[g + i]) < TRIGRANGEMAX2f))
                short_path = false;
        for (size_t i = 0; i < m; i++)
            out[g + i] = sincos_u1(x[g + i], cosine, short_path);
    }
}

/* ---- powf: SLEEF's xpowf, for a positive base ------------------------- */

#define L2Uf 0.693145751953125f
#define L2Lf 1.428606765330187045e-06f
#define R_LN2f \
    1.442695040888963407359924681001892137426645954152985934135449406931f

static df df_scale(df x, float s)
{
    return (df){x.x * s, x.y * s};
}

static df df_div(df n, df d)
{
    const float t = 1.0f / d.x, s = n.x * t;
    const float u = fmaf(t, n.x, -s);
    const float v = fmaf(-d.y, t, fmaf(-d.x, t, 1.0f));
    return (df){s, fmaf(s, v, fmaf(n.y, t, u))};
}

/* log(d) for a positive normal d as a double-float (logkf). */
static df logk(float d)
{
    uint32_t bits;
    const float scaled = d * (1.0f / 0.75f);
    memcpy(&bits, &scaled, sizeof bits);
    const int e = (int)((bits >> 23) & 0xff) - 0x7f;
    const float m = ldexpf(d, -e);
    const df x = df_div(df_add2_ff(-1, m), df_add2_ff(1, m));
    const df x2 = df_square(x);
    float t = 0.240320354700088500976562f;
    t = fmaf(t, x2.x, 0.285112679004669189453125f);
    t = fmaf(t, x2.x, 0.400007992982864379882812f);
    const df c = {0.66666662693023681640625f, 3.69183861259614332084311e-09f};
    const df ln2 = {0.69314718246459960938f, -1.904654323148236017e-09f};
    return df_add2_df_df(
        df_mul_df_f(ln2, (float)e),
        df_add2_df_df(df_scale(x, 2),
                      df_mul_df_df(df_mul_df_df(x2, x),
                                   df_add2_df_df(df_mul_df_f(x2, t), c))));
}

/* exp(d) of a double-float (expkf). */
static float expk(df d)
{
    const float q = rintf((d.x + d.y) * R_LN2f);
    df s = df_add2_df_f(d, q * -L2Uf);
    s = df_add2_df_f(s, q * -L2Lf);
    s = df_normalize(s);
    float u = 0.00136324646882712841033936f;
    u = fmaf(u, s.x, 0.00836596917361021041870117f);
    u = fmaf(u, s.x, 0.0416710823774337768554688f);
    u = fmaf(u, s.x, 0.166665524244308471679688f);
    u = fmaf(u, s.x, 0.499999850988388061523438f);
    // dfadd_vf2_vf2_vf2(s, dfsqu(s) * u), then 1 + that
    const df sq = df_mul_df_f(df_square(s), u);
    const float a = s.x + sq.x;
    df t = {a, (((s.x - a) + sq.x) + s.y) + sq.y};
    t = df_add_f_df(1, t);
    if (d.x < -104)
        return 0;
    return ldexpf(t.x + t.y, (int)q);
}

/* base ** y for base > 0, finite y, as Sleef_powf8_u10. */
static float sleef_powf(float base, float y)
{
    if (y == 0 || base == 1)
        return 1;
    return expk(df_mul_df_f(logk(base), y));
}

void torch_pow_row(float *out, float base, const float *y, size_t n)
{
    // cpu_kernel_vec: pairs of 8-lane vectors through SLEEF, the rest
    // through the C library's powf (the scalar loop)
    const size_t vectors = n / 16 * 16;
    for (size_t i = 0; i < n; i++)
        out[i] = i < vectors ? sleef_powf(base, y[i]) : powf(base, y[i]);
}

void torch_sin_row(float *out, const float *x, size_t n)
{
    row(out, x, n, false);
}

void torch_cos_row(float *out, const float *x, size_t n)
{
    row(out, x, n, true);
}
