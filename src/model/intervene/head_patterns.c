/* head_patterns.c: the heads' detection patterns and their scores
 * (head_patterns.h). */
#include "model/intervene/head_patterns.h"

#include <stdbool.h>

void head_detection_pattern(float *d, int kind, const int32_t *ids, size_t T)
{
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            bool on = false;
            if (kind == HEAD_PREVIOUS)
                on = j + 1 == i;
            else if (kind == HEAD_DUPLICATE)
                on = j < i && ids[j] == ids[i];
            else
                on = j > 0 && j <= i && ids[j - 1] == ids[i] && j - 1 != i;
            d[i * T + j] = on ? 1.0f : 0.0f;
        }
}

float head_pattern_score(const float *a, const float *d, float *product,
                         size_t n)
{
    const float total = sum_all(a, n);
    for (size_t i = 0; i < n; i++)
        product[i] = a[i] * d[i];
    return sum_all(product, n) / total;
}

float head_induction_score(const matrix *a, const int32_t *ids, float *room)
{
    const size_t T = a->rows, n = T * T;
    head_detection_pattern(room, HEAD_INDUCTION, ids, T);
    return head_pattern_score(a->v, room, room + n, n);
}
