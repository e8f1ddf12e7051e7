/* floatfmt.h: a float32 as the shortest decimal text that reads back
 * (strtod, then rounded to float) as exactly the same float, written the
 * way printf's %g writes it: "0.3367", "1.5e-05", "-inf", "nan", whole
 * numbers below 1e9 as integers ("12", "-0"). */
#ifndef MHA_FLOATFMT_H
#define MHA_FLOATFMT_H

#include <stdbool.h>
#include <stddef.h>

/* Bytes a buffer for float_text must hold (text and its '\0'). */
#define FLOAT_TEXT_SIZE 32

/* Writes the text of v into buf (FLOAT_TEXT_SIZE bytes), with a decimal
 * comma instead of the point when decimal_comma; returns its length.
 * Integer arithmetic decides the digits (float_text_fast); the few values
 * it leaves undecided go to float_text_printf. */
size_t float_text(char *buf, float v, bool decimal_comma);

/* float_text without the fall-back: the text and its length, or 0 (buf
 * then undefined) for the values, a few in a million, whose digits lie
 * too close to a rounding boundary for its fixed-point arithmetic. */
size_t float_text_fast(char *buf, float v, bool decimal_comma);

/* The same text by the definition itself: "%.*g" with 1, 2, ... 9
 * significant digits until (float)strtod reads v back. Many times slower. */
void float_text_printf(char *buf, size_t size, float v, bool decimal_comma);

/* The most decimals float_fixed_text writes itself. */
#define FLOAT_FIXED_MAX_DIGITS 9

/* v as printf's "%.*f" writes it with `digits` decimals (a '-' on every
 * negative value, -0 included; ties rounded to even on v's exact value),
 * into buf (FLOAT_TEXT_SIZE bytes); returns its length, or 0 (buf then
 * undefined) when v is not finite, |v| >= 2^33 or digits is outside 0 to
 * FLOAT_FIXED_MAX_DIGITS: the caller then asks printf. The tables print
 * thousands of values this way, where printf's exact big-number method
 * would take most of a small run's time. */
size_t float_fixed_text(char *buf, float v, int digits);

#endif
