/* target_clones.h: TENSOR_HOT marks a loop over whole rows that gets
 * copies built for AVX-512 and AVX2 beside the plain one (GCC's
 * target_clones), chosen when the program starts. Each copy does the same
 * float32 operations in the same order, so the numbers are the same. */
#ifndef MHA_TARGET_CLONES_H
#define MHA_TARGET_CLONES_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TENSOR_HOT __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TENSOR_HOT
#endif

#endif
