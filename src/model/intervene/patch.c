/* patch.c: activation patching (patch.h). */
#include "model/intervene/patch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/intervene/lm_runs.h"

/* The two texts' ids over one opened model, the answer's and the wrong
 * token's id. */
typedef struct {
    lm_text run;      /* the clean text's */
    int32_t *corrupt; /* run.T ids; owned */
    int32_t answer, wrong;
} patch_texts;

static void texts_close(patch_texts *p)
{
    lm_text_close(&p->run);
    free(p->corrupt);
    *p = (patch_texts){0};
}

int patch_one_token(int32_t *id, const lm_text *run, const char *option,
                    const char *text, mx_error *err)
{
    int32_t *ids = NULL;
    size_t n = 0;
    if (run->lm->encode_word(&ids, &n, run->s, text, strlen(text), err) != 0)
        return err_input(err, _("%s: '%s' has no token"), option, text);
    if (n == 1) {
        *id = ids[0];
        free(ids);
        return 0;
    }
    char pieces[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < n && used + 1 < sizeof pieces; i++) {
        char label[256];
        run->lm->label(label, sizeof label, run->s, ids[i]);
        const int k = snprintf(pieces + used, sizeof pieces - used, "%s%s",
                               i > 0 ? ", " : "", label);
        used += k > 0 ? (size_t)k : 0;
    }
    free(ids);
    return err_input(err, _("%s: '%s' is %zu tokens (%s); give one token"),
                     option, text, n, pieces);
}

int patch_two_tokens(int32_t *answer, int32_t *wrong, const lm_text *run,
                     const run_request *rq, mx_error *err)
{
    if (patch_one_token(answer, run, "--answer", rq->patch_answer, err) != 0 ||
        patch_one_token(wrong, run, "--wrong", rq->patch_wrong, err) != 0)
        return -1;
    if (*answer == *wrong)
        return err_input(err,
                         _("--answer and --wrong: both are the token '%s', "
                           "whose logit difference is 0 in every run; give "
                           "two different tokens"),
                         rq->patch_answer);
    return 0;
}

/* Puts the option whose text err is about before its message ("--clean:
 * the text is not valid UTF-8 ..."); returns -1. */
static int of_option(mx_error *err, const char *option)
{
    const mx_error was = *err;
    err_set(err, was.status, "%s: %s", option, was.msg);
    err->usage = was.usage;
    err->sys_errno = was.sys_errno;
    return -1;
}

static int texts_open(patch_texts *p, const lm_ops *lm, const run_request *rq,
                      mx_error *err)
{
    *p = (patch_texts){0};
    size_t n = 0;
    const char *clean = rq->patch_clean, *corrupt = rq->patch_corrupt;
    // lm_text_open's steps, so that a text's error names its option
    p->run = (lm_text){.lm = lm};
    int rc = lm->open(&p->run.s, &p->run.shape, rq, err);
    if (rc == 0 && lm->encode(&p->run.ids, &p->run.T, p->run.s, clean,
                              strlen(clean), err) != 0)
        rc = of_option(err, "--clean");
    if (rc == 0 && lm->encode(&p->corrupt, &n, p->run.s, corrupt,
                              strlen(corrupt), err) != 0)
        rc = of_option(err, "--corrupt");
    if (rc == 0 && n != p->run.T)
        rc = err_input(
            err,
            ngettext(
                "--patch: --clean is %zu token and --corrupt %zu; they must have the same count",
                "--patch: --clean is %zu tokens and --corrupt %zu; they must have the same count",
                p->run.T),
            p->run.T, n);
    if (rc == 0)
        rc = patch_two_tokens(&p->answer, &p->wrong, &p->run, rq, err);
    if (rc != 0)
        texts_close(p);
    return rc;
}

int patch_check(const lm_ops *lm, const run_request *rq, mx_error *err)
{
    patch_texts p;
    if (texts_open(&p, lm, rq, err) != 0)
        return -1;
    texts_close(&p);
    return 0;
}

/* ---- the runs ------------------------------------------------------------ */

/* The activations a run keeps: every head's z (L·H of them, (T, hd)) and
 * the residual stream before each layer (L of them, (T, D)). */
typedef struct {
    size_t L, H;
    matrix *z;     /* L·H, or NULL: not kept */
    matrix *resid; /* L */
} kept;

static void kept_free(kept *k)
{
    for (size_t i = 0; k->z != NULL && i < k->L * k->H; i++)
        matrix_free(&k->z[i]);
    for (size_t i = 0; k->resid != NULL && i < k->L; i++)
        matrix_free(&k->resid[i]);
    free(k->z);
    free(k->resid);
    *k = (kept){0};
}

