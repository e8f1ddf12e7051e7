/* test_bert_head_scores.c: --head-scores on BERT checkpoints
 * (tests/reference/bert/: BertForMaskedLM's file, BertModel's, one with
 * the pooler, one in F16), over a text and over --repeat-random's words,
 * through pipeline_run as the command line runs it, against
 * transformers' BertModel with output_attentions and TransformerLens's
 * head detector (tests/reference/make_bert_scores_reference.py; argv[1]:
 * tests/reference): each head_scores bit for bit, and the ids the scores
 * were taken over ([CLS] ... [SEP]; --repeat-random's words drawn from
 * the vocabulary but its special tokens) equal to the reference's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/safetensors.h"
#include "model/bert/bert_lm.h"
#include "model/intervene/lm_runs.h"
#include "model/pipeline.h"
#include "model/trace.h"
#include "tap.h"

static const table *model_table(const trace *tr, table_id id)
{
    const table_key key = {VARIANT_MODEL, 0, NO_HEAD, id, false};
    return trace_find(tr, &key);
}

/* The reference's tensor name as floats (rows x cols), or NULL; *owned
 * to free. */
static const float *ref_floats(float **owned, size_t *rows, size_t *cols,
                               const safetensors *ref, const char *name)
{
    const st_tensor *want = safetensors_find(ref, name);
    const float *v;
    mx_error err;
    *owned = NULL;
    if (want == NULL || want->ndim != 2 ||
        safetensors_floats(&v, owned, ref, want, &err) != 0)
        return NULL;
    *rows = want->shape[0];
    *cols = want->shape[1];
    return v;
}

/* Whether t holds the reference's table name bit for bit. */
static bool same_as(const table *t, const safetensors *ref, const char *name)
{
    float *owned;
    size_t rows, cols;
    const float *v = ref_floats(&owned, &rows, &cols, ref, name);
    bool same = v != NULL && t != NULL && rows == t->values.rows &&
                cols == t->values.cols &&
                memcmp(v, t->values.v, rows * cols * sizeof *v) == 0;
    if (!same && v != NULL && t != NULL && rows == t->values.rows &&
        cols == t->values.cols)
        for (size_t i = 0; i < rows * cols; i++)
            if (v[i] != t->values.v[i]) {
                diag("%s: first difference at %zu: %.9g, PyTorch %.9g", name, i,
                     (double)t->values.v[i], (double)v[i]);
                break;
            }
    free(owned);
    return same;
}

/* Whether the ids (T of them) are the reference's name (T x 1). */
static bool same_ids(const int32_t *ids, size_t T, const safetensors *ref,
                     const char *name)
{
    float *owned;
    size_t rows, cols;
    const float *v = ref_floats(&owned, &rows, &cols, ref, name);
    bool same = v != NULL && rows == T && cols == 1;
    for (size_t t = 0; same && t < T; t++)
        same = (float)ids[t] == v[t];
    if (!same && v != NULL)
        diag("%s: %zu ids, the reference %zu", name, T, rows);
    free(owned);
    return same;
}

/* --head-scores on the BERT checkpoint ckpt over text, or with
 * --repeat-random n --seed seed when text is NULL. */
static void scores_case(const char *refdir, const char *ckpt, const char *name,
                        const char *text, size_t n, uint64_t seed)
{
    char dir[256], path[600], key[96];
    snprintf(dir, sizeof dir, "%s/bert/%s", refdir, ckpt);
    snprintf(path, sizeof path, "%s/interventions/bert_scores.safetensors",
             refdir);
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
    snprintf(key, sizeof key, "%s.%s.scores", ckpt, name);
    ok(same_as(model_table(&tr, TABLE_HEAD_SCORES), &ref, key),
       "%s %s: head_scores", ckpt, name);
    trace_free(&tr);
    // the ids the scores were taken over
    lm_text run;
    snprintf(key, sizeof key, "%s.%s.ids", ckpt, name);
    const bool opened = lm_text_of(&run, &bert_scores_lm, &rq, &in, &err) == 0;
    if (!ok(opened && same_ids(run.ids, run.T, &ref, key), "%s %s: the ids",
            ckpt, name) &&
        !opened)
        diag("%s", err.msg);
    if (opened)
        lm_text_close(&run);
    safetensors_close(&ref);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s tests/reference\n", argv[0]);
        return 2;
    }
    const char *ref = argv[1];
    scores_case(ref, "mlm", "text", "the cat sat on the cat sat on the mat .",
                0, 0);
    scores_case(ref, "mlm", "random_6_3", NULL, 6, 3);
    // 2 * 11 words and [CLS] and [SEP]: all 24 positions
    scores_case(ref, "base", "random_11_5", NULL, 11, 5);
    scores_case(ref, "mlm_pooler", "text",
                "the dog ran to the park and the dog ran to the tree", 0, 0);
    scores_case(ref, "mlm_f16", "random_4_0", NULL, 4, 0);
    return tap_done();
}
