/* floatfmt_double.h: float_text's previous method, the oracle of
 * tests/unit/floatfmt_exhaustive.c (see floatfmt_double.c). */
#ifndef MHA_FLOATFMT_DOUBLE_H
#define MHA_FLOATFMT_DOUBLE_H

#include <stdbool.h>
#include <stddef.h>

/* The text of v as float_text writes it, into buf (FLOAT_TEXT_SIZE
 * bytes); returns its length. */
size_t float_text_double(char *buf, float v, bool decimal_comma);

#endif