/* A copy of m into *to. */
static int keep_copy(matrix *to, const matrix *m, mx_error *err)
{
    matrix_free(to);
    if (matrix_alloc(to, m->rows, m->cols, N_("hidden states"), err) != 0)
        return -1;
    memcpy(to->v, m->v, m->rows * m->cols * sizeof *m->v);
    return 0;
}

/* The residual stream before layer `layer`'s hook point: the inputs
 * (wte + wpe) before layer 0, the output of layer L - 1 before layer L. */
static table_key resid_pre_at(size_t layer)
{
    if (layer == 0)
        return (table_key){VARIANT_INPUT, 0, NO_HEAD, TABLE_INPUTS, false};
    return layer_table_key((int)layer - 1, NO_HEAD, TABLE_HIDDEN);
}

/* The recorder that keeps what kept asks for. */
static int keep_point(void *ctx, const table_key *at, const matrix *m,
                      mx_error *err)
{
    kept *k = ctx;
    if (k->z != NULL && is_layer_table(at) && at->id == TABLE_HEAD_CONTEXT)
        return keep_copy(&k->z[(size_t)at->layer * k->H + (size_t)at->head], m,
                         err);
    for (size_t l = 0; l < k->L; l++) {
        const table_key r = resid_pre_at(l);
        if (r.variant == at->variant && r.layer == at->layer &&
            r.id == at->id && at->head == NO_HEAD)
            return keep_copy(&k->resid[l], m, err);
    }
    return 0;
}

static int kept_alloc(kept *k, size_t L, size_t H, bool heads, mx_error *err)
{
    *k = (kept){.L = L, .H = H};
    k->resid = calloc(L, sizeof *k->resid);
    if (heads)
        k->z = calloc(L * H, sizeof *k->z);
    if (k->resid == NULL || (heads && k->z == NULL)) {
        kept_free(k);
        return err_nomem(err, N_("hidden states"));
    }
    return 0;
}

/* last[answer] - last[wrong] of the last position's logits (V),
 * get_logit_diff's. */
static float logit_diff(const float *last, const patch_texts *p)
{
    return last[p->answer] - last[p->wrong];
}

/* logit_diff of the last row of logits (T, V). */
static float last_diff(const matrix *logits, const patch_texts *p)
{
    return logit_diff(matrix_at(logits, logits->rows - 1, 0), p);
}

/* The normalised metric of ioi_metric: the numerator in float32 (a
 * tensor minus a Python float), the denominator a Python float (the
 * baselines' difference in double) that the tensor is divided by. */
static float metric(float diff, float clean, float corrupt)
{
    const float num = diff - corrupt;
    const double den = (double)clean - (double)corrupt;
    return num / (float)den;
}

/* The score divides by clean - corrupt: the two runs must differ. */
static int baselines_differ(float clean, float corrupt, mx_error *err)
{
    if (clean != corrupt)
        return 0;
    return err_input(err,
                     _("--patch: the clean and the corrupted text give the "
                       "same logit difference (answer - wrong = %.9g), so "
                       "the score, divided by their difference, cannot be "
                       "normalised"),
                     (double)clean);
}

/* The corrupted text with the one hook k, its metric into *out. */
static int patched(float *out, patch_texts *p, const replace_hook *k,
                   float clean, float corrupt, mx_error *err)
{
    matrix logits = {0};
    if (lm_run_ids(&logits, &p->run, p->corrupt, p->run.T, k, 1, NULL, NULL,
                   err) != 0)
        return -1;
    *out = metric(last_diff(&logits, p), clean, corrupt);
    matrix_free(&logits);
    return 0;
}

/* patch_baselines (2 x 1): what is compared, the rows the two texts
 * ("clean: TEXT", "corrupted: TEXT"), the column the logit difference
 * ("logit[ANSWER] - logit[WRONG]", the tokens as the tables label them),
 * the values the clean and the corrupted run's: the score's 1 and 0. */
