/* sampling.c: the next token from a row of logits (sampling.h). */
#include "model/sampling.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "numerics/tensor.h"

int sampling_room_init(sampling_room *r, size_t V, mx_error *err)
{
    *r = (sampling_room){.V = V};
    r->scores = malloc(V * sizeof *r->scores);
    r->probs = malloc(V * sizeof *r->probs);
    r->sorted = malloc(V * sizeof *r->sorted);
    r->sorted_probs = malloc(V * sizeof *r->sorted_probs);
    r->q = malloc(V * sizeof *r->q);
    r->model_probs = malloc(V * sizeof *r->model_probs);
    r->order = malloc(V * sizeof *r->order);
    if (r->scores == NULL || r->probs == NULL || r->sorted == NULL ||
        r->sorted_probs == NULL || r->q == NULL || r->order == NULL ||
        r->model_probs == NULL) {
        sampling_room_free(r);
        return err_nomem(err, _("logits"));
    }
    return 0;
}

void sampling_room_free(sampling_room *r)
{
    free(r->scores);
    free(r->probs);
    free(r->sorted);
    free(r->sorted_probs);
    free(r->q);
    free(r->model_probs);
    free(r->order);
    *r = (sampling_room){0};
}

/* The index of the first largest of x (V), as torch.argmax gives it: a
 * NaN counts as larger than every number, so the first NaN when x holds
 * one (torch 1.13 on the CPU). */
static size_t argmax(const float *x, size_t V)
{
    size_t best = 0;
    for (size_t i = 0; i < V; i++) {
        if (isnan(x[i]))
            return i;
        if (x[i] > x[best])
            best = i;
    }
    return best;
}

/* softmax over one row x (V) into out, as torch.softmax(dim=-1). */
static void softmax_row(float *out, float *x, size_t V)
{
    const matrix in = {1, V, x};
    matrix o = {1, V, out};
    softmax_rows(&o, &in, 1.0f);
}

/* r->order: the scores with their tokens, sorted ascending as
 * torch.sort(scores, descending=False) sorts them, tied scores in its
 * order (torch_sort.h). */
static void sort_scores(sampling_room *r)
{
    for (size_t i = 0; i < r->V; i++)
        r->order[i] = (sort_pair){r->scores[i], (uint32_t)i};
    torch_sort_ascending(r->order, r->V);
}

/* TopKLogitsWarper: the K-th largest score kept with every larger one;
 * scores < it become -inf. Returns the tokens left. */
static size_t top_k(sampling_room *r, size_t k)
{
    const size_t V = r->V;
    if (k > V)
        k = V; // top_k = min(self.top_k, scores.size(-1))
    // the k-th largest: torch.topk(scores, k)[0][..., -1]
    sort_scores(r);
    const float kth = r->order[V - k].value;
    size_t left = 0;
    for (size_t i = 0; i < V; i++) {
        if (r->scores[i] < kth)
            r->scores[i] = -INFINITY;
        else
            left++;
    }
    return left;
}

/* TopPLogitsWarper: sorted ascending, softmax, cumsum (a double
 * accumulator, each sum rounded to float); the sorted positions whose
 * cumulative probability is <= (float)(1 - P) become -inf, the last
 * (largest) never. Returns the tokens left with a finite score. */
static size_t top_p(sampling_room *r, double p)
{
    const size_t V = r->V;
    // sorted_logits, sorted_indices = torch.sort(scores, descending=False)
    sort_scores(r);
    for (size_t i = 0; i < V; i++)
        r->sorted[i] = r->order[i].value;
    softmax_row(r->sorted_probs, r->sorted, V);
    const float bound = (float)(1 - p);
    double cum = 0;
    for (size_t i = 0; i + 1 < V; i++) {
        cum += (double)r->sorted_probs[i];
        if ((float)cum <= bound)
            r->scores[r->order[i].index] = -INFINITY;
    }
    size_t left = 0;
    for (size_t i = 0; i < V; i++)
        left += r->scores[i] != -INFINITY;
    return left;
}

/* Whether p (V) is a distribution torch.multinomial draws from: every
 * value finite and not negative, their sum above 0 (else it raises
 * "probability tensor contains either inf, nan or element < 0"). */
static bool drawable(const float *p, size_t V)
{
    double sum = 0;
    for (size_t i = 0; i < V; i++) {
        if (!isfinite(p[i]) || p[i] < 0)
            return false;
        sum += (double)p[i];
    }
    return sum > 0;
}

bool sampling_pick(int32_t *token, sampling_effect *effect, sampling_room *r,
                   const float *logits, const sampling *how, torch_rng *g)
{
    const size_t V = r->V;
    sampling_effect e = {V, V};
    // the model's distribution: softmax of the logits
    memcpy(r->scores, logits, V * sizeof *r->scores);
    softmax_row(r->model_probs, r->scores, V);
    if (!how->sample) {
        // next_tokens = torch.argmax(next_tokens_scores, dim=-1)
        *token = (int32_t)argmax(logits, V);
        memcpy(r->probs, r->model_probs, V * sizeof *r->probs);
        if (effect != NULL)
            *effect = e;
        return true;
    }
    if (how->temperature != 1.0) {
        // scores / self.temperature: a float32 tensor by a Python float
        const float t = (float)how->temperature;
        for (size_t i = 0; i < V; i++)
            r->scores[i] /= t;
    }
    if (how->top_k != 0)
        e.after_top_k = e.after_top_p = top_k(r, how->top_k);
    if (how->top_p < 1.0)
        e.after_top_p = top_p(r, how->top_p);
    // probs = nn.functional.softmax(next_token_scores, dim=-1)
    softmax_row(r->probs, r->scores, V);
    if (effect != NULL)
        *effect = e;
    *token = 0;
    if (!drawable(r->probs, V))
        return false;
    // torch.multinomial(probs, num_samples=1): q ~ Exp(1), argmax(p / q)
    rng_exponential_fill(r->q, V, g);
    for (size_t i = 0; i < V; i++)
        r->q[i] = r->probs[i] / r->q[i];
    *token = (int32_t)argmax(r->q, V);
    return true;
}
