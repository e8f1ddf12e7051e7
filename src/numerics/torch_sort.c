/* torch_sort.c: libstdc++'s std::sort under KeyValueCompAsc
 * (torch_sort.h), each function named after the one it follows. */
#include "numerics/torch_sort.h"

#include <math.h>
#include <stdbool.h>

/* KeyValueCompAsc: a before b when a is a number and b NaN, or a < b. */
static bool less(sort_pair a, sort_pair b)
{
    return (!isnan(a.value) && isnan(b.value)) || a.value < b.value;
}

static void swap(sort_pair *a, sort_pair *b)
{
    const sort_pair t = *a;
    *a = *b;
    *b = t;
}

/* std::__lg: floor(log2(n)), n > 0. */
static size_t lg(size_t n)
{
    size_t k = 0;
    while (n > 1) {
        n >>= 1;
        k++;
    }
    return k;
}

/* ---- the heap (bits/stl_heap.h) ----------------------------------------- */

/* std::__push_heap */
static void push_heap(sort_pair *first, size_t hole, size_t top,
                      sort_pair value)
{
    size_t parent = hole > 0 ? (hole - 1) / 2 : 0;
    while (hole > top && less(first[parent], value)) {
        first[hole] = first[parent];
        hole = parent;
        parent = hole > 0 ? (hole - 1) / 2 : 0;
    }
    first[hole] = value;
}

/* std::__adjust_heap */
static void adjust_heap(sort_pair *first, size_t hole, size_t len,
                        sort_pair value)
{
    const size_t top = hole;
    size_t child = hole;
    while (len > 0 && child < (len - 1) / 2) {
        child = 2 * (child + 1);
        if (less(first[child], first[child - 1]))
            child--;
        first[hole] = first[child];
        hole = child;
    }
    if ((len & 1) == 0 && len >= 2 && child == (len - 2) / 2) {
        child = 2 * (child + 1);
        first[hole] = first[child - 1];
        hole = child - 1;
    }
    push_heap(first, hole, top, value);
}

/* std::__make_heap */
static void make_heap(sort_pair *first, size_t len)
{
    if (len < 2)
        return;
    for (size_t parent = (len - 2) / 2;; parent--) {
        adjust_heap(first, parent, len, first[parent]);
        if (parent == 0)
            return;
    }
}

/* std::__partial_sort(first, last, last): __heap_select, which with
 * middle == last makes the heap only, then std::__sort_heap (each
 * std::__pop_heap). */
static void heap_sort(sort_pair *first, size_t len)
{
    make_heap(first, len);
    while (len > 1) {
        len--;
        const sort_pair value = first[len];
        first[len] = first[0];
        adjust_heap(first, 0, len, value);
    }
}

/* ---- introsort (bits/stl_algo.h) ---------------------------------------- */

enum { THRESHOLD = 16 }; /* _S_threshold */

/* std::__move_median_to_first */
static void move_median_to_first(sort_pair *result, sort_pair *a, sort_pair *b,
                                 sort_pair *c)
{
    if (less(*a, *b)) {
        if (less(*b, *c))
            swap(result, b);
        else if (less(*a, *c))
            swap(result, c);
        else
            swap(result, a);
    } else if (less(*a, *c))
        swap(result, a);
    else if (less(*b, *c))
        swap(result, c);
    else
        swap(result, b);
}

/* std::__unguarded_partition around *pivot over [first, last). */
static sort_pair *unguarded_partition(sort_pair *first, sort_pair *last,
                                      const sort_pair *pivot)
{
    for (;;) {
        while (less(*first, *pivot))
            first++;
        last--;
        while (less(*pivot, *last))
            last--;
        if (!(first < last))
            return first;
        swap(first, last);
        first++;
    }
}

/* std::__unguarded_partition_pivot */
static sort_pair *partition_pivot(sort_pair *first, sort_pair *last)
{
    sort_pair *mid = first + (last - first) / 2;
    move_median_to_first(first, first + 1, mid, last - 1);
    return unguarded_partition(first + 1, last, first);
}

/* std::__introsort_loop */
static void introsort_loop(sort_pair *first, sort_pair *last, size_t depth)
{
    while (last - first > THRESHOLD) {
        if (depth == 0) {
            heap_sort(first, (size_t)(last - first));
            return;
        }
        depth--;
        sort_pair *cut = partition_pivot(first, last);
        introsort_loop(cut, last, depth);
        last = cut;
    }
}

/* std::__unguarded_linear_insert */
static void unguarded_linear_insert(sort_pair *last)
{
    const sort_pair value = *last;
    sort_pair *next = last - 1;
    while (less(value, *next)) {
        *last = *next;
        last = next;
        next--;
    }
    *last = value;
}

/* std::__insertion_sort */
static void insertion_sort(sort_pair *first, const sort_pair *last)
{
    if (first == last)
        return;
    for (sort_pair *i = first + 1; i != last; i++) {
        if (less(*i, *first)) {
            const sort_pair value = *i;
            for (sort_pair *j = i; j != first; j--)
                *j = *(j - 1);
            *first = value;
        } else
            unguarded_linear_insert(i);
    }
}

/* std::__final_insertion_sort */
static void final_insertion_sort(sort_pair *first, sort_pair *last)
{
    if (last - first > THRESHOLD) {
        insertion_sort(first, first + THRESHOLD);
        for (sort_pair *i = first + THRESHOLD; i != last; i++)
            unguarded_linear_insert(i);
    } else
        insertion_sort(first, last);
}

void torch_sort_ascending(sort_pair *p, size_t n)
{
    if (n == 0)
        return;
    introsort_loop(p, p + n, 2 * lg(n));
    final_insertion_sort(p, p + n);
}
