/* test_rng.c: the generator against PyTorch, bit for bit.
 *
 * Usage: test_rng REFERENCE_DIR
 * Reads REFERENCE_DIR/rng_check.txt (made by make_reference.py with real
 * PyTorch) and the check values of torch-init.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "numerics/rng.h"
#include "tap.h"

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Parses up to max hex words from *p, stopping at '|' or the end. */
static size_t read_hex(uint32_t *out, size_t max, char **p)
{
    size_t n = 0;
    while (n < max) {
        while (**p == ' ')
            (*p)++;
        if (**p == '|' || **p == '\n' || **p == '\0')
            break;
        out[n++] = (uint32_t)strtoul(*p, p, 16);
    }
    while (**p == ' ')
        (*p)++;
    if (**p == '|')
        (*p)++;
    return n;
}

/* Counts values of got[0..n) whose bits differ from want. */
static size_t mismatches(const float *got, const uint32_t *want, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (bits(got[i]) != want[i]) {
            if (bad == 0)
                diag("first difference at %zu: got %08x, PyTorch %08x", i,
                     (unsigned)bits(got[i]), (unsigned)want[i]);
            bad++;
        }
    return bad;
}

static void check_line(char *line)
{
    static uint32_t want[4096], want2[4096];
    static float got[4096], got2[4096];
    unsigned n, in, out, v, d;
    unsigned long long seed;
    double lo, hi;
    char *p = strchr(line, ':');
    if (p == NULL)
        return;
    p++;
    torch_rng g;

    if (sscanf(line, "randn %u seed %llu:", &n, &seed) == 2 && n <= 4096) {
        size_t k = read_hex(want, 4096, &p);
        rng_seed(&g, seed);
        rng_normal_fill(got, n, 0.0, 1.0, &g);
        ok(k == n && mismatches(got, want, n) == 0,
           "torch.randn(%u) with seed %llu, bit for bit", n, seed);
    } else if (sscanf(line, "uniform %u seed %llu %lf %lf:", &n, &seed, &lo,
                      &hi) == 4 &&
               n <= 4096) {
        size_t k = read_hex(want, 4096, &p);
        rng_seed(&g, seed);
        rng_uniform_fill(got, n, lo, hi, &g);
        ok(k == n && mismatches(got, want, n) == 0,
           "uniform_(%g, %g) on %u values with seed %llu, bit for bit", lo, hi,
           n, seed);
    } else if (strstr(line, "first16") != NULL &&
               sscanf(line, "linear %u %u seed %llu", &in, &out, &seed) == 3) {
        float *w = malloc((size_t)in * out * sizeof *w);
        size_t kw = read_hex(want, 16, &p);
        size_t kb = read_hex(want2, 4096, &p);
        rng_seed(&g, seed);
        rng_linear_init(w, got2, in, out, &g);
        ok(kw == 16 && kb == out && mismatches(w, want, 16) == 0 &&
               mismatches(got2, want2, out) == 0,
           "nn.Linear(%u, %u) with seed %llu: first weights and bias", in, out,
           seed);
        free(w);
    } else if (sscanf(line, "linear %u %u seed %llu bias:", &in, &out, &seed) ==
                   3 &&
               in * out <= 4096) {
        size_t kw = read_hex(want, 4096, &p);
        size_t kb = read_hex(want2, 4096, &p);
        rng_seed(&g, seed);
        rng_linear_init(got, got2, in, out, &g);
        ok(kw == in * out && kb == out && mismatches(got, want, kw) == 0 &&
               mismatches(got2, want2, out) == 0,
           "nn.Linear(%u, %u) with seed %llu: weight and bias", in, out, seed);
    } else if (sscanf(line,
                      "embedding %u %u seed %llu then linear %u %u nobias:", &v,
                      &d, &seed, &in, &out) == 5) {
        size_t ke = read_hex(want, 4096, &p);
        size_t kw = read_hex(want2, 4096, &p);
        rng_seed(&g, seed);
        rng_normal_fill(got, (size_t)v * d, 0.0, 1.0, &g);
        rng_linear_init(got2, NULL, in, out, &g);
        ok(ke == (size_t)v * d && kw == (size_t)in * out &&
               mismatches(got, want, ke) == 0 &&
               mismatches(got2, want2, kw) == 0,
           "nn.Embedding(%u, %u) then nn.Linear(%u, %u, bias=False)", v, d, in,
           out);
    } else {
        ok(0, "unrecognised line in rng_check.txt: %.40s", line);
    }
}

