/* test_attention.c: the arithmetic of attention, and the invariants a
 * student is told about: rows of weights sum to 1, masked weights are
 * exactly 0, and the wrapper's head h is the fused module's head h. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/lesson/attention.h"
#include "model/lesson/block.h"
#include "model/lesson/stack.h"
#include "render/check.h"
#include "model/lesson/model.h"
#include "model/lesson/variants.h"
#include "numerics/rng.h"
#include "tap.h"
#include "numerics/tensor.h"
#include "numerics/vecmath.h"

/* The table of this variant, head and name (a table's, or a parameter's
 * state_dict() name) in tr, or NULL. */
static table *find_table(const trace *tr, const char *variant, int head,
                         const char *name)
{
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (t->head == head &&
            strcmp(variant_id_name(t->variant), variant) == 0 &&
            strcmp(table_name(t), name) == 0)
            return tr->tables[i];
    }
    return NULL;
}

static matrix make(size_t rows, size_t cols, const float *values)
{
    matrix m;
    mx_error err;
    if (matrix_alloc(&m, rows, cols, "test", &err) != 0)
        abort();
    if (values != NULL)
        memcpy(m.v, values, rows * cols * sizeof *values);
    return m;
}

static int same_bits(const matrix *a, const matrix *b)
{
    return a->rows == b->rows && a->cols == b->cols &&
           memcmp(a->v, b->v, a->rows * a->cols * sizeof *a->v) == 0;
}

static void small_products(void)
{
    const float x_v[] = {1, 2, 3, 4, 5, 6};           /* (2, 3) */
    const float w_v[] = {1, 0, -1, 0.5f, 0.5f, 0.5f}; /* (2, 3) */
    const float bias[] = {10, -1};
    matrix x = make(2, 3, x_v), w = make(2, 3, w_v), out = make(2, 2, NULL);
    linear_forward(&out, &x, &w, bias, NULL);
    ok(out.v[0] == 8 && out.v[1] == 2 && out.v[2] == 8 && out.v[3] == 6.5f,
       "linear_forward: x @ w^T + bias on small exact numbers");
    matmul_transposed(&out, &x, &w, NULL);
    ok(out.v[0] == -2 && out.v[1] == 3 && out.v[2] == -2 && out.v[3] == 7.5f,
       "matmul_transposed: a @ b^T");
    const float a_v[] = {1, 0.5f, 0, 2}; /* (2, 2) */
    matrix a = make(2, 2, a_v), c = make(2, 3, NULL);
    matmul(&c, &a, &x, NULL);
    ok(c.v[0] == 3 && c.v[1] == 4.5f && c.v[2] == 6 && c.v[3] == 8 &&
           c.v[4] == 10 && c.v[5] == 12,
       "matmul: a @ b");

    /* the vectorised loops keep the naive order: equal bit for bit */
    torch_rng g;
    rng_seed(&g, 3);
    matrix bx = make(37, 61, NULL), bw = make(29, 61, NULL);
    matrix o1 = make(37, 29, NULL), o2 = make(37, 29, NULL);
    float bb[29];
    rng_normal_fill(bx.v, 37 * 61, 0, 1, &g);
    rng_normal_fill(bw.v, 29 * 61, 0, 1, &g);
    rng_normal_fill(bb, 29, 0, 1, &g);
    linear_forward(&o1, &bx, &bw, bb, NULL);
    linear_forward_naive(&o2, &bx, &bw, bb);
    ok(same_bits(&o1, &o2),
       "linear_forward equals its naive version bit for bit");
    matrix p = make(37, 37, NULL), m1 = make(37, 61, NULL),
           m2 = make(37, 61, NULL);
    rng_normal_fill(p.v, 37 * 37, 0, 1, &g);
    matrix v = make(37, 61, NULL);
    rng_normal_fill(v.v, 37 * 61, 0, 1, &g);
    matmul(&m1, &p, &v, NULL);
    matmul_naive(&m2, &p, &v);
    ok(same_bits(&m1, &m2), "matmul equals its naive version bit for bit");
    matrix *all[] = {&x,  &w,  &out, &a,  &c,  &bx, &bw,
                     &o1, &o2, &p,   &m1, &m2, &v};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        matrix_free(all[i]);
}

