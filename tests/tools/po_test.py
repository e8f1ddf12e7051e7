#!/usr/bin/env python3
"""The message catalogues: complete, current and well-formed.

Usage: po_test.py SOURCE_ROOT

Prints TAP. The template is made afresh from po/POTFILES with xgettext
(the arguments of po/meson.build), and for every language of po/LINGUAS:
  - the .po holds every message of the sources (msgcmp);
  - it compiles with msgfmt -c (format strings agree with the English);
  - every message is translated and none is fuzzy.
The Chinese catalogues write 词元 / 詞元 for a token, as the page does,
never the English word but in names (--tokens, next_tokens).
Also no source file outside POTFILES calls _() or ngettext(), and no
message reaches the user without gettext: no bare string literal is the
message of err_usage, err_input, err_set, fail_at, err_nomem, err_write or
the name given to matrix_alloc, or a reason assigned to *why, or text
written to stderr with fprintf or fputs.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

# taplib.py and ptylib.py live with the command-line tests.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cli"))
from taplib import done, ok  # noqa: E402

ROOT = sys.argv[1]
PO = os.path.join(ROOT, "po")


def lines(name):
    with open(os.path.join(PO, name), encoding="utf-8") as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


# Calls whose message argument (0-based index) a user reads.
MESSAGE_ARG = {"err_usage": 1, "err_input": 1, "err_set": 2, "fail_at": 3,
               "err_nomem": 1, "err_write": 1, "matrix_alloc": 3}
LITERAL = re.compile(r'(?:"(?:[^"\\\n]|\\.)*"\s*)+')
CALL = re.compile(r"\b(%s)\(" % "|".join(MESSAGE_ARG))

def words(literal):
    """True when a C string literal holds words once its printf
    directives are taken out ("%s:%zu: %s" holds none)."""
    text = re.sub(r"%[-#0-9.*]*[hlzjtL]*[a-zA-Z%]", "", literal)
    return re.search(r"[A-Za-z]{2}", text) is not None


def untranslated(source):
    """(line, literal) of each user-visible message not given to gettext:
    a bare string literal as the message of an error or allocation, a
    reason assigned to *why, or text written to stderr."""
    code = re.sub(r"/\*.*?\*/|//[^\n]*",
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), source,
                  flags=re.S)
    found = []
    for m in CALL.finditer(code):
        line_start = code.rfind("\n", 0, m.start()) + 1
        if re.search(r"\b(int|void)\s*$", code[line_start:m.start()]):
            continue  # the definition
        j, depth, arg = m.end(), 0, 0
        while arg < MESSAGE_ARG[m.group(1)] and j < len(code):
            c = code[j]
            if c == '"':
                j = LITERAL.match(code, j).end()
                continue
            if c == "'":
                j = code.index("'", j + 1 + (code[j + 1] == "\\")) + 1
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                if depth == 0:
                    break
                depth -= 1
            elif c == "," and depth == 0:
                arg += 1
            j += 1
        lit = LITERAL.match(code, j + len(code[j:]) - len(code[j:].lstrip()))
        if arg == MESSAGE_ARG[m.group(1)] and lit and words(lit.group(0)):
            found.append((code.count("\n", 0, m.start()) + 1, lit.group(0)))
    for m in re.finditer(r'\*why\s*=\s*[^;]*?("(?:[^"\\\n]|\\.)*")', code):
        before = code[m.start():m.start(1)]
        if not before.rstrip().endswith("N_("):
            found.append((code.count("\n", 0, m.start()) + 1, m.group(1)))
    for m in re.finditer(r"\bf(?:printf|puts)\(([^;]*?)\);", code, re.S):
        call = m.group(1)
        if "stderr" not in call:
            continue
        lit = re.match(r'\s*(?:stderr\s*,\s*)?("(?:[^"\\\n]|\\.)*")', call)
        if lit and words(lit.group(1)) and lit.group(1) != '"mha-explain: %s\\n"':
            found.append((code.count("\n", 0, m.start()) + 1, lit.group(1)))
    return found


def latin_tokens(po):
    """The translations of po that write the English word token(s) (or
    Token) where the language has its own word: every one but a name the
    program writes as it is (an option, a table, a file, a field of
    model.json between quotes)."""
    with open(po, encoding="utf-8") as f:
        text = f.read()
    found = []
    for m in re.finditer(r'^msgstr(?:\[\d\])? ((?:".*"\n?)+)', text, re.M):
        value = "".join(re.findall(r'"(.*)"', m.group(1)))
        found += [value for w in re.finditer(
            r'(?<![\w.\-\u201c\u300c])(?<!\\")[Tt]okens?'
            r'(?![\w.\-\u201d\u300d])(?!\\")', value)]
    return found


# Where an English message calls the lm_head "the head": the words that
# would read as an attention head in Portuguese and Spanish, and the
# words for the output layer the translations use instead.
LM_HEAD_PHRASES = ("own head", "tied as the head", "a head trained only",
                   "this head cannot read")
LM_HEAD_WORDS = {"pt_BR": ("cabe\u00e7a", "camada de sa\u00edda"),
                 "es": ("cabeza", "capa de salida")}


def lm_head_as_head(po, attention, output):
    """The messages of po whose English calls the lm_head "the head" and
    whose translation calls it by the word for an attention head, or not
    by the word for the output layer."""
    with open(po, encoding="utf-8") as f:
        text = f.read()
    found = []
    for entry in text.split("\n\n"):
        parts = re.findall(r'^(msgid|msgid_plural|msgstr(?:\[\d\])?) '
                           r'((?:".*"\n?)+)', entry, re.M)
        fields = {k: "".join(re.findall(r'"(.*)"', v)) for k, v in parts}
        english = fields.get("msgid", "")
        if not any(re.search(r"\b" + p, english) for p in LM_HEAD_PHRASES):
            continue
        for key, value in fields.items():
            if key.startswith("msgstr") and (attention in value or
                                             output not in value):
                found.append(value[:120])
    return found


def main():
    langs = lines("LINGUAS")
    sources = lines("POTFILES")
    ok(set(langs) == {"pt_BR", "es", "zh_CN", "zh_TW"},
       "LINGUAS: pt_BR, es, zh_CN, zh_TW", langs)
    with tempfile.TemporaryDirectory() as tmp:
        pot = os.path.join(tmp, "fresh.pot")
        r = subprocess.run(
            ["xgettext", "--from-code=UTF-8", "--keyword=_", "--keyword=N_",
             "--keyword=NN_:1,2",
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
    for lang, word in (("zh_CN", "\u8bcd\u5143"),
                       ("zh_TW", "\u8a5e\u5143")):
        latin = latin_tokens(os.path.join(PO, lang + ".po"))
        ok(not latin, "%s.po writes %s for a token, as the page does (Latin "
           "\"token\" only in names: --tokens, next_tokens, "
           "tokenizer.json)" % (lang, word), latin[:5])
    for lang, (attention, output) in sorted(LM_HEAD_WORDS.items()):
        wrong = lm_head_as_head(os.path.join(PO, lang + ".po"), attention,
                                output)
        ok(not wrong, "%s.po calls the lm_head %s, never %s, which reads as "
           "an attention head" % (lang, output, attention), wrong[:3])
    marked = []
    names = sorted(os.path.relpath(p, ROOT) for p in
                   glob.glob(os.path.join(ROOT, "src", "**", "*.[ch]"),
                             recursive=True))
    for name in names:
        if os.path.basename(name) != "i18n.h":
            with open(os.path.join(ROOT, name), encoding="utf-8") as f:
                if re.search(r"\b(_|N_|ngettext)\(\"", f.read()):
                    marked.append(name)
    ok(set(marked) <= set(sources), "every file with marked messages is in "
       "POTFILES", sorted(set(marked) - set(sources)))
    bare = []
    for name in names:
        if name.endswith(".c"):
            with open(os.path.join(ROOT, name), encoding="utf-8") as f:
                bare += ["%s:%d: %s" % (name, line, text)
                         for line, text in untranslated(f.read())]
    ok(not bare, "no message reaches the user without gettext: every "
       "fprintf(stderr, ...), error and allocation name is marked", bare)
    return done()


if __name__ == "__main__":
    sys.exit(main())
