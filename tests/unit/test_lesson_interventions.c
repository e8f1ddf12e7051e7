/* test_lesson_interventions.c: --ablate (zero; mean over the corpus;
 * one head, two, every head alone), --patch and --head-scores on a
 * trained lesson model (--variant block: two attention-only blocks with
 * positions, Adam; one Transformer block, SGD), through pipeline_run as
 * the command line runs it, against PyTorch's notebook trained the same
 * way and run with forward hooks on its attention's out_proj, its
 * blocks and its attention's dropout
 * (tests/reference/make_lesson_intervention_reference.py; argv[1]:
 * tests/reference). The run's logits (the trained model), then
 * ablation_effect, ablation_loss, ablation_map (of the loss, of the
 * logit difference and of the answer's probability: --metric), patch_heads,
 * patch_resid and head_scores (on a text, and on --repeat-random N's N
 * tokens drawn from --seed, then the same N again, with no sentence: the
 * model trained on the corpus alone, or PyTorch's trained model read
 * from a --weights folder without --corpus) and logit_lens (each block's
 * out through the lm_head, on the trained run and on PyTorch's model
 * read from its folder) bit for bit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/safetensors.h"
#include "model/lesson/weights.h"
#include "model/pipeline.h"
#include "model/trace.h"
#include "tap.h"

/* Whether t holds the reference's table name bit for bit. */
static bool same_as(const table *t, const safetensors *ref, const char *name)
{
    const st_tensor *want = safetensors_find(ref, name);
    const float *v;
    float *owned;
    mx_error err;
    if (t == NULL || want == NULL || want->ndim != 2 ||
        safetensors_floats(&v, &owned, ref, want, &err) != 0)
        return false;
    const size_t n = t->values.rows * t->values.cols;
    const bool shaped =
        want->shape[0] == t->values.rows && want->shape[1] == t->values.cols;
    const bool same = shaped && memcmp(v, t->values.v, n * sizeof *v) == 0;
    for (size_t i = 0; shaped && !same && i < n; i++)
        if (v[i] != t->values.v[i]) {
            diag("%s: first difference at %zu: %.9g, PyTorch %.9g", name, i,
                 (double)t->values.v[i], (double)v[i]);
            break;
        }
    free(owned);
    return same;
}

/* A case of the reference script (its CASES): the model and its training. */
typedef struct {
    const char *name, *sentence;
    size_t heads, layers, steps;
    bool attn_only, positions;
    uint64_t seed;
    double lr;
    enum optimizer_kind optimizer;
} lesson_case;

/* The corpus of case c (a sentence a line): lines[] (at most 16), their
 * text in *buf (owned). */
static size_t read_corpus(const char **lines, char **buf, const char *refdir,
                          const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/lesson_interventions/%s.corpus.txt", refdir,
             name);
    FILE *f = fopen(path, "r");
    *buf = calloc(4096, 1);
    size_t n = 0;
    if (f == NULL || *buf == NULL) {
        if (f != NULL)
            fclose(f);
        return 0;
    }
    const size_t len = fread(*buf, 1, 4095, f);
    fclose(f);
    for (char *p = *buf; p < *buf + len && n < 16;) {
        char *end = strchr(p, '\n');
        if (end == NULL)
            break;
        *end = '\0';
        lines[n++] = p;
        p = end + 1;
    }
    return n;
}

static run_request config_of(const lesson_case *c)
{
    return (run_request){
        .seed = c->seed,
        .model.d_model = 8,
        .d_model_given = true,
        .model.d_out = 8,
        .model.heads = c->heads,
        .model.attn_only = c->attn_only,
        .model.causal = true,
        .model.scale = true,
        .tokens = TOKENS_WORDS,
        .variants = VARIANT_BLOCK,
        .threads = 1,
        .model.block_layers = c->layers,
        .model.positions = c->positions,
        .train = true,
        .training = {.steps = c->steps,
                     .lr = c->lr,
                     .optimizer = c->optimizer,
                     .qkv_order = QKV_ORDER_KQV},
    };
}

/* The run of rq over the sentence with the case's corpus, into tr. */
static bool run_case(trace *tr, const run_request *rq, const char *refdir,
                     const lesson_case *c, const char *sentence)
{
    const char *lines[16];
    char *buf;
    const size_t n = read_corpus(lines, &buf, refdir, c->name);
    const model_input in = {.sentence = sentence,
                            .len = strlen(sentence),
                            .corpus = lines,
                            .n_corpus = n};
    mx_error err;
    trace_init(tr);
    const int rc = n > 0 ? pipeline_run(tr, rq, &in, &err) : -1;
    if (rc != 0)
        diag("%s", n > 0 ? err.msg : "no corpus");
    free(buf);
    return rc == 0;
}