static int put_baselines(trace *tr, const patch_texts *p, const run_request *rq,
                         float clean, float corrupt, mx_error *err)
{
    char answer[256], wrong[256];
    p->run.lm->label(answer, sizeof answer, p->run.s, p->answer);
    p->run.lm->label(wrong, sizeof wrong, p->run.s, p->wrong);
    const size_t n_clean = strlen(rq->patch_clean) + 8,
                 n_corrupt = strlen(rq->patch_corrupt) + 12,
                 n_col = strlen(answer) + strlen(wrong) + 20;
    char *rows[2] = {malloc(n_clean), malloc(n_corrupt)}, *col = malloc(n_col);
    const labels *rl = NULL, *cl = NULL;
    if (rows[0] != NULL && rows[1] != NULL && col != NULL) {
        snprintf(rows[0], n_clean, "clean: %s", rq->patch_clean);
        snprintf(rows[1], n_corrupt, "corrupted: %s", rq->patch_corrupt);
        snprintf(col, n_col, "logit[%s] - logit[%s]", answer, wrong);
        rl = trace_new_word_labels(tr, "", (const char *const *)rows, 2, err);
        if (rl != NULL)
            cl = trace_new_word_labels(tr, "", (const char *const *)&col, 1,
                                       err);
    } else {
        err_nomem(err, N_("labels"));
    }
    free(rows[0]);
    free(rows[1]);
    free(col);
    const table_key key = {VARIANT_MODEL, 0, NO_HEAD, TABLE_PATCH_BASELINES,
                           false};
    table *t = cl != NULL ? trace_new(tr, &key, rl, cl, err) : NULL;
    if (t == NULL)
        return -1;
    t->values.v[0] = clean;
    t->values.v[1] = corrupt;
    trace_release(tr, t);
    return trace_flush(tr, err);
}

/* What the patched runs share: the texts, the clean (ck) and the
 * corrupted run's (kk) activations, the baselines, and the count of the
 * runs done of all L·H + L·T, told to the run's watch. */
typedef struct {
    patch_texts *p;
    const kept *ck, *kk;
    float cb, kb;
    const passes_watch *watch;
    size_t done, total;
} patch_runs;

/* The hook that patches head h of layer l: the clean run's z in the
 * corrupted run. */
static replace_hook head_hook(const patch_runs *r, size_t l, size_t h)
{
    return (replace_hook){layer_table_key((int)l, (int)h, TABLE_HEAD_CONTEXT),
                          HOOK_SET, &r->ck->z[l * r->ck->H + h]};
}

/* The hook that patches item i of layer l (head i, or position i of the
 * residual stream before l, value its room): the clean run's activation
 * in the corrupted run. */
static int patch_hook(replace_hook *k, matrix *value, const patch_runs *r,
                      bool heads, size_t l, size_t i, mx_error *err)
{
    if (heads) {
        *k = head_hook(r, l, i);
        return 0;
    }
    // the corrupted stream with position i's row from the clean one
    if (keep_copy(value, &r->kk->resid[l], err) != 0)
        return -1;
    memcpy(matrix_at(value, i, 0), matrix_at(&r->ck->resid[l], i, 0),
           value->cols * sizeof *value->v);
    *k = (replace_hook){resid_pre_at(l), HOOK_SET, value};
    return 0;
}

/* map (L x n): item i of layer l patched in a whole forward pass each,
 * for a family without lm_ops.layers. */
static int whole_passes(matrix *map, patch_runs *r, bool heads, mx_error *err)
{
    matrix value = {0};
    int rc = 0;
    for (size_t l = 0; rc == 0 && l < map->rows; l++)
        for (size_t i = 0; rc == 0 && i < map->cols; i++) {
            replace_hook k;
            rc = patch_hook(&k, &value, r, heads, l, i, err);
            if (rc == 0)
                rc = patched(matrix_at(map, l, i), r->p, &k, r->cb, r->kb, err);
            if (rc == 0)
                passes_tell(r->watch, "--patch", ++r->done, r->total);
        }
    matrix_free(&value);
    return rc;
}

/* The rooms of the shared passes: `most` at once. */
typedef struct {
    size_t most;
    matrix resid;         /* (most * T, D) */
    matrix last;          /* (most, V) */
    replace_hook *set;    /* most */
    forward_hooks *hooks; /* most */
} patch_batch;

static void batch_free(patch_batch *b)
{
    matrix_free(&b->resid);
    matrix_free(&b->last);
    free(b->set);
    free(b->hooks);
    *b = (patch_batch){0};
}

static int batch_alloc(patch_batch *b, size_t most, size_t T, size_t D,
                       size_t V, mx_error *err)
{
    *b = (patch_batch){.most = most};
    b->set = calloc(most, sizeof *b->set);
    b->hooks = calloc(most, sizeof *b->hooks);
    if (b->set == NULL || b->hooks == NULL) {
        batch_free(b);
        return err_nomem(err, N_("hidden states"));
    }
    if (matrix_alloc(&b->resid, most * T, D, N_("hidden states"), err) != 0 ||
        matrix_alloc(&b->last, most, V, N_("logits"), err) != 0) {
        batch_free(b);
        return -1;
    }
    return 0;
}

/* Items i0 .. i0 + n - 1 of layer l, each patched in its own pass from
 * the corrupted stream before l (the layers below are the corrupted
 * run's), only the last position's logits computed: into map's row l. */
