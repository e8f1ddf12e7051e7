/* lang_arg.h: finding --lang among the arguments before they are parsed. */
#ifndef MHA_LANG_ARG_H
#define MHA_LANG_ARG_H

/* The value of --lang CODE or --lang=CODE among argv (up to "--"), or
 * NULL: the language must be chosen before the options are parsed, so
 * that their errors are in it too. */
const char *i18n_lang_arg(int argc, char **argv);

#endif