static void softmax_and_mask(void)
{
    const size_t T = 9;
    torch_rng g;
    rng_seed(&g, 11);
    matrix s = make(T, T, NULL), w = make(T, T, NULL), w2 = make(T, T, NULL);
    rng_normal_fill(s.v, T * T, 0, 3, &g);
    causal_mask(&s);
    int mask_ok = 1;
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++)
            mask_ok &= (j > i) == (isinf(s.v[i * T + j]) && s.v[i * T + j] < 0);
    ok(mask_ok, "causal_mask: -inf exactly above the diagonal");

    softmax_rows(&w, &s, 2.0f);
    double worst = 0;
    int zeros = 1, argmax = 1;
    for (size_t i = 0; i < T; i++) {
        double sum = 0;
        size_t best_s = 0, best_w = 0;
        for (size_t j = 0; j < T; j++) {
            sum += w.v[i * T + j];
            if (j > i)
                zeros &= w.v[i * T + j] == 0.0f;
            if (j <= i && s.v[i * T + j] > s.v[i * T + best_s])
                best_s = j;
            if (w.v[i * T + j] > w.v[i * T + best_w])
                best_w = j;
        }
        argmax &= best_s == best_w;
        worst = fabs(sum - 1) > worst ? fabs(sum - 1) : worst;
    }
    ok(worst < 1e-6, "softmax rows sum to 1 (largest deviation %.2g)", worst);
    ok(zeros, "masked cells get weight exactly 0");
    ok(argmax, "the largest score gets the largest weight");

    /* stability: shifting a row by 1000 changes nothing */
    matrix shifted = make(T, T, s.v);
    for (size_t j = 0; j < T * T; j++)
        shifted.v[j] += 1000.0f;
    softmax_rows(&w2, &shifted, 1.0f);
    softmax_rows(&w, &s, 1.0f);
    double diff = 0;
    for (size_t j = 0; j < T * T; j++)
        diff = fmax(diff, fabs((double)w.v[j] - (double)w2.v[j]));
    ok(diff < 1e-3 && !isnan(w2.v[T * T - 1]),
       "a shift of 1000 gives the same weights (no overflow)");

    const float equal_v[] = {0.5f, 0.5f, 0.5f, 0.5f};
    matrix e = make(1, 4, equal_v), ew = make(1, 4, NULL);
    softmax_rows(&ew, &e, 1.0f);
    ok(ew.v[0] == 0.25f && ew.v[3] == 0.25f, "equal scores, equal weights");
    /* rows that cannot be normalised come out all NaN, masked cells
     * included, as torch.softmax gives them (checked with python3-torch
     * 1.13); a row whose finite scores overflow is still normalised */
    const float inf = INFINITY;
    const float odd_v[5][12] = {
        {1, NAN, 2, -inf},
        {1, inf, 2, -inf},
        {-inf, -inf, -inf, -inf},
        {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, NAN, 1}, /* the 8-lane path */
        {3e38f, -3e38f, -inf, -inf},
    };
    const size_t odd_n[5] = {4, 4, 4, 12, 4};
    const char *odd_name[5] = {"a NaN", "+inf", "every score -inf",
                               "a NaN among 12", "scores of +-3e38"};
    for (size_t r = 0; r < 5; r++) {
        matrix o = make(1, odd_n[r], odd_v[r]), ow = make(1, odd_n[r], NULL);
        softmax_rows(&ow, &o, 1.0f);
        int all_nan = 1;
        for (size_t j = 0; j < odd_n[r]; j++)
            all_nan &= isnan(ow.v[j]);
        if (r < 4)
            ok(all_nan, "softmax of a row with %s is NaN everywhere",
               odd_name[r]);
        else
            ok(ow.v[0] == 1.0f && ow.v[1] == 0.0f && ow.v[2] == 0.0f &&
                   ow.v[3] == 0.0f,
               "softmax of a row with %s is 1, 0, 0, 0", odd_name[r]);
        matrix_free(&o);
        matrix_free(&ow);
    }
    matrix *all[] = {&s, &w, &w2, &shifted, &e, &ew};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        matrix_free(all[i]);
}

static sequence_labels labels_for(trace *tr, const char *const *words, size_t T)
{
    mx_error err;
    sequence_labels lab = {
        trace_word_labels(tr, "", words, T, &err),
        trace_word_labels(tr, "Q:", words, T, &err),
        trace_word_labels(tr, "K:", words, T, &err),
        trace_word_labels(tr, "V:", words, T, &err),
    };
    return lab;
}

/* The wrapper with the fused module's rows as its heads computes the same
 * tables as the fused module, bit for bit. */
