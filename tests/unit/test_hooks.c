/* test_hooks.c: hook points (model/hooks.h) replacing one head's context
 * (its z), checked downstream against PyTorch with a forward pre-hook on
 * the output projection (tests/reference/make_hook_reference.py; argv[1]:
 * tests/reference). Zero, set and mean, on the lessons' fused module and
 * on GPT-2's checkpoints tiny and two_layers; every compared table bit for
 * bit, and the plain runs too. And training's points: its logits zeroed
 * before the loss is taken (the loss is then ln V), and the recorder
 * handed the logits and the loss the pass returns. And equal texts
 * stacked through GPT-2's layers, each hooked its own way, equal to each
 * text alone. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/safetensors.h"
#include "model/lesson/attention.h"
#include "model/lesson/train.h"
#include "model/lesson/variants.h"
#include "model/gpt2/gpt2.h"
#include "model/hooks.h"
#include "numerics/rng.h"
#include "tap.h"

static const hook_action ACTIONS[] = {HOOK_ZERO, HOOK_SET, HOOK_MEAN};
static const char *const ACTION_NAMES[] = {"zero", "set", "mean"};

/* The reference's table name as a matrix (owned by the caller), or an
 * empty one. */
static matrix ref_table(const safetensors *ref, const char *name)
{
    matrix m = {0};
    const st_tensor *t = safetensors_find(ref, name);
    const float *v;
    float *owned;
    mx_error err;
    if (t == NULL || t->ndim != 2 ||
        safetensors_floats(&v, &owned, ref, t, &err) != 0 ||
        matrix_alloc(&m, t->shape[0], t->shape[1], "test", &err) != 0)
        return (matrix){0};
    memcpy(m.v, v, m.rows * m.cols * sizeof *v);
    free(owned);
    return m;
}

/* Whether m equals the reference's table name bit for bit. */
static bool same_as(const matrix *m, const safetensors *ref, const char *name)
{
    matrix want = ref_table(ref, name);
    const bool same =
        want.v != NULL && m != NULL && want.rows == m->rows &&
        want.cols == m->cols &&
        memcmp(want.v, m->v, m->rows * m->cols * sizeof *m->v) == 0;
    matrix_free(&want);
    return same;
}

static bool differ(const matrix *a, const matrix *b)
{
    return a->rows != b->rows || a->cols != b->cols ||
           memcmp(a->v, b->v, a->rows * a->cols * sizeof *a->v) != 0;
}

static const table *find(const trace *tr, variant_id v, table_id id)
{
    const table_key key = {v, 0, NO_HEAD, id, false};
    return trace_find(tr, &key);
}

/* ---- the lessons' fused module -------------------------------------- */

/* MultiHeadAttention(4, 6, 5, 3) over x (5, 4) after manual_seed(42),
 * head `head`'s context replaced as `hk` says (or not, NULL): out and
 * concat_context copied into *out and *concat. */
static int run_fused(matrix *out, matrix *concat, const forward_hooks *hk)
{
    const char *const words[] = {"O", "gato", "sobe", "no", "tapete"};
    const attention_config cfg = {.d_model = 4,
                                  .d_out = 6,
                                  .heads = 3,
                                  .causal = true,
                                  .scale = true,
                                  .hooks = hk};
    torch_rng g;
    mx_error err;
    rng_seed(&g, 42);
    matrix x = {0};
    fused_params p = {0};
    trace tr;
    trace_init(&tr);
    int rc = -1;
    if (matrix_alloc(&x, 5, 4, "test", &err) == 0) {
        rng_normal_fill(x.v, 20, 0, 1, &g);
        rc = fused_init(&p, &cfg, &g, &err);
    }
    const sequence_labels lab = {trace_word_labels(&tr, "", words, 5, &err),
                                 trace_word_labels(&tr, "Q:", words, 5, &err),
                                 trace_word_labels(&tr, "K:", words, 5, &err),
                                 trace_word_labels(&tr, "V:", words, 5, &err)};
    const attention_input in = {&x, &x};
    if (rc == 0)
        rc = fused_forward(&tr, &p, &cfg, &in, &lab, &err);
    const table *o = find(&tr, VARIANT_ID_FUSED, TABLE_OUT);
    const table *c = find(&tr, VARIANT_ID_FUSED, TABLE_CONCAT_CONTEXT);
    if (rc == 0 && o != NULL && c != NULL &&
        matrix_alloc(out, 5, 6, "test", &err) == 0 &&
        matrix_alloc(concat, 5, 6, "test", &err) == 0) {
        memcpy(out->v, o->values.v, 30 * sizeof(float));
        memcpy(concat->v, c->values.v, 30 * sizeof(float));
    } else {
        rc = -1;
    }
    trace_free(&tr);
    fused_free(&p);
    matrix_free(&x);
    return rc;
}

