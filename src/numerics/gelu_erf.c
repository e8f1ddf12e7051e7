/* gelu_erf.c: the exact GELU in torch 1.13's CPU bits (gelu_erf.h):
 * oneDNN 2.6.3's gelu_erf step by step, each of its instructions one
 * float32 operation (vfmadd213ps an fmaf, which is correctly rounded as
 * the instruction is). */
#include "numerics/gelu_erf.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

/* The float whose bits are u, as oneDNN's tables give its constants. */
static float bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

float onednn_expf(float x)
{
    const float ln_flt_max = bits(0x42b17218), ln_flt_min = bits(0xc2aeac50);
    // values below log(FLT_MIN) give 0; then x is clamped (vminps and
    // vmaxps give the constant for a NaN x)
    const int zero = x < ln_flt_min;
    x = !(x < ln_flt_max) ? ln_flt_max : x;
    x = !(x > ln_flt_min) ? ln_flt_min : x;
    // n = floor(x * log2(e) + 0.5), r = x - n * ln 2
    const float n = floorf(x * bits(0x3fb8aa3b) + 0.5f);
    const float r = fmaf(-n, bits(0x3f317218), x);
    // 2^(n - 1) from its exponent bits, so that n = 128 fits
    const int32_t e = (int32_t)(n - 1.0f) + 127;
    const float two_n1 = zero ? 0.0f : bits((uint32_t)e << 23);
    float y = bits(0x3c07cfce);
    y = fmaf(y, r, bits(0x3d2b9d0d));
    y = fmaf(y, r, bits(0x3e2aad40));
    y = fmaf(y, r, bits(0x3efffee3));
    y = fmaf(y, r, bits(0x3f7ffffb));
    y = fmaf(y, r, 1.0f);
    return y * two_n1 * 2.0f;
}

float onednn_gelu_erf(float s)
{
    const uint32_t sign_mask = 0x80000000u;
    const float x = s * bits(0x3f3504f3); // s / sqrt(2)
    // t = 1 / (p * |x| + 1)
    const float t = 1.0f / fmaf(bits(0x3ea7ba05), fabsf(x), 1.0f);
    // -exp(-x * x) * t
    const float e =
        bits(bits_of(onednn_expf(bits(bits_of(x * x) ^ sign_mask))) ^
             sign_mask) *
        t;
    float r = bits(0x3f87dc22);
    r = fmaf(r, t, bits(0xbfba00e3));
    r = fmaf(r, t, bits(0x3fb5f0e3));
    r = fmaf(r, t, bits(0xbe91a98e));
    r = fmaf(r, t, bits(0x3e827906));
    // erf = sign(s) * (1 - r * t * exp(-x * x))
    const float erf =
        bits(bits_of(fmaf(e, r, 1.0f)) ^ (bits_of(s) & sign_mask));
    // 0.5 * s * (1 + erf) = S + S * erf
    const float half = 0.5f * s;
    return fmaf(erf, half, half);
}

void gelu_erf(float *x, size_t n)
{
    const float alpha = (float)0.70710678118654752440; /* M_SQRT1_2 */
    if (n == 1) { // ATen's kernel: oneDNN takes more than one value
        x[0] = x[0] * 0.5f * (1.0f + erff(x[0] * alpha));
        return;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = onednn_gelu_erf(x[i]);
}
