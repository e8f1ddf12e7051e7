/* optim.c: the optimizers' updates in the order and the rounding of
 * PyTorch's kernels (docs/exactness.md, "Training"): a Python scalar is
 * a double, rounded to float when a kernel takes it; add_ with alpha is
 * a fused multiply-add, as is addcmul_'s last step. */
#include "model/optim.h"

#include <math.h>

void sgd_update(float *p, const float *g, size_t n, double lr)
{
    // param.add_(grad, alpha=-lr)
    const float alpha = (float)-lr;
    for (size_t i = 0; i < n; i++)
        p[i] = fmaf(g[i], alpha, p[i]);
}

void adam_update(float *p, float *m, float *v, const float *g, size_t n,
                 double lr, size_t step)
{
    const double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
    // Python floats: the bias corrections and the step size
    const double bias_correction1 = 1.0 - pow(beta1, (double)step);
    const double bias_correction2 = 1.0 - pow(beta2, (double)step);
    const double step_size = lr / bias_correction1;
    const float root2 = (float)sqrt(bias_correction2);
    const float b1 = (float)beta1, b2 = (float)beta2;
    const float a1 = (float)(1.0 - beta1), a2 = (float)(1.0 - beta2);
    const float e = (float)eps, value = (float)-step_size;
    for (size_t i = 0; i < n; i++) {
        // exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        m[i] = fmaf(g[i], a1, m[i] * b1);
        // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        v[i] = fmaf(a2 * g[i], g[i], v[i] * b2);
        // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        const float denom = sqrtf(v[i]) / root2 + e;
        // param.addcdiv_(exp_avg, denom, value=-step_size)
        p[i] = p[i] + value * m[i] / denom;
    }
}
