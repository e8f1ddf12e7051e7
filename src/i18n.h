/* i18n.h: messages in the reader's language, with GNU gettext.
 *
 * Only the message category follows the locale (LC_MESSAGES): numbers,
 * table names, CSV bytes and character widths never change. */
#ifndef MHA_I18N_H
#define MHA_I18N_H

#include <libintl.h>

#include "error.h"

/* A message translated into the chosen language. */
#define _(msgid) gettext(msgid)
/* A message marked for translation, translated later where it is used. */
#define N_(msgid) (msgid)

/* The value of --lang CODE or --lang=CODE among argv (up to "--"), or
 * NULL: the language must be chosen before the options are parsed, so
 * that their errors are in it too. */
const char *i18n_lang_arg(int argc, char **argv);

/* Chooses the language of messages: lang (from --lang; NULL for the
 * environment's LANGUAGE, LC_ALL, LC_MESSAGES, LANG) and finds the
 * catalogues (beside the build when argv0 is the uninstalled program).
 * Works without any generated locale but C.UTF-8. An unknown lang is a
 * usage error that lists the available ones. */
int i18n_init(const char *lang, const char *argv0, mx_error *err);

#endif