static void lesson_fused(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/hooks/lesson_fused.safetensors", dir);
    safetensors ref;
    mx_error err;
    if (!ok(safetensors_open(&ref, path, &err) == 0, "%s opens", path))
        return;
    matrix plain = {0}, plain_concat = {0};
    ok(run_fused(&plain, &plain_concat, NULL) == 0 &&
           same_as(&plain, &ref, "out"),
       "fused module without hooks: out equals PyTorch's");
    matrix value = ref_table(&ref, "value");
    for (size_t a = 0; a < 3; a++) {
        const replace_hook z = {
            .at = {VARIANT_ID_FUSED, 0, 1, TABLE_HEAD_CONTEXT, false},
            .action = ACTIONS[a],
            .value = &value};
        const forward_hooks hk = {.replace = &z, .n_replace = 1};
        matrix out = {0}, concat = {0};
        char name[32], cname[32];
        snprintf(name, sizeof name, "%s.out", ACTION_NAMES[a]);
        snprintf(cname, sizeof cname, "%s.concat", ACTION_NAMES[a]);
        const int rc = run_fused(&out, &concat, &hk);
        ok(rc == 0 && same_as(&concat, &ref, cname),
           "fused module, head 1's z %s: concat_context equals PyTorch's",
           ACTION_NAMES[a]);
        ok(rc == 0 && same_as(&out, &ref, name) && differ(&out, &plain),
           "fused module, head 1's z %s: out differs from the plain run and "
           "equals PyTorch's with a pre-hook on out_proj",
           ACTION_NAMES[a]);
        matrix_free(&out);
        matrix_free(&concat);
    }
    matrix_free(&value);
    matrix_free(&plain);
    matrix_free(&plain_concat);
    safetensors_close(&ref);
}

/* ---- GPT-2 ------------------------------------------------------------ */

/* What a GPT-2 run keeps of its hook points: layer `layer`'s
 * concat_context and the logits. */
typedef struct {
    int layer;
    matrix concat, logits;
} kept;

static int keep(void *ctx, const table_key *at, const matrix *m, mx_error *err)
{
    kept *k = ctx;
    matrix *to = at->id == TABLE_LOGITS ? &k->logits
                 : at->id == TABLE_CONCAT_CONTEXT && at->layer == k->layer
                     ? &k->concat
                     : NULL;
    if (to == NULL)
        return 0;
    if (matrix_alloc(to, m->rows, m->cols, "test", err) != 0)
        return -1;
    memcpy(to->v, m->v, m->rows * m->cols * sizeof *m->v);
    return 0;
}

/* The checkpoint tests/reference/gpt2/NAME (dir: tests/reference) into
 * m, and its text's ids (ids.txt, at most 256) into ids and *T. */
static int gpt2_text_open(gpt2_model *m, int32_t ids[256], size_t *T,
                          const char *dir, const char *name, mx_error *err)
{
    char path[512], ids_path[600];
    snprintf(path, sizeof path, "%s/gpt2/%s", dir, name);
    snprintf(ids_path, sizeof ids_path, "%s/ids.txt", path);
    if (gpt2_open(m, path, err) != 0)
        return -1;
    FILE *f = fopen(ids_path, "r");
    *T = 0;
    long v;
    while (f != NULL && *T < 256 && fscanf(f, "%ld", &v) == 1)
        ids[(*T)++] = (int32_t)v;
    if (f != NULL)
        fclose(f);
    return 0;
}

