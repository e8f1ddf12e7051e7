#!/usr/bin/env python3
"""Runs too large to commit whole, against PyTorch's digests.

Usage: reference_digest_test.py MHA_EXPLAIN DIR NOTEBOOKS_TEMPLATE

DIR holds, for each case, NAME.args, NAME.digest and NAME.csv, written
with PyTorch by make_reference_digest.py. The program runs NAME.args with
--format csv; then:
  - it makes the tables of NAME.digest, in that order, with those shapes;
  - each table's values, as float32 bits, have the SHA-256 of NAME.digest
    (so every value is PyTorch's, bit for bit);
  - the tables of NAME.csv (the small ones) have its labels and values,
    so a difference shows where;
  - the case's command is the one docs/notebooks.md documents (its
    template, NOTEBOOKS_TEMPLATE), so the docs' command is the one checked.
Prints TAP.
"""
import csv
import hashlib
import io
import os
import struct
import sys

# taplib.py and ptylib.py live with the command-line tests.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cli"))
from taplib import Program, done, ok  # noqa: E402

MHA = Program(sys.argv[1])
DIR = sys.argv[2]
NOTEBOOKS = sys.argv[3]


def bits(text):
    return struct.pack(">f", float(text)).hex()


def tables(reader):
    """{key: rows} and the keys in order, key = (variant, head, table)."""
    out, order = {}, []
    for row in reader:
        key = tuple(row[:3])
        if key not in out:
            out[key] = []
            order.append(key)
        out[key].append(row)
    return out, order


def check(name):
    with open(os.path.join(DIR, name + ".args"), encoding="utf-8") as f:
        args = f.read().split("\n")[:-1]
    with open(NOTEBOOKS, encoding="utf-8") as f:
        documented = [line.split()[1:] for line in f
                      if line.startswith("@run") and "mha-explain" in line]
    command = " ".join(a if " " not in a else '"%s"' % a for a in args)
    ok(any(command in " ".join(d) for d in documented),
       "%s: the command docs/notebooks.md runs: mha-explain %s"
       % (name, command))

    r = MHA.run(args + ["--format", "csv"])
    ok(r.returncode == 0 and r.stderr == b"", "%s runs" % name, r.stderr)
    reader = csv.reader(io.StringIO(r.stdout.decode("utf-8")))
    next(reader)
    got, got_order = tables(reader)

    with open(os.path.join(DIR, name + ".digest"), encoding="utf-8") as f:
        want = list(csv.DictReader(f))
    keys = [(w["variant"], w["head"], w["table"]) for w in want]
    ok(got_order == keys, "%s: the %d tables of PyTorch's run, in order"
       % (name, len(keys)), (got_order[:5], keys[:5]))
    wrong = []
    values = 0
    for w, key in zip(want, keys):
        rows = got.get(key, [])
        h = hashlib.sha256()
        for row in rows:
            h.update((bits(row[7]) + "\n").encode("ascii"))
        shape = (1 + max((int(r[3]) for r in rows), default=-1),
                 1 + max((int(r[5]) for r in rows), default=-1))
        values += len(rows)
        if shape != (int(w["rows"]), int(w["cols"])) or \
                h.hexdigest() != w["sha256"]:
            wrong.append("%s: shape %s, sha256 %s" % (
                "/".join(key), shape, h.hexdigest()))
    ok(not wrong and values > 0, "%s: all %d values bit for bit as PyTorch's "
       "(SHA-256 of each table)" % (name, values), wrong[:8])

    with open(os.path.join(DIR, name + ".csv"), encoding="utf-8",
              newline="") as f:
        reader = csv.reader(f)
        next(reader)
        small, small_order = tables(reader)
    differ = []
    for key in small_order:
        for a, b in zip(small[key], got.get(key, [])):
            if a[:7] != b[:7] or bits(a[7]) != bits(b[7]):
                differ.append("PyTorch %s, mha-explain %s" % (a, b))
                break
        if len(small[key]) != len(got.get(key, [])):
            differ.append("%s: %d values, PyTorch %d" % (
                "/".join(key), len(got.get(key, [])), len(small[key])))
    ok(small_order and not differ, "%s: the %d small tables, labels and "
       "values, as PyTorch's" % (name, len(small_order)), differ[:8])


def main():
    names = sorted(f[:-5] for f in os.listdir(DIR) if f.endswith(".args"))
    ok(names, "cases in %s: %s" % (DIR, ", ".join(names)))
    for name in names:
        check(name)
    return done()


if __name__ == "__main__":
    sys.exit(main())
