#!/usr/bin/env python3
"""CLI tests for text in other languages: --tokens chars.

Usage: i18n_test.py MHA_EXPLAIN

Prints TAP. A sentence cut with --tokens chars must give exactly what the
same sentence gives with its characters already separated by spaces and
the default --tokens words: the cut is the only difference.
"""
import os
import sys
import tempfile

from taplib import Program, done, ok

MHA = Program(sys.argv[1])
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


def main():
    tokens()
    return done()


if __name__ == "__main__":
    sys.exit(main())
