/* json_out.c: the JSON and base64 the page's data is written in
 * (json_out.h), for html_data.c and each view's writer. */
#include "html/json_out.h"

#include <stdint.h>
#include <string.h>

void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

/* RFC 4648's alphabet. */
static const char digits[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void base64_put(base64_out *b, unsigned char byte)
{
    b->group[b->have++] = byte;
    if (b->have < 3)
        return;
    fputc(digits[b->group[0] >> 2], b->out);
    fputc(digits[((b->group[0] & 3) << 4) | (b->group[1] >> 4)], b->out);
    fputc(digits[((b->group[1] & 15) << 2) | (b->group[2] >> 6)], b->out);
    fputc(digits[b->group[2] & 63], b->out);
    b->have = 0;
}

void base64_end(base64_out *b)
{
    if (b->have == 0)
        return;
    if (b->have == 1)
        b->group[1] = 0;
    fputc(digits[b->group[0] >> 2], b->out);
    fputc(digits[((b->group[0] & 3) << 4) | (b->group[1] >> 4)], b->out);
    fputc(b->have == 2 ? digits[(b->group[1] & 15) << 2] : '=', b->out);
    fputc('=', b->out);
    b->have = 0;
}

void base64_float(base64_out *b, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    for (int i = 0; i < 4; i++)
        base64_put(b, (unsigned char)(bits >> (8 * i)));
}

/* The bytes of n floats, little-endian, in base64 (RFC 4648, padded). */
static void base64_floats(FILE *out, const float *v, size_t n)
{
    base64_out b = {.out = out};
    for (size_t i = 0; i < n; i++)
        base64_float(&b, v[i]);
    base64_end(&b);
}

void json_floats(FILE *out, const float *v, size_t rows, size_t cols)
{
    fprintf(out, "{\"rows\":%zu,\"cols\":%zu,\"f32\":\"", rows, cols);
    base64_floats(out, v, rows * cols);
    fputs("\"}", out);
}
