/* libintl.h for the WebAssembly core: gettext over one catalogue in
 * memory (base/page/libintl.c), the one the page carries for its
 * language.
 *
 * The core is built without GNU gettext, which reads its catalogues from
 * files the browser does not have. The sources call gettext and ngettext
 * only, through base/translate.h; this header declares those two. */
#ifndef MHA_PAGE_LIBINTL_H
#define MHA_PAGE_LIBINTL_H

#include <stddef.h>

#if defined(__GNUC__) || defined(__clang__)
#define MHA_FORMAT_ARG(i) __attribute__((format_arg(i)))
#else
#define MHA_FORMAT_ARG(i)
#endif

const char *gettext(const char *msgid) MHA_FORMAT_ARG(1);
const char *ngettext(const char *msgid, const char *plural, unsigned long n)
    MHA_FORMAT_ARG(1) MHA_FORMAT_ARG(2);

/* Takes the .mo catalogue bytes (from mx_alloc; the core owns them
 * from now on) as the language of messages; NULL: English. -1 when they
 * are no .mo catalogue (messages stay English). One of the core's
 * entry points (wasm/core.h). */
int mx_catalogue(unsigned char *bytes, size_t len);

#endif
