/* optim.h: torch.optim.SGD and torch.optim.Adam as PyTorch 1.13 runs them
 * on the CPU (the single-tensor path, every setting but lr at its
 * default), one parameter at a time.
 */
#ifndef MHA_OPTIM_H
#define MHA_OPTIM_H

#include <stddef.h>

enum optimizer_kind {
    OPTIMIZER_SGD,  /* p -= lr * g */
    OPTIMIZER_ADAM, /* betas (0.9, 0.999), eps 1e-8 */
};

/* SGD: p (n) = p + (-lr) * g, one fused multiply-add per value
 * (param.add_(grad, alpha=-lr)). */
void sgd_update(float *p, const float *g, size_t n, double lr);

/* Adam's step number `step` (1, 2, ...) on p (n) with gradient g (n) and
 * its running averages m and v (n, zeros before the first step). */
void adam_update(float *p, float *m, float *v, const float *g, size_t n,
                 double lr, size_t step);

#endif