static void gpt2_case(const char *dir, const char *name, int layer, int head)
{
    char ref_path[512];
    snprintf(ref_path, sizeof ref_path, "%s/hooks/gpt2_%s.safetensors", dir,
             name);
    gpt2_model m;
    safetensors ref;
    mx_error err;
    int32_t ids[256];
    size_t T;
    if (!ok(gpt2_text_open(&m, ids, &T, dir, name, &err) == 0 &&
                safetensors_open(&ref, ref_path, &err) == 0,
            "%s: the checkpoint and %s open", name, ref_path))
        return;

    kept plain = {.layer = layer};
    forward_hooks hk = {.record = keep, .ctx = &plain};
    gpt2_run run = {&hk, true, NULL, NULL};
    matrix out = {0};
    ok(gpt2_forward(&out, &m, ids, T, &run, &err) == 0 &&
           same_as(&out, &ref, "out") && same_as(&plain.logits, &ref, "logits"),
       "%s without hooks: out and logits equal transformers' GPT2Model's",
       name);
    matrix value = ref_table(&ref, "value");
    for (size_t a = 0; a < 3; a++) {
        const replace_hook z = {
            .at = layer_table_key(layer, head, TABLE_HEAD_CONTEXT),
            .action = ACTIONS[a],
            .value = &value};
        kept got = {.layer = layer};
        hk = (forward_hooks){
            .replace = &z, .n_replace = 1, .record = keep, .ctx = &got};
        matrix hooked = {0};
        char n_concat[32], n_out[32], n_logits[32];
        snprintf(n_concat, sizeof n_concat, "%s.concat", ACTION_NAMES[a]);
        snprintf(n_out, sizeof n_out, "%s.out", ACTION_NAMES[a]);
        snprintf(n_logits, sizeof n_logits, "%s.logits", ACTION_NAMES[a]);
        const int rc = gpt2_forward(&hooked, &m, ids, T, &run, &err);
        ok(rc == 0 && same_as(&got.concat, &ref, n_concat),
           "%s, h.%d head %d's z %s: concat_context equals PyTorch's", name,
           layer, head, ACTION_NAMES[a]);
        ok(rc == 0 && differ(&hooked, &out) && same_as(&hooked, &ref, n_out) &&
               same_as(&got.logits, &ref, n_logits),
           "%s, h.%d head %d's z %s: out and logits differ from the plain "
           "run and equal PyTorch's with a pre-hook on h.%d.attn.c_proj",
           name, layer, head, ACTION_NAMES[a], layer);
        matrix_free(&hooked);
        matrix_free(&got.concat);
        matrix_free(&got.logits);
    }

    // a set of another shape is refused, with the table's name
    matrix wrong = {0};
    const replace_hook bad = {
        .at = layer_table_key(layer, head, TABLE_HEAD_CONTEXT),
        .action = HOOK_SET,
        .value = &wrong};
    hk = (forward_hooks){.replace = &bad, .n_replace = 1};
    matrix none = {0};
    ok(gpt2_forward(&none, &m, ids, T, &run, &err) == -1 &&
           strstr(err.msg, "head_context") != NULL,
       "%s: setting a head's z to a matrix of another shape fails: %s", name,
       err.msg);
    matrix_free(&none);

    matrix_free(&value);
    matrix_free(&out);
    matrix_free(&plain.concat);
    matrix_free(&plain.logits);
    safetensors_close(&ref);
    gpt2_close(&m);
}

/* ---- equal texts stacked ------------------------------------------ */

/* The stream before layer 0 (inputs), kept by the recorder. */
static int keep_inputs(void *ctx, const table_key *at, const matrix *m,
                       mx_error *err)
{
    matrix *to = ctx;
    if (at->variant != VARIANT_INPUT || at->id != TABLE_INPUTS)
        return 0;
    if (matrix_alloc(to, m->rows, m->cols, "test", err) != 0)
        return -1;
    memcpy(to->v, m->v, m->rows * m->cols * sizeof *m->v);
    return 0;
}

