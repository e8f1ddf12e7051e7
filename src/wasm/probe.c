/* probe.c: meson's check that clang builds WebAssembly reactor modules
 * with the C library, the maths library and the compiler's builtins the
 * core needs (src/wasm/meson.build). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((export_name("probe"))) int probe(float a, uint64_t b);

int probe(float a, uint64_t b)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return -1;
    fprintf(f, "%.9g %llu", (double)fmaf(a, a, expf(a)),
            (unsigned long long)(b / 7u));
    fclose(f);
    free(text);
    return (int)len;
}
