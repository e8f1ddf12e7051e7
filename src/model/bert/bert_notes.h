/* bert_notes.h: BERT's --explain notes, its family row's
 * (model/family_notes.h); the core of every live page, which has no BERT
 * folder, has none (bert_page.c). */
#ifndef MHA_BERT_NOTES_H
#define MHA_BERT_NOTES_H

#include "model/family_notes.h"

extern const family_notes bert_notes;

#endif
