#!/usr/bin/env python3
"""CLI tests for other languages: --tokens chars, --lang and the locale.

Usage: i18n_test.py MHA_EXPLAIN GOLDEN_DIR

Prints TAP. A sentence cut with --tokens chars must give exactly what the
same sentence gives with its characters already separated by spaces and
the default --tokens words: the cut is the only difference. Messages
follow --lang or the environment's locale, on a system whose only
generated locale is C.UTF-8; numbers and CSV bytes never do.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from taplib import Program, done, ok

MHA = Program(sys.argv[1])
GOLDEN = sys.argv[2]
run = MHA.run
check_error = MHA.check_error

HK = "法國紅酒慢煮阿根廷牛舌 配 煙肉洋蔥炒著仔"
# One user-perceived character each: an emoji with skin tone and ZWJ, a
# flag, letters with combining marks.
MIXED = "👩🏽‍💻🇧🇷 cafe\u0301 n\u0303"
MIXED_CUT = "👩🏽‍💻 🇧🇷 c a f e\u0301 n\u0303"


def spaced(text):
    return " ".join(c for c in text if not c.isspace())


def tables(out):
    """Output without the '=== sentence N: ... ===' lines of --input, which
    repeat the sentence as written."""
    return b"".join(line for line in out.splitlines(True)
                    if not line.startswith(b"=== sentence "))


def same(name, chars_args, words_args):
    a = run(chars_args)
    b = run(words_args)
    ok(a.returncode == 0 and b.returncode == 0 and
       tables(a.stdout) == tables(b.stdout) and
       a.stdout != b"", name,
       "status %d/%d, stderr %r %r" % (a.returncode, b.returncode,
                                       a.stderr[:300], b.stderr[:300]))


def tokens():
    r = run(["--tokens", "chars", HK, "--tables", "tokens", "--format", "csv"])
    rows = r.stdout.decode().splitlines()
    ok(r.returncode == 0 and len(rows) == 1 + 19,
       "the Hong Kong sentence is 19 tokens with --tokens chars",
       r.stdout.decode())
    r = run([HK, "--tables", "tokens", "--format", "csv"])
    ok(r.returncode == 0 and len(r.stdout.decode().splitlines()) == 1 + 3,
       "and 3 with the default --tokens words")
    same("--tokens words is the default",
         ["--tokens", "words", HK], [HK])
    same("--tokens chars = the characters separated by spaces",
         ["--tokens", "chars", HK, "--heads", "2"], [spaced(HK), "--heads", "2"])
    same("emoji, flags and combining marks stay whole",
         ["--tokens", "chars", MIXED, "--variant", "single", "--no-causal"],
         [MIXED_CUT, "--variant", "single", "--no-causal"])
    same("--kv: both sentences are cut",
         ["--tokens", "chars", "牛舌好食", "--kv", HK],
         [spaced("牛舌好食"), "--kv", spaced(HK)])
    same("--focus names a character",
         ["--tokens", "chars", HK, "--focus", "牛"],
         [spaced(HK), "--focus", "牛"])
    same("--focus CHARACTER@POSITION",
         ["--tokens", "chars", "牛舌和牛舌", "--focus", "牛@3"],
         [spaced("牛舌和牛舌"), "--focus", "牛@3"])
    with tempfile.TemporaryDirectory() as d:
        raw = os.path.join(d, "raw.csv")
        cut = os.path.join(d, "cut.csv")
        with open(raw, "w", encoding="utf-8") as f:
            f.write("句子\n%s\n牛舌好食\n" % HK)
        with open(cut, "w", encoding="utf-8") as f:
            f.write("句子\n%s\n%s\n" % (spaced(HK), spaced("牛舌好食")))
        same("--input: every row is cut",
             ["--tokens", "chars", "--input", raw, "--column", "句子",
              "--tables", "tokens,attn_weights"],
             ["--input", cut, "--column", "句子", "--tables",
              "tokens,attn_weights"])
    check_error(["--tokens", "letters", "a"], "--tokens: 'letters'", hint=True)
    check_error(["--tokens", "chars", "--embeddings", "x.csv"],
                "--tokens", hint=True)
    check_error(["--tokens", "chars", " \u3000 "], "empty")


HINT = {
    "en": "Try 'mha-explain --help' for more information.",
    "pt_BR": "Use 'mha-explain --help' para mais informações.",
    "es": "Pruebe 'mha-explain --help' para más información.",
    "zh_CN": "运行“mha-explain --help”查看更多信息。",
    "zh_TW": "執行「mha-explain --help」查看更多資訊。",
}
# No locale of these languages is generated on the test machines (only
# C.UTF-8 is needed): gettext must still translate.
BARE = {"LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": ""}


def hint_of(r):
    lines = r.stderr.decode("utf-8", "replace").splitlines()
    return lines[-1] if lines else ""


def env(**kw):
    e = dict(BARE)
    e.update(kw)
    return e


def languages():
    bad = ["--heads", "3", "a"]
    for lang, hint in HINT.items():
        r = run(["--lang", lang] + bad, env=BARE)
        ok(r.returncode == 2 and hint_of(r) == hint,
           "--lang %s: the hint in that language" % lang, r.stderr)
    r = run(["--lang=pt_BR"] + bad, env=BARE)
    ok(hint_of(r) == HINT["pt_BR"], "--lang=CODE")
    r = run(["--lang", "es"] + bad, env=env(LC_ALL="C"))
    ok(hint_of(r) == HINT["es"], "--lang overrides LC_ALL=C")
    r = run(["--lang", "en"] + bad, env=env(LANG="pt_BR.UTF-8"))
    ok(hint_of(r) == HINT["en"], "--lang en overrides LANG=pt_BR.UTF-8")
    r = run(bad, env=env(LANG="zh_TW.UTF-8"))
    ok(hint_of(r) == HINT["zh_TW"],
       "LANG=zh_TW.UTF-8 (not generated) still chooses the language",
       r.stderr)
    r = run(bad, env=env(LC_MESSAGES="es_ES.UTF-8", LANG="pt_BR.UTF-8"))
    ok(hint_of(r) == HINT["es"], "LC_MESSAGES before LANG", r.stderr)
    r = run(bad, env=env(LC_ALL="C.UTF-8", LANGUAGE="zh_CN"))
    ok(hint_of(r) == HINT["zh_CN"], "LANGUAGE with a C.UTF-8 locale",
       r.stderr)
    r = run(bad, env=env(LC_ALL="C", LANGUAGE="zh_CN"))
    ok(hint_of(r) == HINT["en"], "LC_ALL=C: English, as gettext does")
    r = run(bad, env=BARE)
    ok(hint_of(r) == HINT["en"], "no locale set: English")
    # the codes people write: a language alone, '-' for '_', any case,
    # a codeset; a country without a catalogue falls back to its language
    for code, lang in (("pt", "pt_BR"), ("pt-BR", "pt_BR"), ("pt_br", "pt_BR"),
                       ("PT_BR.utf8", "pt_BR"), ("pt_PT", "pt_BR"),
                       ("zh-TW", "zh_TW"), ("zh_tw", "zh_TW"),
                       ("zh", "zh_CN"), ("es-MX", "es"), ("en_GB", "en")):
        r = run(["--lang", code] + bad, env=BARE)
        ok(hint_of(r) == HINT[lang] and b"note" not in r.stderr,
           "--lang %s: %s" % (code, lang), r.stderr)
    for var, value in (("LANG", "pt_PT.UTF-8"), ("LANGUAGE", "pt"),
                       ("LANGUAGE", "pt_PT:en"), ("LC_ALL", "zh_HK.UTF-8")):
        extra = {var: value}
        if var == "LANGUAGE":
            extra["LC_ALL"] = "C.UTF-8"
        r = run(bad, env=env(**extra))
        want = "zh_CN" if value.startswith("zh") else "pt_BR"
        ok(hint_of(r) == HINT[want], "%s=%s: %s" % (var, value, want),
           r.stderr)
    r = check_error(["--lang", "fr", "a"], "--lang: unknown language 'fr' "
                    "(available: en pt_BR es zh_CN zh_TW)", hint=True)
    r = run(["--lang", "fr", "a"], env=env(LANG="pt_BR.UTF-8"))
    ok(r.returncode == 2 and "idioma desconhecido 'fr'" in r.stderr.decode()
       and hint_of(r) == HINT["pt_BR"],
       "an unknown --lang is reported in the environment's language",
       r.stderr)
    # the C library's words (strerror) keep their letters: its catalogue
    # is read in UTF-8 too, where the system has it
    libc_mo = "/usr/share/locale/pt_BR/LC_MESSAGES/libc.mo"
    if os.path.exists(libc_mo):
        r = run(["--lang", "pt_BR", "--input", "/nonexistent", "--column",
                 "x"], env=BARE)
        ok(r.returncode == 2 and "diretório" in r.stderr.decode("utf-8"),
           "strerror's words in Portuguese, accents kept", r.stderr)
    else:
        ok(True, "# SKIP no pt_BR catalogue of the C library (%s)" % libc_mo)
    with tempfile.TemporaryDirectory() as d:
        r = run(["--lang", "es"] + bad, env=BARE, cwd=d)
        ok(hint_of(r) == HINT["es"],
           "the uninstalled program finds its catalogues from any directory")
    # Only messages change: the CSV bytes, numbers and --csv-dir files are
    # the same in every language.
    args = [S, "--format", "csv", "--tables", "inputs,attn_weights,out"]
    outs = {run(args + ["--lang", lang], env=BARE).stdout for lang in HINT}
    outs.add(run(args, env=env(LANG="pt_BR.UTF-8", LC_NUMERIC="pt_BR.UTF-8"))
             .stdout)
    ok(len(outs) == 1 and b"0." in next(iter(outs)),
       "CSV output is byte-identical in every language")
    with tempfile.TemporaryDirectory() as d:
        files = set()
        for lang in HINT:
            out = os.path.join(d, lang)
            r = run([S, "--csv-dir", out, "--lang", lang,
                     "--tables", "vocab,attn_weights,out"], env=BARE)
            files.add(tuple((n, open(os.path.join(out, n), "rb").read())
                            for n in sorted(os.listdir(out))))
        ok(len(files) == 1 and len(next(iter(files))) > 2,
           "--csv-dir files are byte-identical in every language")


S = "O gato sobe no tapete"

LANGS = ["pt_BR", "es", "zh_CN", "zh_TW"]


def golden_args(lang):
    """The arguments of tests/cli/golden/explain-LANG.txt (cli_test.py checks
    that output; it shows every --explain note, the four modules', the
    block's steps and the average), without --lang LANG."""
    with open(os.path.join(GOLDEN, "explain-%s.args" % lang),
              encoding="utf-8") as f:
        args = f.read().split("\n")[:-1]
    return args[:-2]


def cells(line):
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else
               0 if unicodedata.combining(c) else 1 for c in line)


