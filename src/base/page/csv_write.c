/* csv_write.c: libcsv's csv_write for the WebAssembly core, which has
 * no libcsv: the one libcsv function the core's writers call
 * (render/textbuf.c quotes a CSV field with it).
 *
 * As csv(3) describes it: src (src_size bytes) is written to dest
 * between double quotes, each double quote in it doubled, at most
 * dest_size bytes of that written; the return value is the size of the
 * whole quoted field, whatever dest_size is (dest may be NULL). */
#include <csv.h>

size_t csv_write(void *dest, size_t dest_size, const void *src, size_t src_size)
{
    unsigned char *out = dest;
    const unsigned char *in = src;
    size_t n = 0;
    if (src == NULL)
        return 0;
    if (out == NULL)
        dest_size = 0;
#define PUT(c)             \
    do {                   \
        if (n < dest_size) \
            out[n] = (c);  \
        n++;               \
    } while (0)
    PUT('"');
    for (size_t i = 0; i < src_size; i++) {
        if (in[i] == '"')
            PUT('"');
        PUT(in[i]);
    }
    PUT('"');
#undef PUT
    return n;
}
