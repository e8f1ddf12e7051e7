/* json_out.h: the JSON and base64 the page's data is written in
 * (json_out.c): the bottom of html/, under html_data.c and each view's
 * writer (html_steps.c, html_training.c, html_maps.c,
 * html_generation.c, html_lens.c, html_model.c). */
#ifndef MHA_HTML_JSON_OUT_H
#define MHA_HTML_JSON_OUT_H

#include <stddef.h>
#include <stdio.h>

/* s as a JSON string; '<', '>' and '&' escaped too, so that no text can
 * end the <script> element that holds it. */
void json_string(FILE *out, const char *s);

/* Bytes written in base64 (RFC 4648, padded) as they come:
 * base64_put each byte (base64_float: a float32's 4 bytes, little-endian),
 * then base64_end. */
typedef struct {
    FILE *out;
    unsigned char group[3];
    size_t have;
} base64_out;

void base64_put(base64_out *b, unsigned char byte);
void base64_float(base64_out *b, float v);
void base64_end(base64_out *b);

/* {"rows":r,"cols":c,"f32":"..."}: the rows x cols floats at v, their
 * little-endian bytes in base64. */
void json_floats(FILE *out, const float *v, size_t rows, size_t cols);

#endif