static const table *find(const trace *tr, variant_id v, table_id id)
{
    const table_key key = {v, 0, NO_HEAD, id, false};
    return trace_find(tr, &key);
}

static bool open_ref(safetensors *ref, const char *refdir, const char *name)
{
    char path[600];
    mx_error err;
    snprintf(path, sizeof path, "%s/lesson_interventions/%s.safetensors",
             refdir, name);
    return safetensors_open(ref, path, &err) == 0;
}

/* --metric and its tokens, for all-heads. */
typedef struct {
    enum ablate_metric kind;
    const char *answer, *wrong;
} metric_case;

/* --ablate heads (n of them; 0: all-heads) as mode says, all-heads
 * measured by metric (NULL: the loss). */
static void ablate_case(const char *refdir, const lesson_case *c,
                        const char *name, const head_ref *heads, size_t n,
                        hook_action mode, const metric_case *metric)
{
    char key[96];
    safetensors ref;
    if (!ok(open_ref(&ref, refdir, c->name), "%s: reference read", c->name))
        return;
    run_request rq = config_of(c);
    rq.ablate = heads;
    rq.n_ablate = n;
    rq.ablate_all = n == 0;
    rq.ablate_mode = mode;
    if (metric != NULL) {
        rq.metric = metric->kind;
        rq.patch_answer = metric->answer;
        rq.patch_wrong = metric->wrong;
    }
    trace tr;
    ok(run_case(&tr, &rq, refdir, c, c->sentence), "%s %s: the run", c->name,
       name);
    ok(same_as(find(&tr, VARIANT_ID_BLOCK, TABLE_LOGITS), &ref, "logits"),
       "%s %s: the trained model's logits", c->name, name);
    if (n == 0) {
        snprintf(key, sizeof key, "%s.map", name);
        ok(same_as(find(&tr, VARIANT_MODEL, TABLE_ABLATE_MAP), &ref, key),
           "%s %s: ablation_map", c->name, name);
    } else {
        snprintf(key, sizeof key, "%s.effect", name);
        ok(same_as(find(&tr, VARIANT_MODEL, TABLE_ABLATE_EFFECT), &ref, key),
           "%s %s: ablation_effect", c->name, name);
        snprintf(key, sizeof key, "%s.loss", name);
        ok(same_as(find(&tr, VARIANT_MODEL, TABLE_ABLATE_LOSS), &ref, key),
           "%s %s: ablation_loss", c->name, name);
    }
    trace_free(&tr);
    safetensors_close(&ref);
}

/* --patch --clean "the cat sat on the" --corrupt "the dog sat on the"
 * --answer mat --wrong rug, and --head-scores on scored. */
static void patch_scores_case(const char *refdir, const lesson_case *c,
                              const char *scored)
{
    safetensors ref;
    if (!ok(open_ref(&ref, refdir, c->name), "%s: reference read", c->name))
        return;
    const char *clean = "the cat sat on the";
    run_request rq = config_of(c);
    rq.patch = true;
    rq.patch_clean = clean;
    rq.patch_corrupt = "the dog sat on the";
    rq.patch_answer = "mat";
    rq.patch_wrong = "rug";
    trace tr;
    ok(run_case(&tr, &rq, refdir, c, clean), "%s patch: the run", c->name);
    ok(same_as(find(&tr, VARIANT_MODEL, TABLE_PATCH_HEADS), &ref,
               "patch.heads"),
       "%s: patch_heads", c->name);
    ok(same_as(find(&tr, VARIANT_MODEL, TABLE_PATCH_RESID), &ref,
               "patch.resid"),
       "%s: patch_resid", c->name);
    trace_free(&tr);
    rq = config_of(c);
    rq.head_scores = true;
    ok(run_case(&tr, &rq, refdir, c, scored), "%s scores: the run", c->name);
    ok(same_as(find(&tr, VARIANT_MODEL, TABLE_HEAD_SCORES), &ref, "scores"),
       "%s: head_scores", c->name);
    trace_free(&tr);
    safetensors_close(&ref);
}

