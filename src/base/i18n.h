/* i18n.h: messages in the reader's language, with GNU gettext: the
 * language chosen and the catalogues found (i18n.c), and what a file
 * needs to report an error in it (_() of translate.h, error.h).
 *
 * Only the message category follows the locale (LC_MESSAGES): numbers,
 * table names, CSV bytes and character widths never change. */
#ifndef MHA_I18N_H
#define MHA_I18N_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "base/translate.h"

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
