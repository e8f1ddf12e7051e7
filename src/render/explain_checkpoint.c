/* explain_checkpoint.c: --explain for a checkpoint's run (--model): the
 * notes of the family's row (model/family_notes.h), each before the
 * first table of its kind (head 0 of the first layer shown for a
 * head's), its number read from the table itself; the generation's note,
 * and the interventions' and the logit lens's (explain_intervene.c),
 * which are every family's. */
#include <stdio.h>

#include "base/i18n.h"
#include "model/family.h"
#include "render/explain_parts.h"

/* Whether t is the first table of its layer (the run's tables come layer
 * by layer). */
static bool starts_layer(const table *t, const table *prev)
{
    // the logit lens reads each layer after the run: not a layer's start
    return table_model_layer(t) >= 0 && t->id != TABLE_LOGIT_LENS &&
           (prev == NULL || table_model_layer(prev) != t->layer);
}

/* generated (N x 15, model/generate.h): why a step costs one row, then
 * how each token was picked, with each step's numbers read from the
 * table: the tokens top-k and top-p left, the token's probability in the
 * model's softmax and where it was drawn. */
static void explain_generated(FILE *out, const table *t,
                              const explain_context *c)
{
    const size_t N = t->values.rows;
    char text[2048];
    snprintf(text, sizeof text,
             _("Generation: a step of the model per new token. The first "
               "step ran the prompt's %zu tokens and kept every layer's keys "
               "and values (the KV cache); each later step feeds only the "
               "new token, whose one query row per head is scored against "
               "every cached key: a step computes one row of each table, "
               "not one per token so far, and the cache grows by one row a "
               "layer. The last of these %zu steps saw %zu positions."),
             c->tokens, N, c->tokens + (N > 0 ? N - 1 : 0));
    explain_note(out, c->width, text);
    explain_picking(out, t, c);
    if (c->generated_ablated)
        explain_note(
            out, c->width,
            _("With --ablate, every step ran with those heads switched off, "
              "over the same cache: zero sets a head's output z to 0; mean "
              "sets it to its mean over the prompt's positions, taken in the "
              "prompt's step and kept for every new token. The clean model's "
              "text follows, picked with the same seed: where the two part is "
              "the first pick the heads changed."));
    // --corpus: the mean is the corpus's (model/generate_ablate.h)
    if (c->generated_ablated && c->corpus)
        explain_note(out, c->width,
                     _("With --corpus, mean set each switched-off head's z "
                       "instead to its mean over every position of every "
                       "text of the corpus, taken before the first step "
                       "through the clean model: the same row at every "
                       "position of the prompt and at every new token."));
}

/* The family's note of t (a table of the run's first shown head), into
 * text when it has a number; NULL for none. own_head: the checkpoint's
 * lm_head is its own (the row's own_head note, when it has one). */
static const char *table_note(char *text, size_t size,
                              const family_notes *notes, const table *t,
                              bool own_head)
{
    const family_note *row = family_note_of(notes, t->id);
    if (row == NULL)
        return explain_intervention(t);
    const char *msgid =
        own_head && row->own_head != NULL ? row->own_head : row->text;
    if (msgid == NULL || row->fill == FILL_NONE)
        return msgid == NULL ? NULL : _(msgid);
    const size_t n = row->fill == FILL_ROWS   ? t->values.rows
                     : row->fill == FILL_COLS ? t->values.cols
                                              : t->values.cols / 2;
    const char *form =
        row->plural != NULL ? ngettext(msgid, row->plural, n) : _(msgid);
    // the format is the row's, with one %zu (tests/unit/test_family_notes.c
    // checks the rows, the po test's msgfmt -c their translations)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(text, size, form, n);
#pragma GCC diagnostic pop
    return text;
}

void explain_checkpoint_before(FILE *out, const table *t, const table *prev,
                               const void *ctx)
{
    const explain_context *c = ctx;
    const family_notes *notes = t->family->notes;
    char text[1024];
    const bool layer_note = starts_layer(t, prev);
    if (layer_note) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(text, sizeof text, _(notes->layer), t->layer);
#pragma GCC diagnostic pop
        explain_note(out, c->width, text);
    }
    if (t->head > 0 || t->id == TABLE_PARAM) {
        if (layer_note)
            fputc('\n', out);
        return;
    }
    if (t->id == TABLE_GENERATED) {
        explain_generated(out, t, c);
        fputc('\n', out);
        return;
    }
    const char *note = table_note(text, sizeof text, notes, t, c->own_head);
    if (note != NULL)
        explain_note(out, c->width, note);
    // GPT-2's scale_attn_weights: false (the trace's scale)
    if (t->id == TABLE_ATTN_SCORES && !c->scale)
        explain_note(out, c->width,
                     _("This checkpoint's config.json says scale_attn_weights "
                       "is false: its scores are q · k, not divided by "
                       "sqrt(head width)."));
    // --corpus on a checkpoint is the texts of --ablate-mode mean
    // (model/intervene/corpus_mean.h), said with the ablation's first table
    if (c->corpus &&
        (t->id == TABLE_ABLATE_EFFECT || t->id == TABLE_ABLATE_MAP))
        explain_note(out, c->width,
                     _("With --corpus, --ablate-mode mean set each "
                       "switched-off head's z to its mean over every "
                       "position of every text of the corpus (each text run "
                       "through the clean model on its own), the same row at "
                       "every position of this text: the head's typical "
                       "output, not one that depends on this text."));
    if (note != NULL || layer_note)
        fputc('\n', out);
}