static void wrapper_is_fused(bool bias)
{
    const char *const words[] = {"O", "gato", "sobe", "no", "tapete"};
    const attention_config cfg = {.d_model = 3,
                                  .d_out = 6,
                                  .heads = 3,
                                  .causal = true,
                                  .scale = true,
                                  .qkv_bias = bias};
    torch_rng g;
    mx_error err;
    rng_seed(&g, 42);
    matrix x = make(5, 3, NULL);
    rng_normal_fill(x.v, 15, 0, 1, &g);
    fused_params fused;
    wrapper_params wrapper;
    if (fused_init(&fused, &cfg, &g, &err) ||
        wrapper_init(&wrapper, &cfg, &g, &err))
        abort();
    fused_tie_to_wrapper(&fused, &wrapper);

    trace tr;
    trace_init(&tr);
    sequence_labels lab = labels_for(&tr, words, 5);
    const attention_input in = {&x, &x};
    const model_dims dims = {
        .d_model = 3, .d_out = 6, .heads = 3, .qkv_bias = bias};
    param_recorder wrec = {&tr, VARIANT_ID_WRAPPER, &err, false},
                   frec = {&tr, VARIANT_ID_FUSED, &err, false};
    ok(model_params_each(VARIANT_WRAPPER, &dims, &wrapper, record_param,
                         &wrec) == 0 &&
           wrapper_forward(&tr, &wrapper, &cfg, &in, &lab, &err) == 0 &&
           model_params_each(VARIANT_FUSED, &dims, &fused, record_param,
                             &frec) == 0 &&
           fused_forward(&tr, &fused, &cfg, &in, &lab, &err) == 0,
       "wrapper and fused record their parameters and run%s",
       bias ? " (with biases)" : "");
    const table *a = find_table(&tr, "wrapper", NO_HEAD, "concat_context");
    const table *b = find_table(&tr, "fused", NO_HEAD, "concat_context");
    ok(a && b && same_bits(&a->values, &b->values),
       "tied: wrapper and fused concat_context agree bit for bit%s",
       bias ? " (with biases)" : "");
    int heads_same = 1;
    static const char *const names[] = {"queries",      "keys",
                                        "values",       "attn_scores",
                                        "attn_weights", "head_context"};
    for (int h = 0; h < 3; h++)
        for (size_t k = 0; k < 6; k++) {
            const table *p = find_table(&tr, "wrapper", h, names[k]);
            const table *q = find_table(&tr, "fused", h, names[k]);
            heads_same &= p && q && same_bits(&p->values, &q->values);
        }
    ok(heads_same, "every head's six tables agree between wrapper and fused");

    /* shapes and the check module */
    const table *w0 = find_table(&tr, "fused", 0, "attn_weights");
    const table *q0 = find_table(&tr, "wrapper", 2, "queries");
    const table *wk =
        find_table(&tr, "wrapper", NO_HEAD, "heads.1.W_key.weight");
    const table *ob = find_table(&tr, "fused", NO_HEAD, "out_proj.bias");
    ok(w0 && w0->values.rows == 5 && w0->values.cols == 5 && q0 &&
           q0->values.cols == 2 && wk && wk->values.rows == 2 &&
           wk->values.cols == 3 && ob && ob->values.rows == 1 &&
           ob->values.cols == 6,
       "tables have the shapes of the contract");
    const table *ctx = find_table(&tr, "fused", 1, "head_context");
    const table *val = find_table(&tr, "fused", 1, "values");
    ok(ctx && val &&
           memcmp(ctx->values.v, val->values.v, 2 * sizeof(float)) == 0,
       "the first token attends only to itself: its context is its value");
    // the run's model, as the pipeline records it: causal heads, the fused
    // module tied to the wrapper's
    tr.model.causal = true;
    tr.model.tied = true;
    check_report r;
    check_trace(&r, &tr);
    ok(check_passed(&r) && r.compared && r.tie_dev == 0.0 && r.masked == 6 * 10,
       "--check passes: rows sum to 1, 60 masked cells, no tie deviation");
    /* what the check expects is the trace's model's, not the caller's */
    tr.model.tied = false;
    tr.model.attn_dropout = 0.5;
    check_trace(&r, &tr);
    ok(check_passed(&r) && !r.tied && r.own_masks && r.causal,
       "--check takes causal, tied and dropout masks from the trace");
    tr.model.tied = true;
    tr.model.attn_dropout = 0.0;
    /* a doctored weight must make the check fail */
    const table *w0f = find_table(&tr, "fused", 0, "attn_weights");
    if (w0f == NULL)
        abort();
    w0f->values.v[1] = 0.25f; /* a masked cell */
    check_trace(&r, &tr);
    ok(!check_passed(&r) && r.masked_weight == 0.25,
       "--check catches a masked weight that is not 0");
    /* a NaN weight (an overflowed row) must fail the row-sum check, and
     * a NaN in concat_context the tie */
    const table *w1 = find_table(&tr, "wrapper", 1, "attn_weights");
    const table *cc = find_table(&tr, "fused", NO_HEAD, "concat_context");
    if (w1 == NULL || cc == NULL)
        abort();
    w1->values.v[w1->values.cols * 3] = NAN; /* row 3, unmasked */
    cc->values.v[0] = NAN;
    check_trace(&r, &tr);
    ok(!check_passed(&r) && isnan(r.row_sum_dev) && isnan(r.tie_dev),
       "--check fails on NaN weights and a NaN context (deviation nan)");
    trace_free(&tr);
    fused_free(&fused);
    wrapper_free(&wrapper);
    matrix_free(&x);
}

