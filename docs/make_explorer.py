#!/usr/bin/env python3
"""make_explorer.py MHA_EXPLAIN OUT.html [LANG...]: the ready pages
`meson install` puts in share/doc/mha-explain (docs/meson.build): the
classroom example's live --html page, in English (OUT.html) and in each
LANG of po/LINGUAS (OUT's name with .LANG before .html:
explorer.pt_BR.html...), for a teacher who opens it from the file
manager and edits the sentence there. The program's text output is not
kept.

Each page carries one language's catalogue (a page with all of them would
be about 200 kB larger), so the set is what lets a page change its
language: every page lists the set in <script id="mha-languages">
(docs/html.md), and its Language menu opens the same run in another
one."""
import json
import os
import subprocess
import sys

# Each language's name in itself, for the Language menu.
NAMES = {"en": "English", "pt_BR": "Português (Brasil)", "es": "Español",
         "zh_CN": "简体中文", "zh_TW": "繁體中文"}


def page_name(out, lang):
    stem, ext = os.path.splitext(os.path.basename(out))
    return stem + ext if lang == "en" else "%s.%s%s" % (stem, lang, ext)


def main():
    mha, out, langs = sys.argv[1], sys.argv[2], ["en"] + sys.argv[3:]
    folder = os.path.dirname(out)
    listed = json.dumps([{"lang": l, "name": NAMES.get(l, l),
                          "file": page_name(out, l)} for l in langs],
                        ensure_ascii=False)
    for lang in langs:
        path = os.path.join(folder, page_name(out, lang))
        env = dict(os.environ, LANGUAGE="", LC_ALL="C.UTF-8")
        subprocess.run([mha, "O gato sobe no tapete", "--heads", "2",
                        "--lang", lang, "--html", path], check=True,
                       env=env, stdout=subprocess.DEVNULL)
        with open(path, encoding="utf-8") as f:
            page = f.read()
        if '<html lang="%s">' % lang.replace("_", "-") not in page:
            sys.exit("make_explorer.py: %s is not in %s (no catalogue?)"
                     % (path, lang))
        app = '<main id="app"></main>'
        if page.count(app) != 1:
            sys.exit("make_explorer.py: %s has no single %s" % (path, app))
        page = page.replace(app, '<script type="application/json" '
                            'id="mha-languages">%s</script>\n%s'
                            % (listed, app))
        with open(path, "w", encoding="utf-8") as f:
            f.write(page)


if __name__ == "__main__":
    main()