/* gpt2_layers over STACKED copies of one stream (equal texts: the
 * attention sublayer computes the first layer's heads once) equals each
 * copy through the layers alone: no hook, head's z zeroed or averaged
 * (the copy's head_context replaced), its queries zeroed (the head
 * computed again), the z of two heads. */
enum { STACKED = 5 };

static void gpt2_stacked(const char *dir, const char *name, int layer, int head)
{
    gpt2_model m;
    mx_error err;
    int32_t ids[256];
    size_t T;
    if (!ok(gpt2_text_open(&m, ids, &T, dir, name, &err) == 0,
            "%s: the checkpoint opens", name))
        return;
    matrix before = {0}, out = {0};
    forward_hooks rec = {.record = keep_inputs, .ctx = &before};
    const gpt2_run run = {&rec, false, NULL, NULL};
    const int rc = gpt2_forward(&out, &m, ids, T, &run, &err);
    matrix_free(&out);
    if (!ok(rc == 0 && before.v != NULL, "%s: the stream before layer 0",
            name)) {
        gpt2_close(&m);
        return;
    }
    const size_t D = before.cols, L = m.cfg.n_layer, size = T * D;
    const replace_hook z = {{VARIANT_ID_BLOCK, layer, head, TABLE_HEAD_CONTEXT,
                             false},
                            HOOK_ZERO,
                            NULL},
                       mean = {z.at, HOOK_MEAN, NULL},
                       q = {{VARIANT_ID_BLOCK, layer, head, TABLE_QUERIES,
                             false},
                            HOOK_ZERO,
                            NULL},
                       two[2] = {z,
                                 {{VARIANT_ID_BLOCK, layer,
                                   (head + 1) % (int)m.cfg.n_head,
                                   TABLE_HEAD_CONTEXT, false},
                                  HOOK_ZERO,
                                  NULL}};
    const forward_hooks hooks[STACKED] = {{0},
                                          {.replace = &z, .n_replace = 1},
                                          {.replace = &mean, .n_replace = 1},
                                          {.replace = &q, .n_replace = 1},
                                          {.replace = two, .n_replace = 2}};
    matrix all = {0}, one = {0};
    bool same = matrix_alloc(&all, STACKED * T, D, "test", &err) == 0 &&
                matrix_alloc(&one, T, D, "test", &err) == 0;
    for (size_t i = 0; same && i < STACKED; i++)
        memcpy(all.v + i * size, before.v, size * sizeof *all.v);
    same = same && gpt2_layers(&all, &m, STACKED, 0, L, hooks, NULL, &err) == 0;
    bool changed = true;
    for (size_t i = 0; same && i < STACKED; i++) {
        memcpy(one.v, before.v, size * sizeof *one.v);
        same = gpt2_layers(&one, &m, 1, 0, L, &hooks[i], NULL, &err) == 0 &&
               memcmp(one.v, all.v + i * size, size * sizeof *one.v) == 0;
        if (i > 0)
            changed = changed &&
                      memcmp(all.v, all.v + i * size, size * sizeof *all.v);
    }
    ok(same && changed,
       "%s: %d equal texts stacked through the layers, h.%d head %d "
       "hooked four ways, each equal to its text alone",
       name, STACKED, layer, head);
    matrix_free(&all);
    matrix_free(&one);
    matrix_free(&before);
    gpt2_close(&m);
}

/* ---- training's logits and loss ------------------------------------- */

/* What the recorder saw: the ids of the points in order, and the last
 * loss. */
typedef struct {
    table_id ids[8];
    size_t n, logits_rows, logits_cols;
    float loss;
} seen_points;

static int see(void *ctx, const table_key *at, const matrix *m, mx_error *err)
{
    (void)err;
    seen_points *s = ctx;
    if (s->n < 8)
        s->ids[s->n++] = at->id;
    if (at->id == TABLE_LOGITS) {
        s->logits_rows = m->rows;
        s->logits_cols = m->cols;
    }
    if (at->id == TABLE_LOSS && m->rows == 1 && m->cols == 1)
        s->loss = m->v[0];
    return 0;
}

