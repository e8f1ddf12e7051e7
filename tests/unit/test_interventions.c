/* test_interventions.c: --ablate on GPT-2's checkpoints two_layers and
 * four_heads_bf16 (tests/reference/gpt2/), and on Llama-style ones
 * (tests/reference/llama/, make_llama_intervention_reference.py, with
 * hooks on o_proj and the decoder layers), through pipeline_run as the
 * command line runs it, against PyTorch with forward pre-hooks on the
 * attention's output projection
 * (tests/reference/make_intervention_reference.py; argv[1]:
 * tests/reference). Zero and mean, one head, several heads of one layer
 * and of two, and every head alone (all-heads, by the loss and by
 * --metric logit-diff and prob): the ablated model's out,
 * ablation_effect, ablation_loss and ablation_map bit for bit; and
 * --patch's patch_heads and patch_resid against TransformerLens's
 * patching loop and its demo's normalised logit difference; and
 * --head-scores (on a text, and on --repeat-random's tokens) against
 * TransformerLens's head detector; and --logit-lens's logit_lens on GPT-2
 * and Llama-style checkpoints against make_logit_lens_reference.py's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv_in.h"
#include "io/safetensors.h"
#include "model/checkpoint_run.h"
#include "model/tokenizers/checkpoint_tokenizer.h"
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
    const bool same =
        want->shape[0] == t->values.rows && want->shape[1] == t->values.cols &&
        memcmp(v, t->values.v, t->values.rows * t->values.cols * sizeof *v) ==
            0;
    if (!same && want->shape[0] == t->values.rows &&
        want->shape[1] == t->values.cols)
        for (size_t i = 0; i < t->values.rows * t->values.cols; i++)
            if (v[i] != t->values.v[i]) {
                diag("%s: first difference at %zu: %.9g, PyTorch %.9g", name, i,
                     (double)t->values.v[i], (double)v[i]);
                break;
            }
    free(owned);
    return same;
}

/* The folder of tests/reference holding checkpoint ckpt: llama/ for the
 * Llama-style ones (make_llama_reference.py), else gpt2/. */
static const char *family_dir(const char *ckpt)
{
    return strncmp(ckpt, "llama", 5) == 0 || strncmp(ckpt, "qwen2", 5) == 0
               ? "llama"
               : "gpt2";
}

static const table *model_table(const trace *tr, table_id id)
{
    const table_key key = {VARIANT_MODEL, 0, NO_HEAD, id, false};
    return trace_find(tr, &key);
}

/* The text of the checkpoint's folder (text.txt), malloc'ed. */
static char *read_text(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/text.txt", dir);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *text = calloc(1, 4096);
    if (text != NULL)
        text[fread(text, 1, 4095, f)] = '\0';
    fclose(f);
    return text;
}

/* What --ablate all-heads measures in a case: --metric with its
 * --answer and --wrong (NULL where the metric takes none). */
typedef struct {
    enum ablate_metric kind;
    const char *answer, *wrong;
} metric_words;

static const metric_words by_loss = {METRIC_LOSS, NULL, NULL};

/* --corpus FILE --column text: the texts a mean ablation averages over
 * (tests/reference/interventions/corpus.csv), as the command line reads
 * them. */
typedef struct {
    char **texts;
    size_t *lines, n;
    char file[600];
} corpus_texts;

static int corpus_read(corpus_texts *c, const char *refdir)
{
    const csv_style style = {',', false};
    mx_error err;
    snprintf(c->file, sizeof c->file, "%s/interventions/corpus.csv", refdir);
    if (read_sentences(&c->texts, &c->lines, &c->n, c->file, "text", &style,
                       &err) != 0) {
        diag("%s", err.msg);
        return -1;
    }
    return 0;
}

static void corpus_free(corpus_texts *c)
{
    free_strings(c->texts, c->n);
    free(c->lines);
}

/* One case: heads (n of them; 0: all-heads, measured by metric) ablated
 * as mode says; with corpus (not NULL), a mean over its texts, against
 * the reference's corpus_CHECKPOINT.safetensors. */
