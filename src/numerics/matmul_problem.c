/* matmul_problem.c: which kernels this processor runs
 * (matmul_problem.h). */
#include "numerics/matmul_problem.h"

#include "numerics/simd.h"

bool matmul_kernel_supported(matmul_kernel k)
{
    switch (k) {
    case MATMUL_PORTABLE:
        return true;
#if SIMD_X86
    case MATMUL_AVX2:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2");
    case MATMUL_AVX512:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f");
#endif
#if SIMD_WASM128
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
