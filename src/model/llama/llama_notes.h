/* llama_notes.h: the Llama-style family's --explain notes, its family
 * row's (model/family_notes.h); the core of every live page, which has no
 * Llama-style folder, has none (llama_page.c). */
#ifndef MHA_LLAMA_NOTES_H
#define MHA_LLAMA_NOTES_H

#include "model/family_notes.h"

extern const family_notes llama_notes;

#endif