def explain():
    """The narration in each language (its goldens are checked by
    cli_test.py): only the notes change, and their lines fit."""
    for lang in LANGS:
        args = golden_args(lang)
        r = run(args + ["--lang", lang], env=BARE)
        ok(r.returncode == 0 and r.stderr == b"", "%s: --explain runs" % lang,
           r.stderr)
        english = run(args + ["--lang", "en"], env=BARE).stdout
        strip = lambda out: [l for l in out.splitlines() if not
                             l.startswith((b"#", b"["))]
        ok(strip(r.stdout) == strip(english) and r.stdout != english,
           "%s: only the notes and headings differ from English; tables "
           "are the same" % lang)
        for width in (80, 40):
            out = run(args + ["--width", str(width), "--lang", lang],
                      env=BARE).stdout.decode()
            notes = [l for l in out.splitlines() if l.startswith("# ")]
            wide = [l for l in notes if cells(l) > width - 2 + 2]
            ok(notes and not wide and not [l for l in notes if
                                           l.endswith(" ")],
               "%s: notes wrap within %d cells, no trailing space"
               % (lang, width), wide)
    r = run([S, "--explain", "--no-scale", "--variant", "single", "--kv",
             "o cão", "--lang", "es", "--tables", "kv_inputs,attn_weights"],
            env=BARE)
    out = r.stdout.decode()
    ok("Atención cruzada (--kv)" in out and "sin dividir entre" in out,
       "the --kv and --no-scale notes are translated")


