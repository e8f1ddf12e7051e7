/* simd.h: which vector instructions the kernels of matmul.c and
 * matvec.c (and matmul_problem.c's choice among them) are built for.
 *
 *   SIMD_X86      gcc or clang on x86-64: AVX2 and AVX-512 kernels,
 *                 run when the processor has them (matmul_problem.h)
 *   SIMD_WASM128  WebAssembly's 128-bit SIMD (clang -msimd128: the
 *                 page's families core, src/wasm/meson.build)
 *
 * Each is 1 or 0; a file that uses the instructions includes their
 * header (<immintrin.h>, <wasm_simd128.h>) under it. */
#ifndef MHA_SIMD_H
#define MHA_SIMD_H

#if defined(__GNUC__) && defined(__x86_64__)
#define SIMD_X86 1
#else
#define SIMD_X86 0
#endif

#if defined(__wasm_simd128__)
#define SIMD_WASM128 1
#else
#define SIMD_WASM128 0
#endif

#endif