static void ablate_measured(const char *refdir, const char *ckpt,
                            const char *name, const head_ref *heads, size_t n,
                            hook_action mode, const metric_words *metric,
                            const corpus_texts *corpus)
{
    char dir[256], path[600], key[96];
    snprintf(dir, sizeof dir, "%s/%s/%s", refdir, family_dir(ckpt), ckpt);
    snprintf(path, sizeof path, "%s/interventions/%s%s.safetensors", refdir,
             corpus != NULL ? "corpus_" : "", ckpt);
    safetensors ref;
    mx_error err;
    char *text = read_text(dir);
    if (text == NULL || safetensors_open(&ref, path, &err) != 0) {
        ok(0, "%s %s: reference and text read", ckpt, name);
        free(text);
        return;
    }
    const run_request rq = {.checkpoint = dir,
                            .threads = 1,
                            .ablate = heads,
                            .n_ablate = n,
                            .ablate_all = n == 0,
                            .ablate_mode = mode,
                            .metric = metric->kind,
                            .patch_answer = metric->answer,
                            .patch_wrong = metric->wrong};
    model_input in = {.sentence = text, .len = strlen(text)};
    if (corpus != NULL) {
        in.corpus = (const char *const *)corpus->texts;
        in.n_corpus = corpus->n;
        in.corpus_lines = corpus->lines;
        in.corpus_file = corpus->file;
        in.corpus_column = "text";
    }
    trace tr;
    trace_init(&tr);
    const int rc = pipeline_run(&tr, &rq, &in, &err);
    if (!ok(rc == 0, "%s %s: the run", ckpt, name))
        diag("%s", err.msg);
    if (n == 0) {
        snprintf(key, sizeof key, "%s.map", name);
        ok(same_as(model_table(&tr, TABLE_ABLATE_MAP), &ref, key),
           "%s %s: ablation_map", ckpt, name);
        ok(model_table(&tr, TABLE_ABLATE_EFFECT) == NULL,
           "%s %s: no ablation_effect", ckpt, name);
    } else {
        snprintf(key, sizeof key, "%s.out", name);
        ok(same_as(model_table(&tr, TABLE_OUT), &ref, key),
           "%s %s: the ablated model's out", ckpt, name);
        snprintf(key, sizeof key, "%s.effect", name);
        ok(same_as(model_table(&tr, TABLE_ABLATE_EFFECT), &ref, key),
           "%s %s: ablation_effect", ckpt, name);
        snprintf(key, sizeof key, "%s.loss", name);
        ok(same_as(model_table(&tr, TABLE_ABLATE_LOSS), &ref, key),
           "%s %s: ablation_loss", ckpt, name);
    }
    trace_free(&tr);
    safetensors_close(&ref);
    free(text);
}

/* One case measured by the loss: heads (n of them; 0: all-heads). */
static void ablate_case(const char *refdir, const char *ckpt, const char *name,
                        const head_ref *heads, size_t n, hook_action mode)
{
    ablate_measured(refdir, ckpt, name, heads, n, mode, &by_loss, NULL);
}

/* --patch on checkpoint ckpt: clean against corrupt, answer against
 * wrong. */
