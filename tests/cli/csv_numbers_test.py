#!/usr/bin/env python3
"""The CSV readers' numbers against PyTorch: every case of
csv_numbers.json (made by make_csv_numbers.py with real PyTorch and
numpy) read through --embeddings and --weights.

A case PyTorch reads and the CSV syntax allows must give the same float32
bits as torch.tensor(float(text)); every other case must be refused with
the error its kind names (status 2, one line naming file:line:column,
nothing on stdout): never read as some other value.

Usage: csv_numbers_test.py MHA_EXPLAIN CSV_NUMBERS_JSON

Prints TAP. Python 3 standard library only.
"""
import csv
import io
import json
import os
import struct
import sys
import tempfile

from taplib import Program, done, ok

MHA = Program(sys.argv[1])
with open(sys.argv[2], encoding="utf-8") as f:
    DATA = json.load(f)
CASES = DATA["cases"]

MESSAGES = {
    "empty": "an empty cell where a number belongs",
    "not a number": "not a number",
    "too large": "a number too large for float32",
}


def cell(text, delimiter):
    """text as one quoted CSV cell."""
    del delimiter
    return '"' + text.replace('"', '""') + '"'


def bits_of(value_text, decimal_comma):
    """The float32 bits of a value the program wrote (shortest text)."""
    if decimal_comma:
        value_text = value_text.replace(",", ".")
    v = struct.unpack("<I", struct.pack("<f", float(value_text)))[0]
    return "%08x" % v


def values(stdout, table, delimiter):
    """{row: value text} of the tidy CSV's table."""
    out = {}
    reader = csv.DictReader(io.StringIO(stdout.decode("utf-8")),
                            delimiter=delimiter)
    for row in reader:
        if row["table"] == table:
            out[int(row["row"])] = row["value"]
    return out


def style(decimal_comma):
    return (["--decimal-comma", "--csv-delimiter", ";"], ";") \
        if decimal_comma else ([], ",")


def accepted(tmp, decimal_comma):
    """The "same" cases, all in one file, through both readers."""
    cases = [c for c in CASES
             if c["decimal_comma"] == decimal_comma and c["expect"] == "same"]
    args, d = style(decimal_comma)
    kind = "decimal comma" if decimal_comma else "decimal point"
    # --embeddings: one token per case, d_model 1
    path = os.path.join(tmp, "embeddings.csv")
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("token%sa\n" % d)
        for i, c in enumerate(cases):
            f.write("r%d%s%s\n" % (i, d, cell(c["text"], d)))
    r = MHA.run(["--embeddings", path, "--variant", "single", "--format",
                 "csv", "--tables", "inputs"] + args)
    got = values(r.stdout, "inputs", d) if r.returncode == 0 else {}
    wrong = [(c["text"][:60], got.get(i), c["torch"])
             for i, c in enumerate(cases)
             if i not in got or bits_of(got[i], decimal_comma) != c["torch"]]
    ok(r.returncode == 0 and not wrong,
       "--embeddings (%s): %d numbers read as PyTorch reads them"
       % (kind, len(cases)), (r.stderr[:300], wrong[:10]))
    # --weights: W_query.weight of the single head, one row per case
    wdir = os.path.join(tmp, "weights%d" % decimal_comma)
    os.mkdir(wdir)
    with open(os.path.join(wdir, "single.W_query.weight.csv"), "w",
              encoding="utf-8", newline="") as f:
        f.write("token%sin0\n" % d)
        for i, c in enumerate(cases):
            f.write("out%d%s%s\n" % (i, d, cell(c["text"], d)))
    r = MHA.run(["S", "--d-model", "1", "--d-out", str(len(cases)),
                 "--heads", "1", "--variant", "single", "--weights", wdir,
                 "--format", "csv", "--tables", "W_query.weight"] + args)
    got = values(r.stdout, "W_query.weight", d) if r.returncode == 0 else {}
    wrong = [(c["text"][:60], got.get(i), c["torch"])
             for i, c in enumerate(cases)
             if i not in got or bits_of(got[i], decimal_comma) != c["torch"]]
    ok(r.returncode == 0 and not wrong,
       "--weights (%s): %d numbers read as PyTorch reads them"
       % (kind, len(cases)), (r.stderr[:300], wrong[:10]))
    return len(cases)


def refused(tmp):
    """Every other case, in a file of its own: the error of its kind."""
    n = 0
    for i, c in enumerate(CASES):
        if c["expect"] == "same":
            continue
        n += 1
        args, d = style(c["decimal_comma"])
        path = os.path.join(tmp, "refused%d.csv" % i)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write("token%sa\nx%s%s\n" % (d, d, cell(c["text"], d)))
        r = MHA.run(["--embeddings", path, "--variant", "single"] + args)
        lines = r.stderr.decode("utf-8", "replace").splitlines()
        want = "%s:2:3: %s" % (path, MESSAGES[c["expect"]])
        ok(r.returncode == 2 and r.stdout == b"" and len(lines) == 1 and
           lines[0].startswith("mha-explain: " + want),
           "%r%s: refused, %s (float(): %s, PyTorch: %s)"
           % (c["text"][:40], " with --decimal-comma"
              if c["decimal_comma"] else "", c["expect"], c["python"],
              c["torch"]), (r.returncode, r.stdout[:100], r.stderr[:300]))
    return n


def main():
    ok(len(CASES) >= 100 and all(c["torch"] == c["numpy"] for c in CASES),
       "csv_numbers.json: %d cases from torch %s and numpy %s, which agree"
       % (len(CASES), DATA["torch"], DATA["numpy"]))
    with tempfile.TemporaryDirectory() as tmp:
        same = accepted(tmp, False) + accepted(tmp, True)
        bad = refused(tmp)
    print("# %d numbers read as PyTorch reads them, %d refused" % (same, bad))
    return done()


if __name__ == "__main__":
    sys.exit(main())