static void layer_norm_rows(void)
{
    torch_rng g;
    rng_seed(&g, 5);
    const size_t D = 37;
    matrix x = make(4, D, NULL), y = make(4, D, NULL);
    rng_normal_fill(x.v, 4 * D, 0.5, 3.0, &g);
    float gamma[37], beta[37];
    for (size_t d = 0; d < D; d++) {
        gamma[d] = 1.0f;
        beta[d] = 0.0f;
    }
    layer_norm(&y, &x, gamma, beta, 1e-5f);
    int good = 1;
    for (size_t t = 0; t < 4; t++) {
        double mean = 0, var = 0;
        for (size_t d = 0; d < D; d++)
            mean += y.v[t * D + d];
        mean /= (double)D;
        for (size_t d = 0; d < D; d++)
            var += (y.v[t * D + d] - mean) * (y.v[t * D + d] - mean);
        var /= (double)D;
        good &= fabs(mean) < 1e-5 && fabs(var - 1) < 1e-3;
    }
    ok(good, "layer_norm: every row has mean 0 and variance 1");
    matrix_free(&x);
    matrix_free(&y);
}

/* NaN, infinities and -0 through the elementwise steps; the expected
 * values are what PyTorch 1.13 gives (nn.ReLU, nn.LayerNorm(9),
 * torch.softmax), NaN of either sign counted as NaN. */