def separators():
    """Parameter counts: a comma between thousands in English and Chinese,
    a no-break space in Portuguese and Spanish (whose comma is a decimal
    comma), whatever LC_NUMERIC says."""
    args = [S, "--explain", "--variant", "fused", "--d-model", "512",
            "--d-out", "512", "--heads", "8", "--qkv-bias", "--tables", "out"]
    want = {"en": "1,050,624", "zh_CN": "1,050,624", "zh_TW": "1,050,624",
            "pt_BR": "1\u00a0050\u00a0624", "es": "1\u00a0050\u00a0624"}
    for lang, count in want.items():
        for numeric in ("C.UTF-8", "de_DE.UTF-8", "pt_BR.UTF-8"):
            r = run(args + ["--lang", lang], env=env(LC_NUMERIC=numeric))
            notes = " ".join(l[2:] for l in r.stdout.decode().splitlines()
                             if l.startswith("# "))
            ok(r.returncode == 0 and
               re.search("= %s[.。]" % count, notes) is not None,
               "%s, LC_NUMERIC=%s: 1,050,624 parameters written %r"
               % (lang, numeric, count), notes[-200:])


def help_text():
    """--help in each language: every option, lines within 80 cells."""
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                            "..", "src", "cli", "option_list.h"),
               encoding="utf-8").read()
    names = re.findall(r'^OPTION\(\w+, "([a-z-]+)"', src, re.M)
    english = run(["--help"], env=BARE).stdout
    for lang in LANGS:
        r = run(["--help", "--lang", lang], env=BARE)
        text = r.stdout.decode()
        missing = [n for n in names if "--" + n not in text]
        wide = [l for l in text.splitlines() if cells(l) > 80]
        ok(r.returncode == 0 and names and not missing and not wide and
           r.stdout != english and "mha-explain" in text,
           "--help in %s: every option, translated, within 80 cells" % lang,
           (missing, wide))