static int shared_group(matrix *map, patch_runs *r, patch_batch *b, bool heads,
                        size_t l, size_t i0, size_t n, mx_error *err)
{
    const matrix *before = &r->kk->resid[l];
    const size_t T = before->rows, D = before->cols, V = b->last.cols;
    matrix resid = {n * T, D, b->resid.v}, last = {n, V, b->last.v};
    for (size_t i = 0; i < n; i++) {
        float *copy = resid.v + i * T * D;
        memcpy(copy, before->v, T * D * sizeof *copy);
        if (heads) {
            b->set[i] = head_hook(r, l, i0 + i);
            b->hooks[i] =
                (forward_hooks){.replace = &b->set[i], .n_replace = 1};
        } else {
            memcpy(copy + (i0 + i) * D, matrix_at(&r->ck->resid[l], i0 + i, 0),
                   D * sizeof *copy);
        }
    }
    if (lm_last_logits_from(&last, &r->p->run, &resid, n, l,
                            heads ? b->hooks : NULL, err) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        *matrix_at(map, l, i0 + i) =
            metric(logit_diff(last.v + i * V, r->p), r->cb, r->kb);
    r->done += n;
    passes_tell(r->watch, "--patch", r->done, r->total);
    return 0;
}

/* map (L x n) from the corrupted stream before each layer (lm_ops.layers),
 * LM_ROWS_AT_ONCE rows of passes at a time. */
static int shared_passes(matrix *map, patch_runs *r, bool heads, mx_error *err)
{
    const lm_text *run = &r->p->run;
    const size_t T = run->T, n = map->cols;
    size_t most = T < LM_ROWS_AT_ONCE ? LM_ROWS_AT_ONCE / T : 1;
    if (most > n)
        most = n;
    patch_batch b;
    int rc =
        batch_alloc(&b, most, T, r->kk->resid[0].cols, run->shape.vocab, err);
    for (size_t l = 0; rc == 0 && l < map->rows; l++)
        for (size_t i0 = 0; rc == 0 && i0 < n; i0 += most)
            rc = shared_group(map, r, &b, heads, l, i0,
                              n - i0 < most ? n - i0 : most, err);
    batch_free(&b);
    return rc;
}

/* patch_heads (L x H) and patch_resid (L x T). */
static int patch_maps(matrix *heads, matrix *resid, patch_runs *r,
                      mx_error *err)
{
    const bool shared = r->p->run.lm->layers != NULL;
    int rc = shared ? shared_passes(heads, r, true, err)
                    : whole_passes(heads, r, true, err);
    if (rc == 0)
        rc = shared ? shared_passes(resid, r, false, err)
                    : whole_passes(resid, r, false, err);
    return rc;
}

int patch_record(trace *tr, const lm_ops *lm, const run_request *rq,
                 mx_error *err)
{
    patch_texts p;
    if (texts_open(&p, lm, rq, err) != 0)
        return -1;
    const size_t L = p.run.shape.layers, H = p.run.shape.heads, T = p.run.T;
    kept ck = {0}, kk = {0};
    matrix logits = {0}, heads = {0}, resid = {0};
    char **cols = NULL;
    float cb = 0, kb = 0;
    int rc = kept_alloc(&ck, L, H, true, err);
    if (rc == 0)
        rc = kept_alloc(&kk, L, H, false, err);
    if (rc == 0)
        rc = lm_run_ids(&logits, &p.run, p.run.ids, T, NULL, 0, keep_point, &ck,
                        err);
    if (rc == 0) {
        cb = last_diff(&logits, &p);
        matrix_free(&logits);
        rc = lm_run_ids(&logits, &p.run, p.corrupt, T, NULL, 0, keep_point, &kk,
                        err);
    }
    if (rc == 0) {
        kb = last_diff(&logits, &p);
        rc = baselines_differ(cb, kb, err);
    }
    if (rc == 0)
        rc = matrix_alloc(&heads, L, H, N_("logits"), err);
    if (rc == 0)
        rc = matrix_alloc(&resid, L, T, N_("logits"), err);
    patch_runs runs = {&p, &ck, &kk, cb, kb, rq->passes, 0, L * (H + T)};
    if (rc == 0)
        rc = patch_maps(&heads, &resid, &runs, err);
    if (rc == 0)
        rc = put_baselines(tr, &p, rq, cb, kb, err);
    if (rc == 0)
        rc = lm_put_map(tr, TABLE_PATCH_HEADS, &heads, NULL, err);
    if (rc == 0 && (cols = lm_labels(&p.run, p.run.ids, T, err)) == NULL)
        rc = -1;
    if (rc == 0)
        rc = lm_put_map(tr, TABLE_PATCH_RESID, &resid,
                        (const char *const *)cols, err);
    lm_labels_free(cols, T);
    matrix_free(&logits);
    matrix_free(&heads);
    matrix_free(&resid);
    kept_free(&ck);
    kept_free(&kk);
    texts_close(&p);
    return rc;
}
