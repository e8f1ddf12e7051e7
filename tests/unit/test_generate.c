/* test_generate.c: generation (model/generate.h) of GPT-2 and Llama-style
 * checkpoints with the KV cache, greedy and sampled, against
 * transformers' generate() loop run in torch 1.13
 * (tests/reference/make_generate_reference.py and
 * make_llama_generate_reference.py; argv[1]: tests/reference): every new
 * token, its probability and the
 * five likeliest there bit for bit, and where generation ends (the
 * end-of-text token, the context). Also torch's exponential_() draws,
 * which torch.multinomial makes, and top-p over tied scores: the tokens
 * TopPLogitsWarper drops where torch.sort leaves ties in its own order.
 * And generation with heads switched off (generate_options.replace, the
 * ablate_* cases): every step's output z of those heads replaced, by 0
 * or by the prompt's mean, against a forward pre-hook doing the same in
 * the same loop; the clean run beside it, and where the two part. And
 * --check over the steps' tables: each step's one query row is masked
 * as its position says, and a mask misplaced there fails it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/safetensors.h"
#include "model/checkpoint_run.h"
#include "model/generate.h"
#include "model/gpt2/gpt2.h"
#include "model/gpt2/gpt2_generate.h"
#include "model/intervene/ablate.h"
#include "model/tokenizers/checkpoint_tokenizer.h"
#include "model/llama/llama.h"
#include "model/llama/llama_generate.h"
#include "numerics/rng.h"
#include "render/check.h"
#include "tap.h"

/* The reference's tensor name: its values (owned by the caller) and
 * count, or NULL. */
static float *ref_values(size_t *n, const safetensors *ref, const char *name)
{
    const st_tensor *t = safetensors_find(ref, name);
    const float *v;
    float *owned;
    mx_error err;
    if (t == NULL || safetensors_floats(&v, &owned, ref, t, &err) != 0)
        return NULL;
    *n = st_tensor_count(t);
    float *copy = malloc(*n * sizeof *copy + 1);
    if (copy != NULL)
        memcpy(copy, v, *n * sizeof *v);
    free(owned);
    return copy;
}

