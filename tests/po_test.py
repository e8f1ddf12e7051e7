#!/usr/bin/env python3
"""The message catalogues: complete, current and well-formed.

Usage: po_test.py SOURCE_ROOT

Prints TAP. The template is made afresh from po/POTFILES with xgettext
(the arguments of po/meson.build), and for every language of po/LINGUAS:
  - the .po holds every message of the sources (msgcmp);
  - it compiles with msgfmt -c (format strings agree with the English);
  - every message is translated and none is fuzzy.
Also no source file outside POTFILES calls _() or ngettext(), and
main.c prints no English line to stderr without gettext.
"""
import os
import re
import subprocess
import sys
import tempfile

from taplib import done, ok

ROOT = sys.argv[1]
PO = os.path.join(ROOT, "po")


def lines(name):
    with open(os.path.join(PO, name), encoding="utf-8") as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


def main():
    langs = lines("LINGUAS")
    sources = lines("POTFILES")
    ok(set(langs) == {"pt_BR", "es", "zh_CN", "zh_TW"},
       "LINGUAS: pt_BR, es, zh_CN, zh_TW", langs)
    with tempfile.TemporaryDirectory() as tmp:
        pot = os.path.join(tmp, "fresh.pot")
        r = subprocess.run(
            ["xgettext", "--from-code=UTF-8", "--keyword=_", "--keyword=N_",
             "--add-comments=TRANSLATORS:", "--package-name=mha-explain",
             "-o", pot] + sources, cwd=ROOT, capture_output=True, text=True)
        ok(r.returncode == 0 and os.path.exists(pot),
           "xgettext makes the template from POTFILES", r.stderr)
        with open(pot, encoding="utf-8") as f:
            n = len(re.findall(r"^msgid ", f.read(), re.M)) - 1
        ok(n >= 2, "the template holds the marked messages (%d)" % n)
        for lang in langs:
            po = os.path.join(PO, lang + ".po")
            r = subprocess.run(["msgcmp", po, pot], capture_output=True,
                               text=True)
            ok(r.returncode == 0, "%s.po has every message of the sources"
               % lang, r.stderr)
            r = subprocess.run(["msgfmt", "-c", "--statistics", "-o",
                                os.devnull, po], capture_output=True,
                               text=True, env=dict(os.environ, LC_ALL="C"))
            stats = r.stderr.strip()
            ok(r.returncode == 0, "%s.po compiles with msgfmt -c" % lang,
               stats)
            ok(re.fullmatch(r"%d translated messages?\." % n, stats)
               is not None,
               "%s.po: all %d messages translated, none fuzzy" % (lang, n),
               stats)
    marked = []
    src = os.path.join(ROOT, "src")
    for name in sorted(os.listdir(src)):
        if name.endswith((".c", ".h")) and name != "i18n.h":
            with open(os.path.join(src, name), encoding="utf-8") as f:
                if re.search(r"\b(_|N_|ngettext)\(\"", f.read()):
                    marked.append("src/" + name)
    ok(set(marked) <= set(sources), "every file with marked messages is in "
       "POTFILES", sorted(set(marked) - set(sources)))
    with open(os.path.join(src, "main.c"), encoding="utf-8") as f:
        raw = re.findall(r'f(?:printf|puts)\(\s*(?:stderr,\s*)?"([^"]*)"',
                         f.read())
    ok(not [r for r in raw if re.search(r"[A-Za-z]{3}", r) and
            r != "mha-explain: %s\\n"],
       "main.c writes no untranslated English to stderr", raw)
    return done()


if __name__ == "__main__":
    sys.exit(main())
