/* family_notes.h: a checkpoint family's --explain notes, as rows in its
 * folder (model/gpt2/gpt2_notes.c, model/bert/bert_notes.c,
 * model/llama/llama_notes.c): what the family does at each kind of
 * table, in its own words. Its row in family.c points at them;
 * render/explain_checkpoint.c prints them before the first table of each
 * kind (head 0 of the first layer shown for a head's), each size read
 * from the table itself. The notes every causal checkpoint shares
 * (scores, weights, a layer's output, the model view, next tokens) are
 * rows of checkpoint_notes.c. */
#ifndef MHA_FAMILY_NOTES_H
#define MHA_FAMILY_NOTES_H

#include <stddef.h>

#include "model/catalogue.h"

/* Which of the table's sizes fills a note's %zu. */
typedef enum {
    FILL_NONE,      /* a note without a number */
    FILL_ROWS,      /* its rows: the tokens, the query heads */
    FILL_COLS,      /* its columns: a vector's width */
    FILL_HALF_COLS, /* half its columns: rotary's pairs of columns */
} note_fill;

typedef struct {
    table_id id;
    /* The note (a msgid, N_()), or NULL: the family has no note for this
     * table, though the shared rows have one. */
    const char *text;
    /* Its plural (ngettext's msgid_plural, chosen by the number), or
     * NULL: the note has one form. */
    const char *plural;
    note_fill fill;
    /* The note (N_()) when the checkpoint has its own lm_head
     * (tie_word_embeddings false, model/tied_head.h), for a note that
     * names the head; NULL: text either way. Same number as text. */
    const char *own_head;
} family_note;

typedef struct {
    /* Before the first table of each layer, "Layer %d: ..." (N_()). */
    const char *layer;
    /* The family's own notes, n of them; they come before the shared
     * rows (checkpoint_notes), and a row there whose text is NULL keeps
     * a shared note out. */
    const family_note *notes;
    size_t n;
    /* Whether the shared rows (checkpoint_notes.c) are the family's too. */
    int shared;
} family_notes;

/* The notes every causal checkpoint's family shares (checkpoint_notes.c),
 * n_checkpoint_notes of them. */
extern const family_note checkpoint_notes[];
extern const size_t n_checkpoint_notes;

/* The note of table id for a family's notes: its own row, else a shared
 * one; NULL for none. */
const family_note *family_note_of(const family_notes *notes, table_id id);

#endif
