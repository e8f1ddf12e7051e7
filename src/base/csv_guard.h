/* csv_guard.h: a text cell of a CSV that a spreadsheet would read as a
 * formula. Excel and LibreOffice run a cell that starts with '=', '+',
 * '-' or '@' (a tab or a carriage return can hide one) even when it is
 * quoted; OWASP's advice ("CSV Injection") is a leading apostrophe, which
 * a spreadsheet shows as text. The writers put one before such a text
 * cell (a token, a label), never before a number; the readers of the
 * files they write take it off again, so a word reads back as it was.
 *
 * The rule, both ways: a cell that is zero or more apostrophes and then
 * one of = + - @ tab CR is written with one apostrophe more (so "=x" is
 * written "'=x", and "'=x" is written "''=x"); any other cell (a word
 * such as "'s") is written as it is. */
#ifndef MHA_BASE_CSV_GUARD_H
#define MHA_BASE_CSV_GUARD_H

#include <stdbool.h>

/* True when the text cell s is written with a leading apostrophe. */
bool csv_guard_needed(const char *s);

/* The text of a cell as written (s), the apostrophe the writer put
 * before it taken off: s + 1 when s is an apostrophe and a guarded cell,
 * else s. */
const char *csv_unguard(const char *s);

#endif
