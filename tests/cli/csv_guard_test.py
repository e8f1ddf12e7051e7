#!/usr/bin/env python3
"""CSV text cells that a spreadsheet would read as formulas: a token,
label or header that starts with = + - @ (after any apostrophes) is
written with one apostrophe more (base/csv_guard.h), in --format csv and
in --csv-dir files; numbers never are; and the readers of those files
(--embeddings, --weights) take the apostrophe off again, so a word reads
back as it was.

Usage: csv_guard_test.py MHA_EXPLAIN

Prints TAP. Python 3 standard library only.
"""
import csv
import io
import os
import re
import sys
import tempfile

from taplib import Program, done, ok

MHA = Program(sys.argv[1])
# each kind of cell once: the four formula starts, an apostrophe before
# one, words that stay as they are ('s, x=1), and one that needs quotes
WORDS = ["=SUM(A1)", "+a", "-b", "@c", "'=d", "'s", "x=1", "=e,f", "cat"]
WRITTEN = ["'=SUM(A1)", "'+a", "'-b", "'@c", "''=d", "'s", "x=1", "'=e,f",
           "cat"]
SENTENCE = " ".join(WORDS)
NUMBER = re.compile(r"^-?(\d+(\.\d+)?(e[-+]\d+)?|inf|nan)$")


def rows(text, delimiter=","):
    return list(csv.reader(io.StringIO(text), delimiter=delimiter))


def tidy():
    r = MHA.run([SENTENCE, "--variant", "single", "--tables",
                 "inputs,attn_weights", "--format", "csv"])
    t = rows(r.stdout.decode("utf-8"))
    inputs = [row for row in t[1:] if row[2] == "inputs"]
    ok(r.returncode == 0 and
       [row[4] for row in inputs if row[5] == "0"] == WRITTEN,
       "--format csv: a row label that starts a formula gets an apostrophe",
       r.stderr)
    weights = [row for row in t[1:] if row[2] == "attn_weights"]
    ok(sorted(set(row[6] for row in weights)) ==
       sorted("K:" + w for w in WORDS),
       "--format csv: a label that starts with no formula (K:=SUM(A1)) "
       "stays as it is")
    ok(b"\"'=e,f\"" in r.stdout,
       "a guarded cell that needs quotes: the apostrophe inside them")
    values = [row[7] for row in t[1:]]
    ok(all(NUMBER.match(v) for v in values) and
       any(v.startswith("-") for v in values),
       "the numbers stay as they are, a minus sign first")


def embeddings(tmp):
    d = os.path.join(tmp, "inputs")
    r = MHA.run([SENTENCE, "--variant", "single", "--tables", "inputs",
                 "--csv-dir", d])
    path = os.path.join(d, "input.inputs.csv")
    with open(path, encoding="utf-8") as f:
        t = rows(f.read())
    ok(r.returncode == 0 and [row[0] for row in t[1:]] == WRITTEN and
       all(NUMBER.match(v) for row in t[1:] for v in row[1:]),
       "--csv-dir: the labels guarded, the numbers as they are", r.stderr)
    again = MHA.run(["--embeddings", path, "--variant", "single", "--tables",
                     "inputs", "--format", "csv"])
    first = MHA.run([SENTENCE, "--variant", "single", "--tables", "inputs",
                     "--format", "csv"])
    ok(again.returncode == 0 and again.stdout == first.stdout,
       "--embeddings reads the guarded labels back as the words they were",
       again.stderr)


def trained(tmp):
    corpus = os.path.join(tmp, "corpus.csv")
    with open(corpus, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["text"])
        w.writerow([SENTENCE])
        w.writerow(["the cat =SUM(A1) sat"])
    d = os.path.join(tmp, "model")
    opts = ["--corpus", corpus, "--column", "text", "--variant", "block",
            "--d-model", "8", "--heads", "2", "--csv-delimiter", ";",
            "--decimal-comma"]
    r = MHA.run(["the cat", "--train", "20", "--csv-dir", d, "--tables",
                 "loss", "--format", "csv"] + opts)
    ok(r.returncode == 0, "a corpus of formula-like words trains and saves",
       r.stderr)
    with open(os.path.join(d, "block.embedding.weight.csv"),
              encoding="utf-8") as f:
        labels = [row[0] for row in rows(f.read(), ";")[1:]]
    ok("'=SUM(A1)" in labels and "''=d" in labels and "'s" in labels and
       "=SUM(A1)" not in labels,
       "the trained embedding's rows: formula-like words guarded")
    loss = rows(r.stdout.decode("utf-8"), ";")[-1][7]
    again = MHA.run(["the cat", "--weights", d, "--tables", "loss",
                     "--format", "csv", "--csv-delimiter", ";",
                     "--decimal-comma"])
    ok(again.returncode == 0 and
       rows(again.stdout.decode("utf-8"), ";")[-1][7] == loss,
       "--weights reads the guarded vocabulary back: the same final loss",
       again.stderr)
    words = MHA.run(["=SUM(A1) '=d -b", "--weights", d, "--tables",
                     "inputs", "--format", "csv"])
    t = rows(words.stdout.decode("utf-8"))[1:]
    ok(words.returncode == 0 and
       [row[4] for row in t if row[5] == "0"] == ["'=SUM(A1)", "''=d", "'-b"],
       "--weights: the trained words are the words, written guarded again",
       words.stderr)


with tempfile.TemporaryDirectory() as tmp:
    tidy()
    embeddings(tmp)
    trained(tmp)
done()
