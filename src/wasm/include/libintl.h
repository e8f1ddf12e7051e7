/* libintl.h for the WebAssembly core: gettext over one catalogue in
 * memory (wasm/messages.c), the one the page carries for its language.
 *
 * The core is built without GNU gettext, which reads its catalogues from
 * files the browser does not have. The sources call gettext and ngettext
 * only, through base/i18n.h; this header declares those two. */
#ifndef MHA_WASM_LIBINTL_H
#define MHA_WASM_LIBINTL_H

#if defined(__GNUC__) || defined(__clang__)
#define MHA_FORMAT_ARG(i) __attribute__((format_arg(i)))
#else
#define MHA_FORMAT_ARG(i)
#endif

const char *gettext(const char *msgid) MHA_FORMAT_ARG(1);
const char *ngettext(const char *msgid, const char *plural, unsigned long n)
    MHA_FORMAT_ARG(1) MHA_FORMAT_ARG(2);

#endif
