/* test_family_notes.c: the checkpoint families' --explain notes as rows
 * (model/family_notes.h): each row's msgid has the one number its fill
 * says (render/explain_checkpoint.c fills it with printf, which the
 * compiler cannot check against a row), a plural only where the number
 * chooses it, the note of a checkpoint with its own lm_head the same
 * number as the tied one's, no table twice in a list, and the layer's note one %d. */
#include <stdio.h>
#include <string.h>

#include "model/bert/bert_notes.h"
#include "model/family_notes.h"
#include "model/gpt2/gpt2_notes.h"
#include "model/llama/llama_notes.h"
#include "tap.h"

/* How many conversions text holds ("%%" is none), and whether every one
 * is conv. */
static size_t conversions(const char *text, const char *conv, int *others)
{
    size_t n = 0;
    *others = 0;
    for (const char *p = strchr(text, '%'); p != NULL; p = strchr(p + 2, '%')) {
        if (p[1] == '%')
            continue;
        n++;
        if (strncmp(p, conv, strlen(conv)) != 0)
            *others = 1;
    }
    return n;
}

static void check_rows(const char *name, const family_note *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const family_note *r = &rows[i];
        for (size_t j = 0; j < i; j++)
            ok(rows[j].id != r->id, "%s: table %d once", name, (int)r->id);
        if (r->text == NULL) {
            ok(r->plural == NULL && r->fill == FILL_NONE && r->own_head == NULL,
               "%s: a row without a note has no plural and no number", name);
            continue;
        }
        const size_t want = r->fill == FILL_NONE ? 0 : 1;
        int others;
        ok(conversions(r->text, "%zu", &others) == want && !others,
           "%s: table %d's note has %zu %%zu", name, (int)r->id, want);
        if (r->own_head != NULL) {
            ok(r->plural == NULL, "%s: an own head's note has one form", name);
            ok(conversions(r->own_head, "%zu", &others) == want && !others,
               "%s: table %d's own head note has %zu %%zu", name, (int)r->id,
               want);
        }
        if (r->plural != NULL) {
            ok(r->fill != FILL_NONE, "%s: a plural goes with a number", name);
            ok(conversions(r->plural, "%zu", &others) == want && !others,
               "%s: table %d's plural has %zu %%zu", name, (int)r->id, want);
        }
    }
}

static void check_family(const char *name, const family_notes *notes)
{
    int others;
    ok(notes->layer != NULL && conversions(notes->layer, "%d", &others) == 1 &&
           !others,
       "%s: the layer's note has one %%d", name);
    ok(notes->n > 0, "%s: has notes of its own", name);
    check_rows(name, notes->notes, notes->n);
    // its own row comes before the shared one
    for (size_t i = 0; i < notes->n; i++)
        ok(family_note_of(notes, notes->notes[i].id) == &notes->notes[i],
           "%s: its own row of table %d first", name, (int)notes->notes[i].id);
}

int main(void)
{
    check_rows("shared", checkpoint_notes, n_checkpoint_notes);
    check_family("gpt2", &gpt2_notes);
    check_family("bert", &bert_notes);
    check_family("llama", &llama_notes);
    // a shared note reaches a family that has none of its own for it
    ok(family_note_of(&llama_notes, TABLE_ATTN_WEIGHTS) == &checkpoint_notes[1],
       "llama: the shared weights note");
    // and a row without a note keeps the shared one out
    const family_note *hidden = family_note_of(&bert_notes, TABLE_HIDDEN);
    ok(hidden != NULL && hidden->text == NULL,
       "bert: no note for its post-norm layer output");
    ok(family_note_of(&gpt2_notes, TABLE_PARAM) == NULL,
       "gpt2: no note for a parameter");
    return tap_done();
}
