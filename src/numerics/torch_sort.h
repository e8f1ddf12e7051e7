/* torch_sort.h: torch.sort(x, descending=False) of a float32 row as
 * torch 1.13 computes it on the CPU, ties included.
 *
 * ATen's CPU sort (aten/src/ATen/native/cpu/SortingKernel.cpp, v1.13)
 * sorts the values and their indices together with std::sort and the
 * comparator KeyValueCompAsc, which compares the values only (a NaN after
 * every number). std::sort is not stable: tied values come out in the
 * order its algorithm leaves them, so which of several tied tokens the
 * top-p warper drops depends on it. Debian's torch is built with GCC, so
 * the algorithm is libstdc++'s introsort (bits/stl_algo.h): quicksort
 * with the median of three moved to the front and an unguarded
 * partition while a part has more than 16 elements and the depth allows
 * (2 * floor(log2 n)), heapsort (bits/stl_heap.h) past that depth, then
 * one insertion sort over the whole row. Written out here step by step,
 * so the indices of tied values are torch's.
 * Shapes: n, the row's length.
 */
#ifndef MHA_TORCH_SORT_H
#define MHA_TORCH_SORT_H

#include <stddef.h>
#include <stdint.h>

/* A value and its index in the row, moved together. */
typedef struct {
    float value;
    uint32_t index;
} sort_pair;

/* Sorts p (n) ascending by value as torch.sort(descending=False) does:
 * p[i].index is sorted_indices[i]. */
void torch_sort_ascending(sort_pair *p, size_t n);

#endif