static bool same_bits(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static void exponential(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/generate/exponential.safetensors", dir);
    safetensors ref;
    mx_error err;
    if (!ok(safetensors_open(&ref, path, &err) == 0, "%s opens", path))
        return;
    size_t n = 0;
    float *want = ref_values(&n, &ref, "values");
    float got[1000];
    torch_rng g;
    rng_seed(&g, 7);
    rng_exponential_fill(got, 1000, &g);
    size_t wrong = 0;
    for (size_t i = 0; want != NULL && i < n && i < 1000; i++)
        wrong += !same_bits(got[i], want[i]);
    ok(want != NULL && n == 1000 && wrong == 0,
       "exponential_(): 1000 draws after manual_seed(7), bit for bit "
       "(%zu differ)",
       wrong);
    free(want);
    safetensors_close(&ref);
}

/* top-p over rows of tied scores: the warped scores, -inf where
 * TopPLogitsWarper dropped a token, bit for bit (a stable sort of the
 * ties drops other tokens in most of these rows). */
static void top_p_ties(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/generate/top_p_ties.safetensors", dir);
    safetensors ref;
    mx_error err;
    if (!ok(safetensors_open(&ref, path, &err) == 0, "%s opens", path))
        return;
    size_t n_s = 0, n_p = 0, n_w = 0;
    float *scores = ref_values(&n_s, &ref, "scores");
    float *ps = ref_values(&n_p, &ref, "top_p");
    float *warped = ref_values(&n_w, &ref, "warped");
    const size_t R = n_p, W = R > 0 ? n_s / R : 0;
    size_t wrong = 0, kept_wrong = 0, rows = 0;
    for (size_t r = 0; scores && ps && warped && n_w == n_s && r < R; r++) {
        const float *row = scores + r * W, *want = warped + r * W;
        size_t V = 0;
        while (V < W && !isnan(row[V]))
            V++;
        sampling_room room;
        if (sampling_room_init(&room, V, &err) != 0)
            break;
        const sampling how = {.sample = true,
                              .temperature = 1.0,
                              .top_k = 0,
                              .top_p = (double)ps[r]};
        torch_rng g;
        rng_seed(&g, 0);
        int32_t token;
        sampling_effect e;
        sampling_pick(&token, &e, &room, row, &how, &g);
        size_t finite = 0;
        for (size_t v = 0; v < V; v++) {
            wrong += !same_bits(room.scores[v], want[v]);
            finite += !isinf(want[v]);
        }
        kept_wrong += e.after_top_p != finite;
        sampling_room_free(&room);
        rows++;
    }
    ok(R > 0 && rows == R && wrong == 0 && kept_wrong == 0,
       "top-p over tied scores: the tokens dropped are TopPLogitsWarper's "
       "after torch.sort (%zu rows, %zu scores and %zu counts differ)",
       rows, wrong, kept_wrong);
    free(scores);
    free(ps);
    free(warped);
    safetensors_close(&ref);
}

/* The steps' tables of a generation recorded into tr (--kv-steps)
 * against GPT2Attention._attn's tensors at each step after the prompt's
 * (CASE.steps.safetensors): the new token's query row, the cached keys
 * and values, the scores, the weights and the context of every layer and
 * head, bit for bit. */
static void compare_steps(const trace *tr, const char *dir, const char *name,
                          size_t n_layer, size_t n_head, size_t steps)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/generate/%s.steps.safetensors", dir, name);
    safetensors ref;
    mx_error err;
    if (!ok(safetensors_open(&ref, path, &err) == 0, "%s opens", path))
        return;
    static const struct {
        const char *part;
        table_id id;
    } parts[] = {{"q", TABLE_QUERIES},
                 {"k", TABLE_KEYS},
                 {"v", TABLE_VALUES},
                 {"scores", TABLE_ATTN_SCORES},
                 {"weights", TABLE_ATTN_WEIGHTS},
                 {"context", TABLE_HEAD_CONTEXT}};
    size_t tables = 0, missing = 0, wrong = 0, values = 0;
    for (size_t st = 1; st < steps; st++)
        for (size_t l = 0; l < n_layer; l++)
            for (size_t h = 0; h < n_head; h++)
                for (size_t p = 0; p < sizeof parts / sizeof *parts; p++) {
                    char tensor[128];
                    snprintf(tensor, sizeof tensor, "s%zu.l%zu.h%zu.%s", st, l,
                             h, parts[p].part);
                    const table_key key =
                        layer_table_key((int)l, (int)h, parts[p].id);
                    const table *t = trace_find_step(tr, &key, (int)st);
                    size_t n = 0;
                    float *want = ref_values(&n, &ref, tensor);
                    tables++;
                    if (t == NULL || want == NULL ||
                        n != t->values.rows * t->values.cols)
                        missing++;
                    for (size_t i = 0;
                         t != NULL && want != NULL &&
                         n == t->values.rows * t->values.cols && i < n;
                         i++) {
                        wrong += !same_bits(t->values.v[i], want[i]);
                        values++;
                    }
                    free(want);
                }
    ok(tables > 0 && missing == 0 && wrong == 0,
       "%s: every step's q, cached k and v, scores, weights and context, "
       "each layer and head, bit for bit (%zu tables, %zu values; %zu "
       "missing, %zu differ)",
       name, tables, values, missing, wrong);
    const table_key size_key = {VARIANT_MODEL, 0, NO_HEAD, TABLE_KV_CACHE_SIZE,
                                false};
    const table *cs = trace_find(tr, &size_key);
    ok(cs != NULL && cs->values.rows == steps && cs->values.cols == 3,
       "%s: kv_cache_size has a row per step (%zu)", name, steps);
    safetensors_close(&ref);
}

/* --check over the steps' tables (render/check.h): each is the newest
 * position's one query row over every cached key, which a causal mask
 * leaves whole, so the check passes; a key of its own masked in a
 * step's scores (its weight 0, the row still summing to 1) must fail
 * it. */
static void check_steps(trace *tr, const char *name)
{
    tr->model.causal = true;
    check_report r;
    check_trace(&r, tr);
    ok(check_passed(&r) && r.rows > 0 && r.misplaced == 0,
       "%s: --check passes on the steps' tables (%zu rows, %zu cells "
       "misplaced)",
       name, r.rows, r.misplaced);
    const table_key w = layer_table_key(0, 0, TABLE_ATTN_WEIGHTS);
    const table_key s = layer_table_key(0, 0, TABLE_ATTN_SCORES);
    const table *weights = trace_find_step(tr, &w, 1);
    const table *scores = trace_find_step(tr, &s, 1);
    if (!ok(weights != NULL && scores != NULL && weights->values.rows == 1 &&
                weights->values.cols >= 2 &&
                weights->first_query == weights->values.cols - 1,
            "%s: step 1's weights are the newest position's row", name))
        return;
    // the newest key masked: its weight moved onto the first key
    const size_t last = weights->values.cols - 1;
    weights->values.v[0] += weights->values.v[last];
    weights->values.v[last] = 0.0f;
    scores->values.v[last] = -INFINITY;
    check_trace(&r, tr);
    ok(!check_passed(&r) && r.misplaced == 1 && r.masked_weight == 0.0,
       "%s: --check fails on a step's own key masked (%zu cell misplaced)",
       name, r.misplaced);
}

