/* matmul_problem.c: which kernels this processor runs
 * (matmul_problem.h). */
#include "numerics/matmul_problem.h"

#if defined(__GNUC__) && defined(__x86_64__)
#define MATMUL_X86 1
#else
#define MATMUL_X86 0
#endif
/* a WebAssembly core built with -msimd128 (src/wasm/meson.build) */
#if defined(__wasm_simd128__)
#define MATMUL_WASM_SIMD 1
#else
#define MATMUL_WASM_SIMD 0
#endif

bool matmul_kernel_supported(matmul_kernel k)
{
    switch (k) {
    case MATMUL_PORTABLE:
        return true;
#if MATMUL_X86
    case MATMUL_AVX2:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2");
    case MATMUL_AVX512:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f");
#endif
#if MATMUL_WASM_SIMD
    case MATMUL_SIMD128:
        return true;
#endif
    default:
        return false;
    }
}

matmul_kernel matmul_kernel_best(void)
{
    if (matmul_kernel_supported(MATMUL_SIMD128))
        return MATMUL_SIMD128;
    if (matmul_kernel_supported(MATMUL_AVX512))
        return MATMUL_AVX512;
    if (matmul_kernel_supported(MATMUL_AVX2))
        return MATMUL_AVX2;
    return MATMUL_PORTABLE;
}