static int same_or_both_nan(float a, float b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static void elementwise_edges(void)
{
    /* ReLU is clamp_min(x, 0): NaN stays NaN, -0 stays -0, -inf is 0 */
    const float in[] = {NAN, -0.0f, 0.0f,  -INFINITY, INFINITY,
                        -1,  1,     -0.0f, NAN};
    const float want[] = {NAN, -0.0f, 0.0f, 0.0f, INFINITY, 0, 1, -0.0f, NAN};
    matrix r = make(1, 9, in);
    relu(&r);
    int good = 1;
    for (size_t i = 0; i < 9; i++)
        good &= same_or_both_nan(r.v[i], want[i]);
    ok(good, "relu keeps NaN and -0, as nn.ReLU");
    matrix_free(&r);

    /* LayerNorm: a NaN or infinity anywhere in a row (or a variance that
     * overflows) makes the row NaN; a row of -0 gives +0 */
    const size_t D = 9;
    float x_v[7 * 9], gamma[9], beta[9];
    for (size_t d = 0; d < D; d++) {
        gamma[d] = 1.0f;
        beta[d] = 0.0f;
        x_v[0 * D + d] = d == 0 ? NAN : 1.0f;
        x_v[1 * D + d] = d == 0 ? INFINITY : 1.0f;
        x_v[2 * D + d] = -0.0f;
        x_v[3 * D + d] = d == 0 ? -INFINITY : 1.0f;
        x_v[4 * D + d] = d == 0 ? 3e38f : d == 1 ? -3e38f : 0.0f;
        x_v[5 * D + d] = INFINITY;
        x_v[6 * D + d] = d == 0 ? 1.0f : d == 1 ? -1.0f : -0.0f;
    }
    matrix x = make(7, D, x_v), y = make(7, D, NULL);
    layer_norm(&y, &x, gamma, beta, 1e-5f);
    good = 1;
    for (size_t t = 0; t < 7; t++)
        for (size_t d = 0; d < D; d++) {
            const float v = y.v[t * D + d];
            if (t == 2 || (t == 6 && d >= 2))
                good &= v == 0.0f && !signbit(v);
            else if (t == 6) /* 0x4007c2ee and its negation */
                good &= v == (d == 0 ? 2.12127256f : -2.12127256f);
            else
                good &= isnan(v) != 0;
        }
    ok(good, "layer_norm: NaN and infinite rows give NaN, -0 rows give +0");
    matrix_free(&x);
    matrix_free(&y);

    /* softmax: -0 is 0; a row with +inf, NaN or only -inf is NaN */
    const float s_v[] = {-0.0f,     -0.0f, -INFINITY, -INFINITY,
                         INFINITY,  1,     NAN,       1,
                         -INFINITY, -0.0f, -INFINITY, INFINITY};
    matrix sc = make(6, 2, s_v), w = make(6, 2, NULL);
    for (int k = 0; k < 2; k++) {
        softmax_rows(&w, &sc, k == 0 ? 1.0f : sqrtf(2.0f));
        good = w.v[0] == 0.5f && w.v[1] == 0.5f && w.v[8] == 0.0f &&
               !signbit(w.v[8]) && w.v[9] == 1.0f;
        for (size_t i = 2; i < 8; i++)
            good &= isnan(w.v[i]) != 0;
        good &= isnan(w.v[10]) && isnan(w.v[11]);
        ok(good,
           "softmax of -0, inf, NaN and -inf rows as torch.softmax "
           "(divisor %g)",
           k == 0 ? 1.0 : sqrt(2.0));
    }
    matrix_free(&sc);
    matrix_free(&w);
}

/* ---- the model's description of its parameters ----------------------- */

#define MAX_LISTED 64

/* What a listing of parameters showed. */
typedef struct {
    size_t n;
    char names[MAX_LISTED][80];
    param_info info[MAX_LISTED]; /* layer and name not kept */
    bool storage_ok;             /* values present and shaped as listed */
} listing;

static int note_param(const param_info *p, void *ctx)
{
    listing *l = ctx;
    if (l->n == MAX_LISTED)
        return 1;
    snprintf(l->names[l->n], sizeof l->names[0], "%s", p->name);
    l->info[l->n] = *p;
    l->info[l->n].layer = l->info[l->n].name = NULL;
    if (p->value != NULL ? !p->present || p->value->rows != p->rows ||
                               p->value->cols != p->cols || p->value->v == NULL
                         : p->present)
        l->storage_ok = false;
    l->n++;
    return 0;
}

static int stop_at_third(const param_info *p, void *ctx)
{
    (void)p;
    return ++*(int *)ctx == 3 ? 7 : 0;
}

/* Listing a module with its storage and listing names only agree, every
 * present parameter has storage of its listed shape, and only the fused
 * module's projections are tied. */
static void parameter_listing(bool bias)
{
    // the block's attention is d_model wide, whatever d_out says
    const attention_config cfg = {
        .d_model = 6, .d_out = 3, .heads = 3, .qkv_bias = bias};
    const attention_config wide = {
        .d_model = 6, .d_out = 6, .heads = 3, .qkv_bias = bias};
    const model_dims dims = {
        .d_model = 6, .d_out = 3, .heads = 3, .ff = 5, .qkv_bias = bias};
    torch_rng g;
    mx_error err;
    rng_seed(&g, 1);
    single_params single = {0};
    wrapper_params wrapper = {0};
    fused_params fused = {0};
    block_stack block = {0};
    if (single_init(&single, &cfg, &g, &err) ||
        wrapper_init(&wrapper, &cfg, &g, &err) ||
        fused_init(&fused, &cfg, &g, &err) ||
        stack_init(&block, &wide, dims.ff, 0, &g, &err))
        abort();
    /* the notebooks' four modules: 3 layers; 3 per head; 4; 4 attention
     * + 2 norms + 2 linears, each with a weight and a (maybe absent)
     * bias; without --qkv-bias the W_query, W_key and W_value biases are
     * listed absent: 3 per module or head */
    const struct {
        variant_id id;
        void *module;
        size_t expected, qkv_layers;
    } cases[] = {{VARIANT_ID_SINGLE, &single, 6, 3},
                 {VARIANT_ID_WRAPPER, &wrapper, 18, 9},
                 {VARIANT_ID_FUSED, &fused, 8, 3},
                 {VARIANT_ID_BLOCK, &block, 16, 3}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        static listing with, without;
        memset(&with, 0, sizeof with);
        memset(&without, 0, sizeof without);
        with.storage_ok = without.storage_ok = true;
        const variant_info *info = variant_by_id(cases[i].id);
        const unsigned v = info->bit;
        int rc =
            model_params_each(v, &dims, cases[i].module, note_param, &with);
        rc |= model_params_each(v, &dims, NULL, note_param, &without);
        bool same = rc == 0 && with.n == without.n;
        size_t tied = 0, present = 0;
        for (size_t k = 0; same && k < with.n; k++) {
            const param_info *a = &with.info[k], *b = &without.info[k];
            same = strcmp(with.names[k], without.names[k]) == 0 &&
                   a->kind == b->kind && a->rows == b->rows &&
                   a->cols == b->cols && a->present == b->present &&
                   a->tied == b->tied && b->value == NULL;
            tied += a->tied;
            present += a->present;
        }
        const size_t absent = bias ? 0 : cases[i].qkv_layers;
        ok(same && with.storage_ok && with.n == cases[i].expected &&
               present == with.n - absent &&
               tied == (v == VARIANT_FUSED ? 6 : 0),
           "%s%s: %zu parameters listed alike with and without storage",
           info->name, bias ? " (with biases)" : "", with.n);
    }
    int seen = 0;
    ok(model_params_each(VARIANT_BLOCK, &dims, NULL, stop_at_third, &seen) ==
               7 &&
           seen == 3,
       "a nonzero return stops the listing and is returned");
    // --layers 2: each block's parameters after its index, as
    // nn.Sequential's state_dict() names them, drawn in that order
    model_dims two = dims;
    two.layers = 2;
    block_stack stack = {0};
    static listing each;
    memset(&each, 0, sizeof each);
    each.storage_ok = true;
    rng_seed(&g, 1);
    if (stack_init(&stack, &wide, dims.ff, 2, &g, &err) != 0)
        abort();
    const int rc =
        model_params_each(VARIANT_BLOCK, &two, &stack, note_param, &each);
    ok(rc == 0 && each.storage_ok && each.n == 32 &&
           strcmp(each.names[0], "0.attention.W_query.weight") == 0 &&
           strcmp(each.names[16], "1.attention.W_query.weight") == 0 &&
           strcmp(each.names[31], "1.norm2.bias") == 0 &&
           each.info[15].stack_layer == 0 && each.info[16].stack_layer == 1 &&
           stack.n == 2 && stack.stacked,
       "%s (with --layers 2): 2 x 16 parameters, each block's after its "
       "index",
       bias ? "block with biases" : "block");
    // block 0 is drawn from the seed as a lone block is, block 1 from the
    // generator as block 0 left it
    block_params first = {0}, second = {0};
    rng_seed(&g, 1);
    if (block_init(&first, &wide, dims.ff, &g, &err) != 0 ||
        block_init(&second, &wide, dims.ff, &g, &err) != 0)
        abort();
    const size_t n = first.ff2.weight.rows * first.ff2.weight.cols;
    ok(rc == 0 &&
           memcmp(stack.blocks[0].ff2.weight.v, first.ff2.weight.v,
                  n * sizeof(float)) == 0 &&
           memcmp(stack.blocks[1].ff2.weight.v, second.ff2.weight.v,
                  n * sizeof(float)) == 0 &&
           memcmp(stack.blocks[0].ff2.weight.v, stack.blocks[1].ff2.weight.v,
                  n * sizeof(float)) != 0,
       "%s: the stack's blocks are drawn one after the other",
       bias ? "block with biases" : "block");
    block_free(&first);
    block_free(&second);
    stack_free(&stack);
    single_free(&single);
    wrapper_free(&wrapper);
    fused_free(&fused);
    stack_free(&block);
}

static void exp_edges(void)
{
    ok(sleef_expf(0.0f) == 1.0f, "exp(0) = 1");
    ok(sleef_expf(-INFINITY) == 0.0f && sleef_expf(-200.0f) == 0.0f,
       "exp(-inf) and exp(-200) are 0");
    ok(isinf(sleef_expf(INFINITY)) && isinf(sleef_expf(200.0f)),
       "exp(inf) and exp(200) are inf");
    ok(isnan(sleef_expf(NAN)), "exp(NaN) is NaN");
}

/* log as torch.log computes it on a contiguous tensor of 32 floats (the
 * vectorised path, Sleef_logf8_u10), x and log(x) as IEEE bits, made by
 * Debian's python3-torch 1.13; and the edges. */
static void log_values(void)
{
    static const uint32_t cases[][2] = {
        {0x3f800000, 0x00000000}, {0x40000000, 0x3f317218},
        {0x3f000000, 0xbf317218}, {0x3fc00000, 0x3ecf991f},
        {0x3f400000, 0xbe934b11}, {0x40400000, 0x3f8c9f54},
        {0x41200000, 0x40135d8e}, {0x3a83126f, 0xc0dd0c55},
        {0x0da24260, 0xc28a27b5}, {0x000116c2, 0xc2b834f2},
        {0x7f7fc99e, 0x42b171ab}, {0x3f800001, 0x33ffffff},
        {0x3f7fffff, 0xb3800000}, {0x40e00000, 0x3ff91395},
        {0x41a00000, 0x403fba14}, {0x42f6e979, 0x409a1bba},
        {0x417fde4c, 0x403169aa}, {0x420d2551, 0x4064105d},
        {0x41c27518, 0x404c359a}, {0x421c3017, 0x406a8b83},
        {0x4221ae78, 0x406cc1e4}, {0x40a41b2f, 0x3fd14066},
        {0x3fea2fcb, 0x3f1aa589}, {0x42570ace, 0x407f02b4},
        {0x418ab6e4, 0x40369727}, {0x417c34a3, 0x40307d6f},
        {0x427ee70a, 0x4084f260}, {0x41f50347, 0x405affe7},
        {0x4256c9cd, 0x407eef58}, {0x41f814ff, 0x405bcbdd},
        {0x42250b90, 0x406e1340}, {0x4127d244, 0x40166b80},
    };
    size_t wrong = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        float x, want;
        memcpy(&x, &cases[i][0], sizeof x);
        memcpy(&want, &cases[i][1], sizeof want);
        const float got = sleef_logf(x);
        wrong += memcmp(&got, &want, sizeof got) != 0;
    }
    ok(wrong == 0, "sleef_logf equals torch.log on %zu values (%zu differ)",
       sizeof cases / sizeof cases[0], wrong);
    ok(sleef_logf(1.0f) == 0.0f && isinf(sleef_logf(0.0f)) &&
           sleef_logf(0.0f) < 0 && isinf(sleef_logf(INFINITY)) &&
           isnan(sleef_logf(-1.0f)) && isnan(sleef_logf(NAN)),
       "log(1) = 0, log(0) = -inf, log(inf) = inf, log(-1) and log(NaN) "
       "are NaN");
}