/* A case of the reference: its checkpoint, and with context the run asks
 * for more tokens than the model's positions leave (it must end there);
 * llama: a checkpoint of tests/reference/llama/ (else gpt2/). */
typedef struct {
    const char *name, *checkpoint;
    bool context;
    bool llama;
    bool steps;  /* the steps' tables too (CASE.steps.safetensors) */
    bool ablate; /* heads switched off ("ablate", "mode", "clean") */
} gen_case;

/* Either family's model, opened from folder, with the end-of-text token
 * eos (-1: none). */
typedef struct {
    gpt2_model gpt2;
    llama_model llama;
    gpt2_generator g;
    llama_generator lg;
    bool is_llama;
} any_model;

static int model_open(any_model *a, const char *folder, bool llama, long eos,
                      mx_error *err)
{
    *a = (any_model){.is_llama = llama};
    if (!llama) {
        if (gpt2_open(&a->gpt2, folder, err) != 0)
            return -1;
        a->gpt2.cfg.eos = eos;
        return 0;
    }
    if (llama_open(&a->llama, folder, err) != 0)
        return -1;
    a->llama.cfg.n_eos = eos >= 0;
    a->llama.cfg.eos[0] = (int32_t)eos;
    return 0;
}

static size_t model_positions(const any_model *a)
{
    return a->is_llama ? a->llama.cfg.n_positions : a->gpt2.cfg.n_positions;
}

/* The generator over a's model for positions positions, and its step. */
static int model_generator(generate_model *gm, any_model *a,
                           const checkpoint_tokenizer *tok, size_t positions,
                           mx_error *err)
{
    if (a->is_llama) {
        if (llama_generator_init(&a->lg, &a->llama, tok, NULL, positions,
                                 err) != 0)
            return -1;
        *gm = llama_generator_model(&a->lg);
        return 0;
    }
    if (gpt2_generator_init(&a->g, &a->gpt2, tok, NULL, positions, err) != 0)
        return -1;
    *gm = gpt2_generator_model(&a->g);
    return 0;
}

static void model_generator_free(any_model *a)
{
    if (a->is_llama)
        llama_generator_free(&a->lg);
    else
        gpt2_generator_free(&a->g);
}

static void model_close(any_model *a)
{
    if (a->is_llama)
        llama_close(&a->llama);
    else
        gpt2_close(&a->gpt2);
}

/* The hooks of the heads ref's "ablate" (k x 2: layer, head) names, as
 * --ablate L.H with --ablate-mode ref's "mode" (0 zero, 1 mean) makes
 * them (ablate_head_hook); *n of them, malloc'ed, or NULL. */
static replace_hook *ref_hooks(size_t *n, const safetensors *ref)
{
    size_t n_heads = 0, n_mode = 0;
    float *heads = ref_values(&n_heads, ref, "ablate");
    float *mode = ref_values(&n_mode, ref, "mode");
    replace_hook *hooks = NULL;
    *n = 0;
    if (heads != NULL && mode != NULL && n_mode == 1 && n_heads % 2 == 0 &&
        n_heads > 0 && (hooks = calloc(n_heads / 2, sizeof *hooks)) != NULL) {
        const run_request rq = {.ablate_mode =
                                    mode[0] != 0 ? HOOK_MEAN : HOOK_ZERO};
        for (size_t i = 0; i < n_heads / 2; i++)
            hooks[i] = ablate_head_hook(&rq, (size_t)heads[2 * i],
                                        (size_t)heads[2 * i + 1]);
        *n = n_heads / 2;
    }
    free(heads);
    free(mode);
    return hooks;
}

/* The clean run of an ablate case (o without hooks) against ref's
 * "clean", and where it parts from the ablated run gen. */
