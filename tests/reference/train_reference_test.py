#!/usr/bin/env python3
"""Training runs (--train) against PyTorch's, bit for bit.

Usage: train_reference_test.py MHA_EXPLAIN DIR

DIR holds, for each case, NAME.args and NAME.digest (and with --corpus
NAME.corpus.csv), written with PyTorch by make_train_reference.py. The
program runs NAME.args ({DIR} replaced by DIR) with --format csv; then
every table of NAME.digest (each parameter after training, the loss of
every step, the logits, every gradient at the final parameters) must be
in the output with that shape, and its values, as float32 bits, must
have that SHA-256: every value is PyTorch's. A stack's CSV (--layers N)
has a layer column: its tables are listed under the head "L/H" (block
L, head H, or "L/" outside the heads). Prints TAP.
"""
import csv
import hashlib
import io
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cli"))
from taplib import Program, done, ok  # noqa: E402

MHA = Program(sys.argv[1])
DIR = sys.argv[2]


def bits(text):
    return struct.pack(">f", float(text)).hex()


def check(name):
    with open(os.path.join(DIR, name + ".args"), encoding="utf-8") as f:
        args = [a.replace("{DIR}", DIR) for a in f.read().split("\n")[:-1]]
    r = MHA.run(args + ["--format", "csv"])
    # the one note a run may print: the wrapper's heads of one column
    notes = [line for line in r.stderr.split(b"\n") if line and
             not line.startswith(b"mha-explain: note: --d-out ")]
    ok(r.returncode == 0 and not notes, "%s runs" % name, r.stderr)
    got = {}
    rows = list(csv.reader(io.StringIO(r.stdout.decode("utf-8"))))
    header = rows[0] if rows else []
    layered = "layer" in header
    for row in rows[1:]:
        if layered:
            # variant, layer, head, ...: the key's head is "L/H" in a block
            head = "%s/%s" % (row[1], row[2]) if row[1] else row[2]
            row = [row[0], head] + row[3:]
        got.setdefault((row[0], row[1], row[2]), []).append(row)
    with open(os.path.join(DIR, name + ".digest"), encoding="utf-8") as f:
        want = list(csv.DictReader(f))
    wrong = []
    values = 0
    for w in want:
        key = (w["variant"], w["head"], w["table"])
        rows = got.get(key, [])
        h = hashlib.sha256()
        for row in rows:
            h.update((bits(row[7]) + "\n").encode("ascii"))
        shape = (1 + max((int(x[3]) for x in rows), default=-1),
                 1 + max((int(x[5]) for x in rows), default=-1))
        values += len(rows)
        if shape != (int(w["rows"]), int(w["cols"])) or \
                h.hexdigest() != w["sha256"]:
            wrong.append("/".join(key))
    ok(want and not wrong, "%s: %d tables, %d values bit for bit as "
       "PyTorch's" % (name, len(want), values), wrong[:12])


def main():
    names = sorted(f[:-5] for f in os.listdir(DIR) if f.endswith(".args"))
    ok(names, "cases in %s: %s" % (DIR, ", ".join(names)))
    for name in names:
        check(name)
    return done()


if __name__ == "__main__":
    sys.exit(main())
