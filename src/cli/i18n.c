/* i18n.c: choosing the language of messages and finding the catalogues. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli/i18n.h"

#include <limits.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

/* MHA_LANGUAGES ("pt_BR es ..." from po/LINGUAS), MHA_LOCALEDIR (the
 * installed catalogues), MHA_BUILD_BINDIR and MHA_BUILD_LOCALEDIR (the
 * uninstalled program and its catalogues) come from meson. */
#define DOMAIN "mha-explain"

const char *i18n_lang_arg(int argc, char **argv)
{
    const char *lang = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--lang") == 0 && i + 1 < argc)
            lang = argv[++i];
        else if (strncmp(argv[i], "--lang=", 7) == 0)
            lang = argv[i] + 7;
    }
    return lang;
}

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

/* Nonzero when the directory of argv0 is the build's src/ directory:
 * the uninstalled program reads the catalogues built beside it. */
static int in_build_tree(const char *argv0)
{
    const char *slash = strrchr(argv0, '/');
    if (slash == NULL)
        return 0; /* found on PATH: installed */
    char dir[PATH_MAX];
    size_t len = (size_t)(slash - argv0);
    if (len == 0 || len >= sizeof dir)
        return 0;
    memcpy(dir, argv0, len);
    dir[len] = '\0';
    char *here = realpath(dir, NULL);
    char *build = realpath(MHA_BUILD_BINDIR, NULL);
    int same = here != NULL && build != NULL && strcmp(here, build) == 0;
    free(here);
    free(build);
    return same;
}

/* True for the locales whose messages gettext never translates. */
static int untranslated_locale(const char *name)
{
    return name == NULL || strcmp(name, "C") == 0 || strcmp(name, "POSIX") == 0;
}

int i18n_init(const char *lang, const char *argv0, mx_error *err)
{
    const char *dir = getenv("MHA_EXPLAIN_LOCALEDIR");
    if (dir == NULL || dir[0] == '\0')
        dir = in_build_tree(argv0) ? MHA_BUILD_LOCALEDIR : MHA_LOCALEDIR;
    bindtextdomain(DOMAIN, dir);
    bind_textdomain_codeset(DOMAIN, "UTF-8");

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
    textdomain(DOMAIN);

    if (lang == NULL)
        return 0;
    if (!known_language(lang))
        return err_usage(err,
                         _("--lang: unknown language '%s' (available: "
                           "en %s)"),
                         lang, MHA_LANGUAGES);
    setenv("LANGUAGE", lang, 1);
    if (untranslated_locale(setlocale(LC_MESSAGES, NULL)))
        setlocale(LC_MESSAGES, "C.UTF-8");
    textdomain(DOMAIN); /* gettext rereads LANGUAGE */
    return 0;
}