/* The printed check values of torch-init.md. */
static void check_design_values(void)
{
    torch_rng g;
    float emb[15], w[6], big[6 * 64];
    rng_seed(&g, 42);
    rng_normal_fill(emb, 15, 0.0, 1.0, &g);
    ok(near(emb[0], 0.3367, 5e-5) && near(emb[1], 0.1288, 5e-5) &&
           near(emb[2], 0.2345, 5e-5),
       "seed 42, nn.Embedding(5, 3): first row 0.3367, 0.1288, 0.2345");
    ok(near(emb[12], 1.1103, 5e-5) && near(emb[13], -1.6898, 5e-5) &&
           near(emb[14], -0.9890, 5e-5),
       "seed 42, nn.Embedding(5, 3): last row 1.1103, -1.6898, -0.9890");
    rng_linear_init(w, NULL, 3, 2, &g);
    const double want_w[6] = {0.4457, 0.0961, -0.1875, 0.3568, 0.0900, 0.4665};
    int all = 1;
    for (int i = 0; i < 6; i++)
        all &= near(w[i], want_w[i], 5e-5);
    ok(all, "seed 42, then nn.Linear(3, 2, bias=False) weight");

    rng_seed(&g, 42);
    rng_normal_fill(big, 6 * 64, 0.0, 1.0, &g);
    const double want_big[5] = {1.9269, 1.4873, 0.9007, -2.1055, 0.6784};
    all = 1;
    for (int i = 0; i < 5; i++)
        all &= near(big[i], want_big[i], 5e-5);
    ok(all, "seed 42, torch.randn(6, 64): 1.9269, 1.4873, 0.9007, ...");
}

/* Properties that need no reference. */
static void check_properties(void)
{
    torch_rng a, b;
    rng_seed(&a, 42);
    rng_seed(&b, 42 + (UINT64_C(1) << 32));
    int same = 1;
    for (int i = 0; i < 1000; i++)
        same &= rng_next32(&a) == rng_next32(&b);
    ok(same, "only the low 32 bits of the seed count");

    /* MT19937's reference: seed 5489, the 10000th output is 4123659995 */
    rng_seed(&a, 5489);
    uint32_t x = 0;
    for (int i = 0; i < 10000; i++)
        x = rng_next32(&a);
    ok(x == 4123659995u, "MT19937 seeded 5489 gives 4123659995 at 10000");

    rng_seed(&a, 1);
    float lo = 1, hi = 0;
    for (int i = 0; i < 100000; i++) {
        float u = rng_float01(&a);
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
    }
    ok(lo >= 0.0f && hi < 1.0f, "float uniforms stay in [0, 1)");

    /* a seeded generator forgets the cached Box-Muller half */
    float first[3], again[3];
    rng_seed(&a, 9);
    rng_normal_fill(first, 3, 0.0, 1.0, &a); /* leaves a cached value */
    rng_seed(&a, 9);
    rng_normal_fill(again, 3, 0.0, 1.0, &a);
    ok(memcmp(first, again, sizeof first) == 0,
       "re-seeding clears the cached normal");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_rng REFERENCE_DIR\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/rng_check.txt", argv[1]);
    FILE *f = fopen(path, "r");
    ok(f != NULL, "open %s", path);
    if (f != NULL) {
        static char line[1 << 16];
        while (fgets(line, sizeof line, f) != NULL)
            if (line[0] != '#' && line[0] != '\n')
                check_line(line);
        fclose(f);
    }
    check_design_values();
    check_properties();
    return tap_done();
}