static void patch_case(const char *refdir, const char *ckpt, const char *name,
                       const char *clean, const char *corrupt,
                       const char *answer, const char *wrong)
{
    char dir[256], path[600], key[96];
    snprintf(dir, sizeof dir, "%s/%s/%s", refdir, family_dir(ckpt), ckpt);
    snprintf(path, sizeof path, "%s/interventions/patch_%s.safetensors", refdir,
             ckpt);
    safetensors ref;
    mx_error err;
    if (safetensors_open(&ref, path, &err) != 0) {
        ok(0, "%s %s: reference read", ckpt, name);
        return;
    }
    const run_request rq = {.checkpoint = dir,
                            .threads = 1,
                            .patch = true,
                            .patch_clean = clean,
                            .patch_corrupt = corrupt,
                            .patch_answer = answer,
                            .patch_wrong = wrong};
    const model_input in = {.sentence = clean, .len = strlen(clean)};
    trace tr;
    trace_init(&tr);
    const int rc = pipeline_run(&tr, &rq, &in, &err);
    if (!ok(rc == 0, "%s %s: the run", ckpt, name))
        diag("%s", err.msg);
    snprintf(key, sizeof key, "%s.heads", name);
    ok(same_as(model_table(&tr, TABLE_PATCH_HEADS), &ref, key),
       "%s %s: patch_heads", ckpt, name);
    snprintf(key, sizeof key, "%s.resid", name);
    ok(same_as(model_table(&tr, TABLE_PATCH_RESID), &ref, key),
       "%s %s: patch_resid", ckpt, name);
    snprintf(key, sizeof key, "%s.baselines", name);
    ok(same_as(model_table(&tr, TABLE_PATCH_BASELINES), &ref, key),
       "%s %s: patch_baselines", ckpt, name);
    trace_free(&tr);
    safetensors_close(&ref);
}

/* --head-scores on checkpoint ckpt over text, or with --repeat-random n
 * --seed seed when text is NULL. */
static void scores_case(const char *refdir, const char *ckpt, const char *name,
                        const char *text, size_t n, uint64_t seed)
{
    char dir[256], path[600], key[96];
    snprintf(dir, sizeof dir, "%s/%s/%s", refdir, family_dir(ckpt), ckpt);
    snprintf(path, sizeof path, "%s/interventions/scores_%s.safetensors",
             refdir, ckpt);
    safetensors ref;
    mx_error err;
    if (safetensors_open(&ref, path, &err) != 0) {
        ok(0, "%s %s: reference read", ckpt, name);
        return;
    }
    const run_request rq = {.checkpoint = dir,
                            .threads = 1,
                            .head_scores = true,
                            .repeat_random = text == NULL ? n : 0,
                            .seed = seed};
    const model_input in = {.sentence = text != NULL ? text : "",
                            .len = text != NULL ? strlen(text) : 0};
    trace tr;
    trace_init(&tr);
    const int rc = pipeline_run(&tr, &rq, &in, &err);
    if (!ok(rc == 0, "%s %s: the run", ckpt, name))
        diag("%s", err.msg);
    snprintf(key, sizeof key, "%s.scores", name);
    ok(same_as(model_table(&tr, TABLE_HEAD_SCORES), &ref, key),
       "%s %s: head_scores", ckpt, name);
    trace_free(&tr);
    safetensors_close(&ref);
}

/* Whether each row of the lens table t is labelled "token → next" with
 * next the piece of the reference's id (ids, rows of them): the pieces
 * as the checkpoint's tokenizer.json labels them. */
static bool same_labels(const table *t, const checkpoint_tokenizer *tok,
                        const float *ids, size_t rows)
{
    if (t == NULL || t->rows->n != rows)
        return false;
    for (size_t i = 0; i < rows; i++) {
        char want[256];
        checkpoint_tokenizer_label(want, sizeof want, tok, (int32_t)ids[i]);
        const char *arrow = strstr(t->rows->s[i], " \u2192 ");
        if (arrow == NULL || strcmp(arrow + strlen(" \u2192 "), want) != 0) {
            diag("row %zu: %s, PyTorch's next token %s", i, t->rows->s[i],
                 want);
            return false;
        }
    }
    return true;
}

/* --logit-lens on checkpoint ckpt over its text: each layer's logit_lens
 * (its probabilities, and the tokens its labels name) against
 * make_logit_lens_reference.py's. */