/* softmax_rows (vectorised maximum, masked tail not exponentiated, the
 * fastest exp) equals softmax_rows_naive bit for bit, on random rows of
 * every length up to 70 with causal tails, zeros of both signs, -inf
 * inside the row, and rows with NaN, +inf or only -inf. */
static void softmax_fast_is_naive(void)
{
    torch_rng g;
    rng_seed(&g, 5);
    uint32_t pick = 12345u;
    long bad = 0, rows = 0;
    for (size_t n = 1; n <= 70; n++) {
        const size_t T = 12;
        matrix s = make(T, n, NULL), w1 = make(T, n, NULL),
               w2 = make(T, n, NULL);
        rng_normal_fill(s.v, T * n, 0, 4, &g);
        for (size_t t = 0; t < T; t++) {
            float *row = matrix_at(&s, t, 0);
            pick = pick * 1103515245u + 12345u;
            switch ((pick >> 16) % 8) {
            case 0: /* a causal row: -inf after position t */
                for (size_t j = t + 1; j < n; j++)
                    row[j] = -INFINITY;
                break;
            case 1: /* zeros of both signs, the largest being 0 */
                for (size_t j = 0; j < n; j++)
                    row[j] = j % 2 ? -0.0f : (row[j] > 0 ? -row[j] : row[j]);
                row[n / 2] = 0.0f;
                break;
            case 2:
                row[n / 3] = NAN;
                break;
            case 3:
                row[n - 1] = INFINITY;
                break;
            case 4:
                for (size_t j = 0; j < n; j++)
                    row[j] = -INFINITY;
                break;
            case 5: /* -inf inside the row and at its end */
                row[0] = -INFINITY;
                row[n - 1] = -INFINITY;
                break;
            default:
                break;
            }
        }
        softmax_rows(&w1, &s, 1.5f);
        softmax_rows_naive(&w2, &s, 1.5f);
        for (size_t i = 0; i < T * n; i++)
            if (memcmp(&w1.v[i], &w2.v[i], sizeof(float)) != 0 &&
                !(isnan(w1.v[i]) && isnan(w2.v[i])))
                bad++;
        rows += (long)T;
        matrix_free(&s);
        matrix_free(&w1);
        matrix_free(&w2);
    }
    ok(bad == 0,
       "softmax_rows equals softmax_rows_naive on %ld rows: %ld "
       "cells differ",
       rows, bad);
}