static void compare_clean(const gen_case *c, const safetensors *ref,
                          any_model *m, const checkpoint_tokenizer *tok,
                          const generate_options *o, const int32_t *ids,
                          size_t T, const generation *gen)
{
    size_t n_clean = 0;
    float *want = ref_values(&n_clean, ref, "clean");
    generate_options plain = *o;
    plain.replace = NULL;
    plain.n_replace = 0;
    plain.steps = NULL;
    generation clean = {0};
    generate_model gm;
    mx_error err;
    int rc = want != NULL ? model_generator(&gm, m, tok, T + o->n, &err) : -1;
    if (rc == 0) {
        rc = generate_run(&clean, &gm, &plain, ids, T, &err);
        model_generator_free(m);
    }
    size_t wrong = 0, common = 0;
    while (want != NULL && common < n_clean && common < gen->n &&
           (float)gen->tokens[common].token == want[common])
        common++;
    for (size_t i = 0; rc == 0 && i < clean.n && i < n_clean; i++)
        wrong += (float)clean.tokens[i].token != want[i];
    ok(rc == 0 && clean.n == n_clean && wrong == 0,
       "%s: the clean run beside it is generate()'s without the hooks (%zu "
       "tokens, %zu differ)",
       c->name, clean.n, wrong);
    ok(rc == 0 && generation_common(gen, &clean) == common &&
           !(common == gen->n && gen->n == clean.n),
       "%s: the two texts part after %zu shared tokens", c->name, common);
    generation_free(&clean);
    free(want);
}

static void run_case(const char *dir, const gen_case *c)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s.safetensors", dir,
             c->llama ? "llama_generate" : "generate", c->name);
    safetensors ref;
    mx_error err;
    if (!ok(safetensors_open(&ref, path, &err) == 0, "%s opens", path))
        return;
    size_t n_tok = 0, n_p = 0, n_top = 0, n_top_p = 0, n_set = 0, n_pl = 0,
           n_kept = 0;
    float *tokens = ref_values(&n_tok, &ref, "tokens");
    float *p = ref_values(&n_p, &ref, "p");
    float *p_logits = ref_values(&n_pl, &ref, "p_logits");
    float *kept = ref_values(&n_kept, &ref, "kept");
    float *top = ref_values(&n_top, &ref, "top");
    float *top_p = ref_values(&n_top_p, &ref, "top_p");
    float *set = ref_values(&n_set, &ref, "settings");
    any_model m;
    checkpoint_tokenizer *tok = NULL;
    char folder[4096], ids_path[4200];
    snprintf(folder, sizeof folder, "%s/%s/%s", dir,
             c->llama ? "llama" : "gpt2", c->checkpoint);
    snprintf(ids_path, sizeof ids_path, "%s/ids.txt", folder);
    int32_t ids[256];
    size_t T = 0;
    FILE *f = fopen(ids_path, "r");
    long id;
    while (f != NULL && T < 256 && fscanf(f, "%ld", &id) == 1)
        ids[T++] = (int32_t)id;
    if (f != NULL)
        fclose(f);
    if (!ok(tokens && p && top && top_p && set && n_set == 7 && n_p == n_tok &&
                n_top == 5 * n_tok && T > 0 &&
                model_open(&m, folder, c->llama, (long)set[6], &err) == 0,
            "%s: reference and checkpoint read", c->name))
        goto out;
    // the folder's tokenizer, from the files its family's row names
    const run_request folder_rq = {.checkpoint = folder};
    if (checkpoint_run_tokenizer(&tok, &folder_rq, SIZE_MAX, &err) != 0) {
        model_close(&m);
        ok(false, "%s: tokenizer", c->name);
        goto out;
    }
    const size_t asked = c->context ? 2 * model_positions(&m) : (size_t)set[5];
    const generate_options o = {
        .n = asked,
        .how = {.sample = set[0] != 0,
                .temperature = (double)set[1],
                .top_k = (size_t)set[2],
                .top_p = (double)set[3]},
        .seed = (uint64_t)set[4],
    };
    trace steps;
    trace_init(&steps);
    generate_options with = o;
    with.steps = c->steps ? &steps : NULL;
    size_t n_hooks = 0;
    replace_hook *hooks = c->ablate ? ref_hooks(&n_hooks, &ref) : NULL;
    with.replace = hooks;
    with.n_replace = n_hooks;
    ok(!c->ablate || n_hooks > 0, "%s: the heads switched off read", c->name);
    generation gen = {0};
    generate_model gm;
    int rc = model_generator(&gm, &m, tok, T + asked, &err);
    if (rc == 0) {
        rc = generate_run(&gen, &gm, &with, ids, T, &err);
        model_generator_free(&m);
    }
    if (c->steps && rc == 0) {
        compare_steps(&steps, dir, c->name, m.gpt2.cfg.n_layer,
                      m.gpt2.cfg.n_head, gen.n);
        check_steps(&steps, c->name);
    } else if (rc == 0)
        ok(trace_count(&steps) == 0, "%s: without --kv-steps no table is kept",
           c->name);
    trace_free(&steps);
    if (ok(rc == 0 && gen.n == n_tok, "%s: %zu tokens (want %zu)", c->name,
           gen.n, n_tok)) {
        size_t wrong_tok = 0, wrong_p = 0, wrong_top = 0, wrong_kept = 0;
        for (size_t i = 0; i < gen.n; i++) {
            const generated_token *t = &gen.tokens[i];
            wrong_tok += (float)t->token != tokens[i];
            wrong_p +=
                !same_bits(t->p, p[i]) || !same_bits(t->p_logits, p_logits[i]);
            wrong_kept += (float)t->effect.after_top_k != kept[2 * i] ||
                          (float)t->effect.after_top_p != kept[2 * i + 1];
            // the tokens that could be picked, then id -1, probability 0
            for (size_t k = 0; k < 5; k++) {
                const bool there = k < t->n_top;
                wrong_top +=
                    (there ? (float)t->top[k] : -1.0f) != top[i * 5 + k] ||
                    !same_bits(there ? t->top_p[k] : 0.0f, top_p[i * 5 + k]);
            }
        }
        ok(wrong_tok == 0, "%s: every token is generate()'s (%zu differ)",
           c->name, wrong_tok);
        ok(wrong_p == 0,
           "%s: every probability, picked and the model's, bit for bit "
           "(%zu differ)",
           c->name, wrong_p);
        ok(wrong_kept == 0,
           "%s: the tokens top-k and top-p left at each step (%zu differ)",
           c->name, wrong_kept);
        ok(wrong_top == 0,
           "%s: the five likeliest at each step, bit for bit (%zu differ)",
           c->name, wrong_top);
        const enum generate_end want = c->context    ? GENERATE_END_CONTEXT
                                       : set[6] >= 0 ? GENERATE_END_TOKEN
                                                     : GENERATE_END_LENGTH;
        ok(gen.end == want, "%s: ends as it should (%d, want %d)", c->name,
           (int)gen.end, (int)want);
        if (c->ablate)
            compare_clean(c, &ref, &m, tok, &o, ids, T, &gen);
    }
    free(hooks);
    generation_free(&gen);
    checkpoint_tokenizer_free(tok);
    model_close(&m);