/* One training pass (no backward) of the fused module, MultiHeadAttention
 * (4, 6, 3 heads) over 5 tokens of a vocabulary of V = 7, drawn after
 * manual_seed(7), through hk: its loss into *loss. */
static int train_fused(float *loss, const forward_hooks *hk)
{
    enum { V = 7, T = 5, D = 4, O = 6 };
    const attention_config cfg = {.d_model = D,
                                  .d_out = O,
                                  .heads = 3,
                                  .causal = true,
                                  .scale = true,
                                  .hooks = hk};
    const model_dims dims = {.d_model = D, .d_out = O, .heads = 3};
    const variant_row *row = variant_row_of(VARIANT_ID_FUSED);
    torch_rng g;
    mx_error err;
    rng_seed(&g, 7);
    matrix emb = {0}, head = {0};
    void *module = variant_module_new(VARIANT_ID_FUSED, &err);
    int rc = -1;
    if (module != NULL && matrix_alloc(&emb, V, D, "test", &err) == 0 &&
        matrix_alloc(&head, V, O, "test", &err) == 0) {
        rng_normal_fill(emb.v, V * D, 0, 1, &g);
        rng_normal_fill(head.v, V * O, 0, 1, &g);
        rc = row->init(module, &cfg, &dims, &g, &err);
    }
    const size_t ids[T] = {0, 3, 1, 6, 3};
    const train_model m = {.embedding = &emb,
                           .module = module,
                           .lm_head = &head,
                           .qkv_order = QKV_ORDER_KQV};
    const train_sentence sentence = {ids, T};
    if (rc == 0)
        rc = train_pass(loss, NULL, NULL, &m, VARIANT_ID_FUSED, &dims, &cfg,
                        &sentence, NULL, &err);
    variant_module_free(VARIANT_ID_FUSED, module);
    matrix_free(&emb);
    matrix_free(&head);
    return rc;
}

static void training_points(void)
{
    float plain = NAN, zeroed = NAN;
    const replace_hook z = {
        .at = {VARIANT_ID_FUSED, 0, NO_HEAD, TABLE_LOGITS, false},
        .action = HOOK_ZERO};
    const forward_hooks zero = {.replace = &z, .n_replace = 1};
    const int rc_plain = train_fused(&plain, NULL);
    const int rc_zero = train_fused(&zeroed, &zero);
    // every word equally likely: -log_softmax = ln V on every row
    ok(rc_plain == 0 && rc_zero == 0 && fabs(zeroed - log(7.0)) < 1e-6 &&
           fabs(plain - log(7.0)) > 1e-3,
       "training, logits zeroed before the loss: loss %.9g is ln 7 (plain "
       "%.9g)",
       (double)zeroed, (double)plain);

    seen_points seen = {0};
    float recorded = NAN;
    const forward_hooks rec = {.record = see, .ctx = &seen};
    const int rc_rec = train_fused(&recorded, &rec);
    ok(rc_rec == 0 && memcmp(&recorded, &plain, sizeof plain) == 0 &&
           seen.n == 2 && seen.ids[0] == TABLE_LOGITS &&
           seen.ids[1] == TABLE_LOSS && seen.logits_rows == 5 &&
           seen.logits_cols == 7 &&
           memcmp(&seen.loss, &plain, sizeof plain) == 0,
       "training's recorder: the logits (5, 7), then the loss the pass "
       "returns, unchanged");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        printf("1..0 # SKIP no reference folder\n");
        return 0;
    }
    lesson_fused(argv[1]);
    training_points();
    gpt2_case(argv[1], "tiny", 0, 0);
    gpt2_case(argv[1], "two_layers", 0, 1);
    gpt2_stacked(argv[1], "two_layers", 0, 1);
    gpt2_stacked(argv[1], "four_heads_bf16", 1, 2);
    return tap_done();
}