/* mean_stream, a row at a time, equals mean_rows bit for bit: row counts
 * below and past 16 and 256 (the cascade's levels), widths below 8, odd
 * widths and widths past a block of 32, values of mixed size and sign
 * (so that the order of the sums shows). */
static void mean_stream_is_mean_rows(void)
{
    static const size_t row_counts[] = {1,  2,  3,  5,  12,  15,  16, 17,
                                        31, 32, 33, 48, 255, 256, 300};
    static const size_t widths[] = {1, 3, 7, 8, 9, 31, 32, 33, 70, 257};
    torch_rng g;
    rng_seed(&g, 9);
    size_t cases = 0, same = 0;
    for (size_t a = 0; a < sizeof row_counts / sizeof row_counts[0]; a++)
        for (size_t b = 0; b < sizeof widths / sizeof widths[0]; b++) {
            const size_t rows = row_counts[a], n = widths[b];
            float *x = malloc(rows * n * sizeof *x);
            const float **each = malloc(rows * sizeof *each);
            float *want = malloc(n * sizeof *want);
            float *got = malloc(n * sizeof *got);
            mean_stream m;
            mx_error err = {0};
            if (x == NULL || each == NULL || want == NULL || got == NULL ||
                mean_stream_init(&m, rows, n, &err) != 0) {
                ok(0, "mean_stream: memory for %zu x %zu", rows, n);
                return;
            }
            rng_normal_fill(x, rows * n, 0, 1, &g);
            for (size_t i = 0; i < rows * n; i++)
                x[i] *= (float)(1u << (i * 7 % 23)) / 4096.0f;
            for (size_t r = 0; r < rows; r++) {
                each[r] = x + r * n;
                if (mean_stream_add(&m, x + r * n) != 0)
                    diag("mean_stream refused row %zu of %zu", r, rows);
            }
            mean_rows(want, each, rows, n);
            cases++;
            if (mean_stream_finish(got, &m, &err) == 0 &&
                memcmp(want, got, n * sizeof *got) == 0)
                same++;
            else
                diag("mean_stream differs from mean_rows at %zu x %zu", rows,
                     n);
            mean_stream_free(&m);
            free(x);
            free(each);
            free(want);
            free(got);
        }
    ok(same == cases,
       "mean_stream equals mean_rows bit for bit (%zu of %zu "
       "shapes)",
       same, cases);
}