static void lens_case(const char *refdir, const char *ckpt, size_t layers)
{
    char dir[256], path[600], key[96];
    snprintf(dir, sizeof dir, "%s/%s/%s", refdir, family_dir(ckpt), ckpt);
    snprintf(path, sizeof path, "%s/logit_lens/%s.safetensors", refdir, ckpt);
    safetensors ref;
    mx_error err;
    checkpoint_tokenizer *tok = NULL;
    char *text = read_text(dir);
    if (text == NULL || safetensors_open(&ref, path, &err) != 0) {
        ok(0, "%s logit lens: reference and text read", ckpt);
        free(text);
        return;
    }
    const run_request rq = {
        .checkpoint = dir, .threads = 1, .logit_lens = true};
    const model_input in = {.sentence = text, .len = strlen(text)};
    trace tr;
    trace_init(&tr);
    const int rc = pipeline_run(&tr, &rq, &in, &err);
    if (!ok(rc == 0 && checkpoint_run_tokenizer(&tok, &rq, SIZE_MAX, &err) == 0,
            "%s logit lens: the run", ckpt))
        diag("%s", err.msg);
    for (size_t l = 0; tok != NULL && l < layers; l++) {
        const table_key at = layer_table_key((int)l, NO_HEAD, TABLE_LOGIT_LENS);
        const table *t = trace_find(&tr, &at);
        snprintf(key, sizeof key, "%zu.ids", l);
        const st_tensor *ids_t = safetensors_find(&ref, key);
        const float *ids;
        float *owned = NULL;
        const bool named =
            ids_t != NULL &&
            safetensors_floats(&ids, &owned, &ref, ids_t, &err) == 0 &&
            same_labels(t, tok, ids, st_tensor_count(ids_t));
        free(owned);
        snprintf(key, sizeof key, "%zu.probs", l);
        ok(named && same_as(t, &ref, key),
           "%s logit lens, layer %zu: every top token and probability bit for "
           "bit",
           ckpt, l);
    }
    const table_key past =
        layer_table_key((int)layers, NO_HEAD, TABLE_LOGIT_LENS);
    ok(trace_find(&tr, &past) == NULL, "%s logit lens: one table per layer",
       ckpt);
    checkpoint_tokenizer_free(tok);
    trace_free(&tr);
    safetensors_close(&ref);
    free(text);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        printf("1..0 # SKIP no reference folder\n");
        return 0;
    }
    const char *ref = argv[1];
    const head_ref h01[] = {{0, 1}};
    const head_ref h10_01[] = {{1, 0}, {0, 1}};
    const head_ref h10_11[] = {{1, 0}, {1, 1}};
    const head_ref h02[] = {{0, 2}};
    ablate_case(ref, "two_layers", "zero_0.1", h01, 1, HOOK_ZERO);
    ablate_case(ref, "two_layers", "mean_1.0_0.1", h10_01, 2, HOOK_MEAN);
    ablate_case(ref, "two_layers", "zero_1.0_1.1", h10_11, 2, HOOK_ZERO);
    ablate_case(ref, "two_layers", "all_zero", NULL, 0, HOOK_ZERO);
    ablate_case(ref, "two_layers", "all_mean", NULL, 0, HOOK_MEAN);
    ablate_case(ref, "four_heads_bf16", "mean_0.2", h02, 1, HOOK_MEAN);
    ablate_case(ref, "four_heads_bf16", "all_zero", NULL, 0, HOOK_ZERO);
    // --ablate all-heads --metric logit-diff and prob
    const metric_words cat_mat = {METRIC_LOGIT_DIFF, " cat", " mat"};
    const metric_words cat = {METRIC_PROB, " cat", NULL};
    const metric_words end_world = {METRIC_LOGIT_DIFF, " end", " world"};
    const metric_words world = {METRIC_PROB, " world", NULL};
    ablate_measured(ref, "two_layers", "all_zero_logit_diff", NULL, 0,
                    HOOK_ZERO, &cat_mat, NULL);
    ablate_measured(ref, "two_layers", "all_mean_prob", NULL, 0, HOOK_MEAN,
                    &cat, NULL);
    ablate_measured(ref, "four_heads_bf16", "all_mean_logit_diff", NULL, 0,
                    HOOK_MEAN, &end_world, NULL);
    ablate_measured(ref, "four_heads_bf16", "all_zero_prob", NULL, 0, HOOK_ZERO,
                    &world, NULL);
    patch_case(ref, "two_layers", "cat_mat", "the cat sat on the mat",
               "the mat sat on the cat", " cat", " mat");
    patch_case(ref, "four_heads_bf16", "end_world", "the end hello world the",
               "the world hello end the", " end", " world");
    scores_case(ref, "two_layers", "text", "the cat sat on the cat sat", 0, 0);
    scores_case(ref, "two_layers", "random_5_3", NULL, 5, 3);
    scores_case(ref, "four_heads_bf16", "text", "the end the end hello the end",
                0, 0);
    scores_case(ref, "four_heads_bf16", "random_12_7", NULL, 12, 7);
    // a Llama-style checkpoint's heads (make_llama_intervention_reference.py):
    // GQA 4 in BF16, untied; Qwen2's biases, tied, in F16
    const head_ref h11[] = {{1, 1}};
    ablate_case(ref, "llama_gqa4_bf16", "zero_0.1", h01, 1, HOOK_ZERO);
    ablate_case(ref, "llama_gqa4_bf16", "mean_1.0_0.1", h10_01, 2, HOOK_MEAN);
    ablate_case(ref, "llama_gqa4_bf16", "all_mean", NULL, 0, HOOK_MEAN);
    ablate_measured(ref, "llama_gqa4_bf16", "all_mean_logit_diff", NULL, 0,
                    HOOK_MEAN, &cat_mat, NULL);
    ablate_measured(ref, "llama_gqa4_bf16", "all_zero_prob", NULL, 0, HOOK_ZERO,
                    &world, NULL);
    ablate_case(ref, "qwen2_bias_f16", "zero_1.1", h11, 1, HOOK_ZERO);
    ablate_case(ref, "qwen2_bias_f16", "all_zero", NULL, 0, HOOK_ZERO);
    patch_case(ref, "llama_gqa4_bf16", "cat_mat", "the cat sat on the mat",
               "the mat sat on the cat", " cat", " mat");
    scores_case(ref, "llama_tied_f32", "text", "the cat sat on the cat sat", 0,
                0);
    scores_case(ref, "llama_tied_f32", "random_6_4", NULL, 6, 4);
    // --ablate-mode mean over --corpus (corpus_tables of
    // make_intervention_reference.py and its Llama-style script): GPT-2
    // with heads 8 wide, a Llama-style head 48 wide (its mean sums columns
    // 0-31 as a cascade, 32-47 one by one), 328 positions in all
    corpus_texts corpus = {0};
    if (!ok(corpus_read(&corpus, ref) == 0, "corpus.csv read"))
        return tap_done();
    ablate_measured(ref, "two_layers", "corpus_1.0_0.1", h10_01, 2, HOOK_MEAN,
                    &by_loss, &corpus);
    ablate_measured(ref, "two_layers", "corpus_all", NULL, 0, HOOK_MEAN,
                    &by_loss, &corpus);
    ablate_measured(ref, "two_layers", "corpus_all_logit_diff", NULL, 0,
                    HOOK_MEAN, &cat_mat, &corpus);
    ablate_measured(ref, "llama_head48_bf16", "corpus_0.1", h01, 1, HOOK_MEAN,
                    &by_loss, &corpus);
    ablate_measured(ref, "llama_head48_bf16", "corpus_all", NULL, 0, HOOK_MEAN,
                    &by_loss, &corpus);
    ablate_measured(ref, "llama_head48_bf16", "corpus_all_prob", NULL, 0,
                    HOOK_MEAN, &cat, &corpus);
    corpus_free(&corpus);
    // the logit lens of either family (make_logit_lens_reference.py)
    lens_case(ref, "two_layers", 2);
    lens_case(ref, "four_heads_bf16", 3);
    lens_case(ref, "llama_gqa4_bf16", 2);
    lens_case(ref, "qwen2_bias_f16", 2);
    return tap_done();
}