/* --head-scores --repeat-random n: no sentence (the command line's empty
 * one), the text drawn from the trained vocabulary. */
static void random_scores_case(const char *refdir, const lesson_case *c,
                               size_t n)
{
    safetensors ref;
    if (!ok(open_ref(&ref, refdir, c->name), "%s: reference read", c->name))
        return;
    run_request rq = config_of(c);
    rq.head_scores = true;
    rq.repeat_random = n;
    trace tr;
    ok(run_case(&tr, &rq, refdir, c, ""), "%s --repeat-random %zu: the run",
       c->name, n);
    ok(same_as(find(&tr, VARIANT_MODEL, TABLE_HEAD_SCORES), &ref,
               "random.scores"),
       "%s --repeat-random %zu: head_scores", c->name, n);
    trace_free(&tr);
    safetensors_close(&ref);
}

/* A run of case c's PyTorch's trained notebook, as the reference wrote
 * it in a trained run's folder (--weights NAME.model), read as it is:
 * with no --corpus and no --train, rq's options over text; its
 * reference, its folder and its trace. */
typedef struct {
    safetensors ref;
    weights_files files;
    trace tr;
} folder_run;

/* Opens the reference and the folder, then runs (its tests named
 * `what`): false when either could not be read (nothing then to free),
 * else true with the trace made, the run failed or not. */
static bool folder_run_open(folder_run *r, run_request rq, const char *refdir,
                            const lesson_case *c, const char *text,
                            const char *what)
{
    if (!ok(open_ref(&r->ref, refdir, c->name), "%s: reference read", c->name))
        return false;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/lesson_interventions/%s.model", refdir,
             c->name);
    mx_error err;
    if (!ok(weights_open_dir(&r->files, dir, VARIANT_BLOCK, c->heads, c->layers,
                             false, &err) == 0,
            "%s: the folder read", what)) {
        diag("%s", err.msg);
        safetensors_close(&r->ref);
        return false;
    }
    rq.training.steps = 0;
    rq.weights = &r->files;
    rq.weights_style = (csv_style){',', false};
    const model_input in = {.sentence = text, .len = strlen(text)};
    trace_init(&r->tr);
    const int rc = pipeline_run(&r->tr, &rq, &in, &err);
    if (rc != 0)
        diag("%s", err.msg);
    ok(rc == 0, "%s: the run", what);
    return true;
}

static void folder_run_close(folder_run *r)
{
    trace_free(&r->tr);
    weights_files_free(&r->files);
    safetensors_close(&r->ref);
}

/* --weights NAME.model --head-scores --repeat-random n: the folder's
 * model scored on the text drawn from its model.json's vocabulary. */
static void folder_scores_case(const char *refdir, const lesson_case *c,
                               size_t n)
{
    run_request rq = config_of(c);
    rq.head_scores = true;
    rq.repeat_random = n;
    char what[64];
    snprintf(what, sizeof what, "%s.model --repeat-random %zu", c->name, n);
    folder_run r;
    if (!folder_run_open(&r, rq, refdir, c, "", what))
        return;
    ok(same_as(find(&r.tr, VARIANT_MODEL, TABLE_HEAD_SCORES), &r.ref,
               "random.scores"),
       "%s: head_scores", what);
    folder_run_close(&r);
}

/* Whether each layer's logit_lens in tr (layers of them, none past)
 * holds the reference's lens.L.probs bit for bit, each row labelled
 * "word → next" with next the word of lens.L.ids (the vocabulary as the
 * trained model's logits label their columns). */
static bool same_lens(const trace *tr, const safetensors *ref, size_t layers)
{
    const table *logits = find(tr, VARIANT_ID_BLOCK, TABLE_LOGITS);
    bool same = logits != NULL;
    for (size_t l = 0; same && l <= layers; l++) {
        const table_key at = layer_table_key((int)l, NO_HEAD, TABLE_LOGIT_LENS);
        const table *t = trace_find(tr, &at);
        if (l == layers)
            return t == NULL;
        char key[64];
        snprintf(key, sizeof key, "lens.%zu.probs", l);
        same = same_as(t, ref, key);
        snprintf(key, sizeof key, "lens.%zu.ids", l);
        const st_tensor *want = safetensors_find(ref, key);
        const float *ids;
        float *owned = NULL;
        mx_error err;
        same = same && want != NULL &&
               safetensors_floats(&ids, &owned, ref, want, &err) == 0 &&
               st_tensor_count(want) == t->rows->n;
        for (size_t i = 0; same && i < t->rows->n; i++) {
            const char *arrow = strstr(t->rows->s[i], " \u2192 ");
            const size_t id = (size_t)ids[i];
            same = arrow != NULL && id < logits->cols->n &&
                   strcmp(arrow + strlen(" \u2192 "), logits->cols->s[id]) == 0;
            if (!same)
                diag("layer %zu row %zu: %s, PyTorch's next word %s", l, i,
                     t->rows->s[i],
                     id < logits->cols->n ? logits->cols->s[id] : "?");
        }
        free(owned);
    }
    return same;
}