/* A stream takes the rows it was made for and no more: a third row
 * added to a stream of two (a stack's second block adding its heads to
 * one module's sum) is refused, nothing written past the stream, and the
 * mean stays that of the two. */
static void mean_stream_refuses_more_rows(void)
{
    enum { N = 40 }; /* 32 columns summed as a cascade, 8 kept whole */
    float x[3][N], want[N], got[N];
    for (size_t r = 0; r < 3; r++)
        for (size_t c = 0; c < N; c++)
            x[r][c] = (float)(r * N + c) / 8.0f;
    const float *each[2] = {x[0], x[1]};
    mean_rows(want, each, 2, N);
    mean_stream m;
    mx_error err = {0};
    if (mean_stream_init(&m, 2, N, &err) != 0) {
        ok(0, "mean_stream: memory for 2 x %d", N);
        return;
    }
    const int first = mean_stream_add(&m, x[0]),
              second = mean_stream_add(&m, x[1]),
              third = mean_stream_add(&m, x[2]);
    const bool same = mean_stream_finish(got, &m, &err) == 0 &&
                      memcmp(want, got, sizeof got) == 0;
    ok(first == 0 && second == 0 && third == -1 && same,
       "mean_stream takes its 2 rows and refuses a third (%d %d %d), "
       "the mean that of the two",
       first, second, third);
    mean_stream_free(&m);
}

int main(void)
{
    mean_stream_is_mean_rows();
    mean_stream_refuses_more_rows();
    exp_edges();
    log_values();
    small_products();
    softmax_and_mask();
    softmax_fast_is_naive();
    wrapper_is_fused(false);
    wrapper_is_fused(true);
    parameter_listing(false);
    parameter_listing(true);
    layer_norm_rows();
    elementwise_edges();
    return tap_done();
}
