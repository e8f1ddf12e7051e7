/* i18n.h: messages in the reader's language, with GNU gettext.
 *
 * Only the message category follows the locale (LC_MESSAGES): numbers,
 * table names, CSV bytes and character widths never change. */
#ifndef MHA_I18N_H
#define MHA_I18N_H

#include <libintl.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

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

/* Chooses the language of messages: lang (from --lang; NULL for the
 * environment's LANGUAGE, LC_ALL, LC_MESSAGES, LANG) and finds the
 * catalogues: relative to the program itself (bin/../share/locale),
 * beside the build, or under the configured prefix; argv0 is used only
 * where /proc/self/exe cannot be read.
 * Works without any generated locale but C.UTF-8. An unknown lang is a
 * usage error that lists the available ones. */
int i18n_init(const char *lang, const char *argv0, mx_error *err);

/* True when messages in lang (a --lang code) can be shown: English, or a
 * translation whose catalogue is where i18n_init found the catalogues;
 * *dir is set to that directory. */
bool i18n_has_catalogue(const char *lang, const char **dir);

#endif
