/* translate.h: a message in the reader's language: _() and N_() over
 * gettext, in the language i18n.c chose. The bottom of every message,
 * error.c's too. */
#ifndef MHA_TRANSLATE_H
#define MHA_TRANSLATE_H

#include <libintl.h>

/* A message translated into the chosen language. gettext never returns
 * NULL (without a translation it returns msgid); the test below says so
 * where the compiler can see it, so that a translated format string is
 * known not to be a null pointer, also on the paths a sanitizer's checks
 * add. The format_arg attribute keeps the format checks of printf-like
 * calls looking through _(). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format_arg(1)))
#endif
static inline const char *
translated(const char *msgid);
static inline const char *translated(const char *msgid)
{
    const char *text = gettext(msgid);
    return text != NULL ? text : msgid;
}
#define _(msgid) translated(msgid)
/* A message marked for translation, translated later where it is used. */
#define N_(msgid) (msgid)
/* The same for a message and its plural, as two initialisers of a row
 * whose number ngettext picks the form by (model/family_notes.h). */
#define NN_(msgid, msgid_plural) (msgid), (msgid_plural)

#endif
