#!/usr/bin/env python3
"""The options' man page in each language (mha-explain --man).

Usage: man_lang_test.py MHA_EXPLAIN SOURCE_ROOT BUILD_ROOT

Prints TAP. For English and every language of po/LINGUAS: the page
--man --lang LANG writes is roff that groff reads without a warning; it
has every option --help --lang LANG lists, each under the value name
--help gives it in that language (N, ARQUIVO, 文件, ...), and section
headings in the language (no English NAME, SYNOPSIS or OPTIONS in a
translated page). For each translation, the build made that page
(docs/man/LANG/mha-explain.1) and `meson install` puts it in
share/man/LANG/man1/mha-explain.1 (the build's install plan,
meson-info/intro-installed.json).
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cli"))
from taplib import done, ok  # noqa: E402

BINARY, ROOT, BUILD = sys.argv[1:4]
ENV = dict(os.environ, LANGUAGE="", LC_ALL="C.UTF-8")
ENGLISH_HEADINGS = {"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS",
                    "EXIT STATUS", "SEE ALSO"}


def run(*args):
    return subprocess.run([BINARY] + list(args), capture_output=True,
                          env=ENV, text=True)


def help_values(lang):
    """{option: its value's name as --help --lang lang writes it}"""
    text = run("--help", "--lang", lang).stdout
    found = {}
    for line in text.splitlines():
        m = re.match(r"  (?:-\w, )?--([\w-]+)(?: (\S+))?", line)
        if m:
            found[m.group(1)] = m.group(2)
    return found


def page_options(page):
    """{option: its value's name in the page, or None}"""
    found = {}
    for m in re.finditer(r"^\.TP\n(?:\\fB\\-\w\\fR, )?\\fB\\-\\-((?:[\w]|"
                         r"\\-)+)\\fR(?: \\fI([^\\\n]+)\\fR)?$", page, re.M):
        found[m.group(1).replace("\\-", "-")] = m.group(2)
    return found


def check_page(lang, page, english):
    r = subprocess.run(["groff", "-k", "-man", "-Tutf8", "-ww", "-z"],
                       input=page, capture_output=True, text=True) \
        if shutil.which("groff") else None
    ok(r is None or (r.returncode == 0 and r.stderr == ""),
       "%s: groff reads the page without a warning" % lang,
       r.stderr if r else "no groff")
    want, got = help_values(lang), page_options(page)
    ok(len(want) >= 50 and set(want) == set(got),
       "%s: the page has --help's %d options" % (lang, len(want)),
       sorted(set(want) ^ set(got)))
    wrong = sorted(n for n in want if want[n] != got.get(n))
    ok(not wrong, "%s: each under --help's value name in the language"
       % lang, [(n, want[n], got.get(n)) for n in wrong])
    if lang != "en":  # FILE, SENTENCE, ... are translated
        same = sorted(n for n in want if want[n] and len(want[n]) > 1 and
                      want[n] == english.get(n) and want[n] != "TOKEN")
        ok(not same, "%s: no value name left in English" % lang, same)
    headings = re.findall(r'^\.SH "([^"]*)"', page, re.M)
    english = set(headings) & ENGLISH_HEADINGS
    ok(len(headings) == 6 and (english == ENGLISH_HEADINGS if lang == "en"
                               else not english),
       "%s: its six section headings are in the language" % lang, headings)


def main():
    with open(os.path.join(ROOT, "po", "LINGUAS")) as f:
        langs = [l.strip() for l in f
                 if l.strip() and not l.startswith("#")]
    with open(os.path.join(BUILD, "meson-info", "intro-installed.json")) as f:
        installed = json.load(f)
    english = help_values("en")
    for lang in ["en"] + langs:
        r = run("--man", "--lang", lang)
        ok(r.returncode == 0 and r.stderr == "" and
           r.stdout.startswith('.\\" -*- coding: UTF-8 -*-\n'
                               '.TH MHA-EXPLAIN 1 '),
           "%s: --man writes a man page" % lang, r.stderr)
        check_page(lang, r.stdout, english)
        if lang == "en":
            continue
        built = os.path.join(BUILD, "docs", "man", lang, "mha-explain.1")
        ok(os.path.exists(built) and open(built, encoding="utf-8").read()
           == r.stdout, "%s: the build made that page, %s" % (lang, built))
        dest = installed.get(built, "")
        ok(dest.endswith(os.path.join("share", "man", lang, "man1",
                                      "mha-explain.1")),
           "%s: meson install puts it in share/man/%s/man1/" % (lang, lang),
           dest)
    done()


if __name__ == "__main__":
    main()