/* --logit-lens on the trained model over the case's sentence: each
 * block's out through the lm_head, against PyTorch's forward hooks on
 * the blocks. */
static void lens_case(const char *refdir, const lesson_case *c)
{
    safetensors ref;
    if (!ok(open_ref(&ref, refdir, c->name), "%s: reference read", c->name))
        return;
    run_request rq = config_of(c);
    rq.logit_lens = true;
    trace tr;
    ok(run_case(&tr, &rq, refdir, c, c->sentence), "%s lens: the run", c->name);
    ok(same_as(find(&tr, VARIANT_ID_BLOCK, TABLE_LOGITS), &ref, "logits"),
       "%s lens: the trained model's logits", c->name);
    ok(same_lens(&tr, &ref, c->layers > 0 ? c->layers : 1),
       "%s: logit_lens of every block, tokens and probabilities bit for bit",
       c->name);
    trace_free(&tr);
    safetensors_close(&ref);
}

/* --weights NAME.model --logit-lens over the case's sentence. */
static void folder_lens_case(const char *refdir, const lesson_case *c)
{
    run_request rq = config_of(c);
    rq.logit_lens = true;
    char what[64];
    snprintf(what, sizeof what, "%s.model lens", c->name);
    folder_run r;
    if (!folder_run_open(&r, rq, refdir, c, c->sentence, what))
        return;
    ok(same_lens(&r.tr, &r.ref, c->layers),
       "%s.model: logit_lens of every block bit for bit", c->name);
    folder_run_close(&r);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        printf("1..0 # SKIP no reference folder\n");
        return 0;
    }
    const char *ref = argv[1];
    const lesson_case stack = {
        "stack",       "the cat sat on the mat", 2, 2, 60, true, true, 5, 0.02,
        OPTIMIZER_ADAM};
    const lesson_case block = {
        "block",      "the dog sat on the rug", 2, 0, 30, false, false, 7, 0.1,
        OPTIMIZER_SGD};
    const head_ref h10[] = {{1, 0}};
    const head_ref h01_11[] = {{0, 1}, {1, 1}};
    const head_ref h01[] = {{0, 1}};
    const head_ref h00[] = {{0, 0}};
    ablate_case(ref, &stack, "zero_1.0", h10, 1, HOOK_ZERO, NULL);
    ablate_case(ref, &stack, "mean_0.1_1.1", h01_11, 2, HOOK_MEAN, NULL);
    ablate_case(ref, &stack, "all_zero", NULL, 0, HOOK_ZERO, NULL);
    ablate_case(ref, &stack, "all_mean", NULL, 0, HOOK_MEAN, NULL);
    const metric_case diff = {METRIC_LOGIT_DIFF, "mat", "rug"};
    ablate_case(ref, &stack, "all_logit_diff", NULL, 0, HOOK_ZERO, &diff);
    patch_scores_case(ref, &stack, "the cat sat on the cat sat on");
    random_scores_case(ref, &stack, 4);
    folder_scores_case(ref, &stack, 4);
    lens_case(ref, &stack);
    folder_lens_case(ref, &stack);
    ablate_case(ref, &block, "zero_0.1", h01, 1, HOOK_ZERO, NULL);
    ablate_case(ref, &block, "mean_0.0", h00, 1, HOOK_MEAN, NULL);
    ablate_case(ref, &block, "all_mean", NULL, 0, HOOK_MEAN, NULL);
    const metric_case prob = {METRIC_PROB, "the", NULL};
    ablate_case(ref, &block, "all_prob", NULL, 0, HOOK_MEAN, &prob);
    patch_scores_case(ref, &block, "the dog sat on the dog sat on");
    random_scores_case(ref, &block, 3);
    lens_case(ref, &block);
    return tap_done();
}