def prose():
    """Headings, --focus and --check in another language."""
    r = run([S, "--lang", "pt_BR", "--variant", "wrapper", "--tables",
             "attn_weights"], env=BARE)
    ok(b"[wrapper] cabe\xc3\xa7a 0: attn_weights (5 x 5)" in r.stdout,
       "headings: 'head' translated, table names kept", r.stdout[:200])
    r = run([S, "--lang", "es", "--focus", "gato", "--variant", "single"],
            env=BARE)
    ok(r.stdout.startswith("foco: gato (posición 1 de 5)".encode()),
       "--focus heading translated", r.stdout[:200])
    r = run([S, "--lang", "zh_CN", "--check", "--variant", "single",
             "--tables", "attn_weights"], env=BARE)
    out = r.stdout.decode()
    ok(r.returncode == 0 and "[check] attn_weights 每行之和为 1" in out and
       "通过" in out, "--check report translated", out[-400:])


def started():
    """The catalogues are found however the program is started: from PATH,
    through a symlink, and installed with DESTDIR (staged), then moved."""
    bad = ["--heads", "3", "a", "--lang", "zh_TW"]
    program = os.path.abspath(sys.argv[1])
    prefix = MHA.prefix

    def hint(command, cwd=None, path=None):
        e = dict(os.environ, **BARE)
        if path is not None:
            e["PATH"] = path + os.pathsep + e.get("PATH", "")
        r = subprocess.run(prefix + command + bad, env=e, cwd=cwd,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=600)
        return r.returncode, hint_of(r)

    with tempfile.TemporaryDirectory() as d:
        got = hint(["mha-explain"], cwd=d, path=os.path.dirname(program))
        ok(got == (2, HINT["zh_TW"]),
           "run from PATH: --lang zh_TW is translated", got)
        link = os.path.join(d, "mha-explain")
        os.symlink(program, link)
        got = hint([link], cwd=d)
        ok(got == (2, HINT["zh_TW"]),
           "run through a symlink in another directory: translated", got)
        os.remove(link)
        got = hint(["mha-explain"], cwd=d, path=d + os.pathsep +
                   os.path.dirname(program))
        ok(got == (2, HINT["zh_TW"]), "the same from PATH", got)
    with tempfile.TemporaryDirectory() as d:
        alone = os.path.join(d, "bin", "mha-explain")
        os.mkdir(os.path.dirname(alone))
        shutil.copy(program, alone)
        e = dict(os.environ, **BARE)
        r = subprocess.run(prefix + [alone, "x", "--tables", "vocab",
                                     "--lang", "zh_TW"], env=e, cwd=d,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        err = r.stderr.decode("utf-8", "replace")
        ok(r.returncode == 0 and b"[input] vocab" in r.stdout and
           err.startswith("mha-explain: note: --lang zh_TW: no translations "
                          "found in ") and err.count("\n") == 1,
           "a program copied without its catalogues says so in one line, "
           "then runs in English", err)
        r = subprocess.run(prefix + [alone, "x", "--tables", "vocab",
                                     "--lang", "en"], env=e, cwd=d,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ok(r.returncode == 0 and r.stderr == b"",
           "... but not for --lang en", r.stderr)
    meson = shutil.which("meson")
    build = os.path.dirname(os.path.dirname(program))
    if meson is None or not os.path.isdir(os.path.join(build, "meson-info")):
        ok(True, "# SKIP meson or the build directory is not at hand")
        return
    with tempfile.TemporaryDirectory() as d:
        stage = os.path.join(d, "stage")
        r = subprocess.run([meson, "install", "-C", build, "--destdir", stage,
                            "--no-rebuild", "--quiet"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        staged = [os.path.join(root, f) for root, _, files in os.walk(stage)
                  for f in files if f == "mha-explain" and
                  os.path.basename(root) == "bin"]
        ok(r.returncode == 0 and len(staged) == 1,
           "meson install --destdir stages the program", r.stdout[-500:])
        if not staged:
            return
        got = hint([staged[0]], cwd=d)
        ok(got == (2, HINT["zh_TW"]),
           "the staged program finds the staged catalogues", got)
        moved = os.path.join(d, "elsewhere")
        os.rename(os.path.dirname(os.path.dirname(staged[0])), moved)
        got = hint([os.path.join(moved, "bin", "mha-explain")], cwd=d)
        ok(got == (2, HINT["zh_TW"]),
           "an installed tree moved elsewhere finds its catalogues", got)
        got = hint(["mha-explain"], cwd=d, path=os.path.join(moved, "bin"))
        ok(got == (2, HINT["zh_TW"]), "... also from PATH", got)


def main():
    started()
    tokens()
    prose()
    languages()
    explain()
    separators()
    help_text()
    return done()


if __name__ == "__main__":
    sys.exit(main())
