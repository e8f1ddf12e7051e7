/* html_training.c: a trained run's part of the --html page's data
 * (docs/html.md): for a variant trained with --train, its heads' weights
 * at the steps the training kept (attn_weights_steps, at most
 * TRAIN_CHECKPOINTS of them however long the training, model/lesson/trained.h),
 * its loss at every step (the last point, with --corpus, the shown
 * sentence's) and each head's induction score at the steps
 * head_scores_steps took (model/lesson/score_steps.h), for the page's
 * slider over the steps. */
#include <stdio.h>

#include "base/i18n.h"
#include "html/html_parts.h"
#include "model/lesson/score_steps.h"
#include "model/lesson/trained.h"

/* The training view's words (training.js shows each through tr()). */
static const char *const training_words[] = {
    N_("Training"),
    N_("before training"),
    /* TRANSLATORS: the --html training view's slider; {0} and {1} are
     * numbers of steps */
    N_("after {0} of {1} training steps"),
    N_("loss at each training step"),
    N_("training step"),
    N_("Move the slider to see the heads change as the model learns; the "
       "dot marks the step on the loss curve."),
    N_("each head's induction score"),
    /* TRANSLATORS: the --html training view's loss curve, beside the
     * point after its last step when the steps trained on a corpus: the
     * loss of the sentence the page shows, which is no step's */
    N_("loss on the shown sentence"),
    /* TRANSLATORS: the --html training view, under the buttons that
     * switch a head off (--ablate); ablation_effect and ablation_loss are
     * table names, kept as they are */
    N_("A head switched off changes the run of the trained model (its "
       "ablation_effect and ablation_loss in the steps), not its "
       "training."),
};

bool html_has_training(const trace *tr)
{
    for (size_t i = 0; i < trace_count(tr); i++)
        if (trace_at(tr, i)->id == TABLE_ATTN_WEIGHTS_STEPS)
            return true;
    return false;
}

void html_write_training_words(FILE *out, const trace *tr)
{
    for (size_t i = 0; html_has_training(tr) &&
                       i < sizeof training_words / sizeof training_words[0];
         i++) {
        fputs(",\n", out);
        json_string(out, training_words[i]);
        fputc(':', out);
        json_string(out, _(training_words[i]));
    }
}

/* The step of row r of attn_weights_steps ("step<n>/head<h>/Q:<word>"). */
static size_t row_step(const table *c, size_t r)
{
    size_t step = 0;
    return sscanf(c->rows->s[r], "step%zu/", &step) == 1 ? step : 0;
}

/* head_scores_steps of variant v, if the run made it: ,"scores":
 * {"steps":[0,...,N],"heads":["block.0.0",...],"values":(K, L·H)}, and
 * "flat": the note that says why, when every score is 0. */
static void write_scores(FILE *out, const trace *tr, variant_id v)
{
    const table_key key = {v, 0, NO_HEAD, TABLE_HEAD_SCORES_STEPS, false};
    const table *s = trace_find(tr, &key);
    if (s == NULL)
        return;
    fputs(",\n\"scores\":{\"steps\":[", out);
    for (size_t i = 0; i < s->values.rows; i++)
        fprintf(out, "%s%zu", i > 0 ? "," : "", row_step(s, i));
    fputs("],\"heads\":[", out);
    for (size_t c = 0; c < s->values.cols; c++) {
        fputs(c > 0 ? "," : "", out);
        json_string(out, s->cols->s[c]);
    }
    fputs("],\n\"values\":", out);
    json_floats(out, s->values.v, s->values.rows, s->values.cols);
    if (score_steps_flat(s)) {
        fputs(",\n\"flat\":", out);
        /* TRANSLATORS: --plot's and the --html training view's chart of
         * the heads' induction scores, when every score is 0 */
        json_string(out, _("Every score is 0: the shown sentence repeats no "
                           "word. Type one that does (the cat sat, the cat "
                           "sat) to watch an induction head form."));
    }
    fputc('}', out);
}

void html_write_training(FILE *out, const trace *tr, const table *w0)
{
    const table_key ck = {w0->variant, w0->layer, NO_HEAD,
                          TABLE_ATTN_WEIGHTS_STEPS, false};
    // the loss is the whole model's (layer 0), the weights each block's
    const table_key lk = {w0->variant, 0, NO_HEAD, TABLE_LOSS, false};
    const table *c = trace_find(tr, &ck), *loss = trace_find(tr, &lk);
    size_t heads = 0;
    while (trace_find_beside(tr, w0, (int)heads, TABLE_ATTN_WEIGHTS) != NULL)
        heads++;
    const size_t T = w0->values.rows;
    if (c == NULL || loss == NULL || heads == 0 ||
        c->values.rows % (heads * T) != 0 || c->values.cols != w0->values.cols)
        return;
    // {"steps":[0,...,N],"heads":H,"weights":(K·H·T, S),"loss":(N+1, 1),
    //  "lossShown":true when its last row is the shown sentence's, no
    //  step's (--corpus)}
    const size_t k = c->values.rows / (heads * T);
    fputs(",\n\"training\":{\"steps\":[", out);
    for (size_t i = 0; i < k; i++)
        fprintf(out, "%s%zu", i > 0 ? "," : "", row_step(c, i * heads * T));
    fprintf(out, "],\"heads\":%zu,\n\"weights\":", heads);
    json_floats(out, c->values.v, c->values.rows, c->values.cols);
    fputs(",\n\"loss\":", out);
    json_floats(out, loss->values.v, loss->values.rows, loss->values.cols);
    if (trained_loss_ends_shown(loss))
        fputs(",\n\"lossShown\":true", out);
    write_scores(out, tr, w0->variant);
    fputc('}', out);
}