out:
    free(tokens);
    free(p);
    free(p_logits);
    free(kept);
    free(top);
    free(top_p);
    free(set);
    safetensors_close(&ref);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_generate tests/reference\n");
        return 2;
    }
    static const gen_case cases[] = {
        {"greedy", "two_layers", false, false, true, false},
        {"greedy_wide", "wide", false, false, false, false},
        {"greedy_context", "two_layers", true, false, false, false},
        {"greedy_eos", "two_layers", false, false, false, false},
        {"sample_default", "wide", false, false, false, false},
        {"sample_warped", "two_layers", false, false, false, false},
        {"sample_top_p", "four_heads_bf16", false, false, true, false},
        {"sample_cold", "odd_inner_f16", false, false, false, false},
        // a Llama-style checkpoint's: tied and not, GQA 2 and 4, BF16, F16
        // and sharded, Qwen2's biases
        {"greedy_tied", "llama_tied_f32", false, true, false, false},
        {"greedy_gqa4_bf16", "llama_gqa4_bf16", false, true, false, false},
        {"greedy_context", "llama_tied_f32", true, true, false, false},
        {"greedy_eos", "qwen2_bias_f16", false, true, false, false},
        {"sample_warped", "llama_gqa4_bf16", false, true, false, false},
        {"sample_qwen2", "qwen2_bias_f16", false, true, false, false},
        {"sample_sharded", "mistral_sharded", false, true, false, false},
        {"sample_head48", "llama_head48_bf16", false, true, false, false},
        // heads switched off at every step: zero and the prompt's mean,
        // greedy and sampled, GPT-2's and Llama-style (GQA 2 and 4, BF16,
        // sharded)
        {"ablate_zero_greedy", "two_layers", false, false, false, true},
        {"ablate_mean_greedy", "four_heads_bf16", false, false, false, true},
        {"ablate_mean_sample", "wide", false, false, false, true},
        {"ablate_zero_greedy", "llama_gqa4_bf16", false, true, false, true},
        {"ablate_mean_greedy", "llama_tied_f32", false, true, false, true},
        {"ablate_mean_sample", "mistral_sharded", false, true, false, true},
    };
    exponential(argv[1]);
    top_p_ties(argv[1]);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        run_case(argv[1], &cases[i]);
    return tap_done();
}
