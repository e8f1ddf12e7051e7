/* i18n.c: choosing the language of messages and finding the catalogues. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "base/i18n.h"

#include <limits.h>
#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/program_dir.h"

/* MHA_LANGUAGES ("pt_BR es ..." from po/LINGUAS), MHA_LOCALEDIR (the
 * installed catalogues), MHA_LOCALEDIR_FROM_BINDIR (the same, relative to
 * the installed program: "../share/locale"; empty when the two are not
 * both under the prefix), MHA_BUILD_BINDIR and MHA_BUILD_LOCALEDIR (the
 * uninstalled program and its catalogues) come from meson. */
#define DOMAIN "mha-explain"

/* Nonzero when code is English (the messages as written) or one of the
 * translations. */
static int known_language(const char *code)
{
    if (strcmp(code, "en") == 0)
        return 1;
    const size_t n = strlen(code);
    const char *p = MHA_LANGUAGES;
    while (*p != '\0') {
        size_t len = strcspn(p, " ");
        if (len == n && n > 0 && strncmp(p, code, n) == 0)
            return 1;
        p += len;
        p += strspn(p, " ");
    }
    return 0;
}

static int untranslated_locale(const char *name);

/* The catalogue (or "en") that the language code names, into out (of
 * size n): the code as --lang, LANGUAGE or a locale name spells it
 * ("pt", "pt-BR", "pt_br", "pt_PT.UTF-8", "zh-TW@euro"), read without
 * its codeset and modifier, case and '-' or '_' alike; a code whose
 * country has no catalogue takes the first catalogue of its language
 * (pt_PT: pt_BR; zh: zh_CN). False when none fits. */
static bool catalogue_of(char *out, size_t n, const char *code)
{
    char want[16];
    size_t len = strcspn(code, ".@:");
    if (len == 0 || len >= sizeof want)
        return false;
    for (size_t i = 0; i < len; i++) {
        const char c = code[i] == '-' ? '_' : code[i];
        want[i] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    want[len] = '\0';
    const size_t lang_len = strcspn(want, "_");
    if (strcmp(want, "en") == 0 || strncmp(want, "en_", 3) == 0) {
        snprintf(out, n, "en");
        return true;
    }
    // the whole code first (pt_br), then its language alone (pt)
    for (int whole = 1; whole >= 0; whole--) {
        const char *p = MHA_LANGUAGES;
        while (*p != '\0') {
            const size_t k = strcspn(p, " ");
            const size_t k_lang = strcspn(p, "_ ");
            bool same = whole ? k == len : k_lang == lang_len;
            for (size_t i = 0; same && i < (whole ? len : lang_len); i++) {
                char c = p[i];
                c = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
                same = c == want[i];
            }
            if (same && k > 0) {
                snprintf(out, n, "%.*s", (int)k, p);
                return true;
            }
            p += k;
            p += strspn(p, " ");
        }
    }
    return false;
}

/* LANGUAGE (a list, "pt:en") or else the locale's name, as catalogues:
 * each entry that names one (catalogue_of) replaced by it, so that
 * LANGUAGE=pt or LANG=pt_PT.UTF-8 finds the pt_BR messages. */
static void language_from_environment(void)
{
    const char *names[] = {"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"};
    const char *v = NULL;
    for (size_t i = 0; i < 4 && (v == NULL || v[0] == '\0'); i++)
        v = getenv(names[i]);
    if (v == NULL || v[0] == '\0' || untranslated_locale(v) ||
        strncmp(v, "C.", 2) == 0)
        return;
    char list[256] = "";
    bool any_translation = false;
    for (const char *p = v; *p != '\0';) {
        const size_t k = strcspn(p, ":");
        char entry[64], code[16];
        snprintf(entry, sizeof entry, "%.*s", (int)k, p);
        if (catalogue_of(code, sizeof code, entry)) {
            const size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%s", used ? ":" : "",
                     code);
            any_translation = any_translation || strcmp(code, "en") != 0;
        }
        p += k;
        p += strspn(p, ":");
    }
    if (any_translation)
        setenv("LANGUAGE", list, 1);
}

/* Nonzero when dir holds a catalogue of this program in one of the
 * translations. */
static int has_catalogues(const char *dir)
{
    const char *p = MHA_LANGUAGES;
    while (*p != '\0') {
        const size_t len = strcspn(p, " ");
        char mo[PATH_MAX];
        const int n = snprintf(mo, sizeof mo, "%s/%.*s/LC_MESSAGES/%s.mo", dir,
                               (int)len, p, DOMAIN);
        if (len > 0 && n > 0 && (size_t)n < sizeof mo && access(mo, R_OK) == 0)
            return 1;
        p += len;
        p += strspn(p, " ");
    }
    return 0;
}

