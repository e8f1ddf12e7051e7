#!/usr/bin/env python3
"""PyTorch's tables of runs too large to commit whole, as digests.

The Chinese notebook's module (docs/notebooks.md) is 512 wide with 8
heads: its tables hold about a million values, some 40 MB as tidy CSV.
For each such case this writes, into OUTDIR (default: the
`digest` folder beside this script):

  NAME.args    the mha-explain arguments, one a line (the notebook's
               command, without --explain and --tables)
  NAME.digest  one line per table, in the program's order:
               variant,head,table,rows,cols,sha256 where sha256 is the
               SHA-256 of the table's float32 values in row-major order,
               each written as the 8 lowercase hex digits of its IEEE bits
               and a newline ("3f800000\\n" for 1.0): exact, whatever the
               decimal formatting
  NAME.csv     the tables of at most SMALL values, whole, as tidy CSV (the
               layout of --format csv), so that a difference there shows
               its row, column and values

The tables come from make_reference.py's notebook modules (torch.manual_seed,
nn.Embedding, then the module), written first as a full tidy CSV in a
temporary folder. tests/reference/reference_digest_test.py compares the
program's --format csv output with these files.

    /usr/bin/python3 tests/reference/make_reference_digest.py [OUTDIR]
"""

import csv
import hashlib
import os
import struct
import sys
import tempfile

import torch

from make_reference import run_case

SMALL = 2048

CASES = [
    # docs/notebooks.md, "The 512-wide, 8-head module of the Chinese
    # notebook": the first sentence of data/sentences-zh.csv
    {"name": "zh_notebook_512", "sentence": "我 喜欢 吃 牛舌",
     "d_model": 512, "d_out": 512, "heads": 8, "seed": 42, "causal": False,
     "qkv_bias": True, "variants": ["fused"],
     "args": ["我 喜欢 吃 牛舌", "--d-model", "512", "--d-out", "512",
              "--heads", "8", "--qkv-bias", "--no-causal", "--variant",
              "fused"]},
]


def bits(text):
    """The IEEE bits of a float32 written as text, as 8 hex digits."""
    return struct.pack(">f", float(text)).hex()


def tables_of(path):
    """[(key, rows), ...] of a tidy CSV: key = (variant, head, table), rows
    its CSV rows in order."""
    tables = []
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        for row in reader:
            key = tuple(row[:3])
            if not tables or tables[-1][0] != key:
                tables.append((key, []))
            tables[-1][1].append(row)
    return header, tables


def digest(rows):
    """rows, cols and the SHA-256 of a table's values (see above)."""
    h = hashlib.sha256()
    for row in rows:
        h.update((bits(row[7]) + "\n").encode("ascii"))
    return (1 + max(int(r[3]) for r in rows), 1 + max(int(r[5]) for r in rows),
            h.hexdigest())


def make(case, outdir):
    with tempfile.TemporaryDirectory() as tmp:
        run_case(case, tmp)
        header, tables = tables_of(os.path.join(tmp, case["name"] + ".csv"))
    name = os.path.join(outdir, case["name"])
    with open(name + ".args", "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(case["args"]) + "\n")
    small = 0
    with open(name + ".digest", "w", encoding="utf-8", newline="\n") as d, \
            open(name + ".csv", "w", encoding="utf-8", newline="") as c:
        d.write("variant,head,table,rows,cols,sha256\n")
        out = csv.writer(c, lineterminator="\n")
        out.writerow(header)
        for key, rows in tables:
            d.write("%s,%s,%s,%d,%d,%s\n" % (key + digest(rows)))
            if len(rows) <= SMALL:
                out.writerows(rows)
                small += 1
    return len(tables), small


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = argv[1] if len(argv) > 1 else os.path.join(here, "digest")
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(1)
    for case in CASES:
        n, small = make(case, outdir)
        print("%s: %d tables, %d of them whole" % (case["name"], n, small))


if __name__ == "__main__":
    main(sys.argv)
