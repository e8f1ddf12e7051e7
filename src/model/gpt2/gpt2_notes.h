/* gpt2_notes.h: GPT-2's --explain notes, its family row's
 * (model/family_notes.h). The core of every live page has none
 * (gpt2_notes_page.c): only the families core carries the notes. */
#ifndef MHA_GPT2_NOTES_H
#define MHA_GPT2_NOTES_H

#include "model/family_notes.h"

extern const family_notes gpt2_notes;

#endif