/* Where the catalogues are, into dir (of size n): relative to the program
 * itself (bin/../share/locale, so that an installed tree copied
 * elsewhere or staged with DESTDIR finds its own), then beside the build
 * (the uninstalled program in build/src), then the configured prefix. */
static void find_catalogues(char *dir, size_t n, const char *argv0)
{
    char *here = program_dir(argv0);
    int found = 0;
    if (here != NULL && MHA_LOCALEDIR_FROM_BINDIR[0] != '\0') {
        const int len =
            snprintf(dir, n, "%s/%s", here, MHA_LOCALEDIR_FROM_BINDIR);
        found = len > 0 && (size_t)len < n && has_catalogues(dir);
    }
    if (!found && here != NULL && same_dir(here, MHA_BUILD_BINDIR)) {
        snprintf(dir, n, "%s", MHA_BUILD_LOCALEDIR);
        found = 1;
    }
    if (!found)
        snprintf(dir, n, "%s", MHA_LOCALEDIR);
    free(here);
}

/* True for the locales whose messages gettext never translates. */
static int untranslated_locale(const char *name)
{
    return name == NULL || strcmp(name, "C") == 0 || strcmp(name, "POSIX") == 0;
}

int i18n_init(const char *lang, const char *argv0, mx_error *err)
{
    /* The environment's language first, so that an unknown --lang is
     * reported in it. A locale that is set but not generated (LANG=pt_BR.UTF-8
     * on a fresh system) still chooses the language: through LANGUAGE,
     * with C.UTF-8 as the message locale, which gettext translates for. */
    int chosen = 0;
    if (setlocale(LC_MESSAGES, "") == NULL) {
        const char *names[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
        for (size_t i = 0; i < 3 && !chosen; i++) {
            const char *v = getenv(names[i]);
            if (v != NULL && v[0] != '\0') {
                const char *language = getenv("LANGUAGE");
                if (language == NULL || language[0] == '\0')
                    setenv("LANGUAGE", v, 1);
                chosen = 1;
            }
        }
    }
    if (chosen)
        setlocale(LC_MESSAGES, "C.UTF-8");
    if (!untranslated_locale(setlocale(LC_MESSAGES, NULL)))
        language_from_environment();
    /* the catalogues are looked for only when a message may be
     * translated: in the C locale without --lang, gettext never does, nor
     * in C.UTF-8 without LANGUAGE (a run starts faster) */
    const char *locale = setlocale(LC_MESSAGES, NULL);
    const char *language = getenv("LANGUAGE");
    const bool plain_c = untranslated_locale(locale) ||
                         (strncmp(locale, "C.", 2) == 0 &&
                          (language == NULL || language[0] == '\0'));
    if (lang != NULL || !plain_c) {
        char found[PATH_MAX];
        const char *dir = getenv("MHA_EXPLAIN_LOCALEDIR");
        if (dir == NULL || dir[0] == '\0') {
            find_catalogues(found, sizeof found, argv0);
            dir = found;
        }
        bindtextdomain(DOMAIN, dir);
        bind_textdomain_codeset(DOMAIN, "UTF-8");
        /* strerror's words come from the C library's own catalogue: in
         * UTF-8 too, not cut to ASCII by the C character locale */
        bind_textdomain_codeset("libc", "UTF-8");
    }
    textdomain(DOMAIN);

    if (lang == NULL)
        return 0;
    char code[16];
    if (!catalogue_of(code, sizeof code, lang) || !known_language(code))
        return err_usage(err,
                         _("--lang: unknown language '%s' (available: "
                           "en %s)"),
                         lang, MHA_LANGUAGES);
    setenv("LANGUAGE", code, 1);
    if (untranslated_locale(setlocale(LC_MESSAGES, NULL)))
        setlocale(LC_MESSAGES, "C.UTF-8");
    textdomain(DOMAIN); /* gettext rereads LANGUAGE */
    return 0;
}

bool i18n_has_catalogue(const char *lang, const char **dir)
{
    *dir = bindtextdomain(DOMAIN, NULL);
    char code[16];
    if (catalogue_of(code, sizeof code, lang))
        lang = code; /* "pt" is pt_BR's */
    if (strcmp(lang, "en") == 0)
        return true;
    char mo[PATH_MAX];
    const int n = snprintf(mo, sizeof mo, "%s/%s/LC_MESSAGES/%s.mo",
                           *dir != NULL ? *dir : "", lang, DOMAIN);
    return n > 0 && (size_t)n < sizeof mo && access(mo, R_OK) == 0;
}
