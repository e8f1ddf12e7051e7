#!/usr/bin/env python3
"""Reference output of `--style torch`, printed by real PyTorch.

For N random configurations (variants, sizes, seeds, masks, biases,
--precision, --full, and input files whose values push PyTorch's printer
into integer mode, scientific notation, -0, inf and NaN) this runs
mha-explain with --format csv, rebuilds every table as a float32 tensor of
its shape and writes what `--style torch` must print: each table's header
line, then str(tensor) with PyTorch's print options (precision as
--precision, threshold 1000, or no summary with --full), a blank line
between tables.

Writes into OUTDIR (default: tests/torch_style beside this script)
cNNN.args (the arguments, one a line; input files are beside them) and
cNNN.txt (the expected standard output).

    /usr/bin/python3 tests/make_torch_style.py build/src/mha-explain [N [OUTDIR]]
"""

import csv
import io
import math
import os
import random
import subprocess
import sys

import torch

WORDS = ("o gato sobe no tapete the cat sat on mat 我 喜欢 吃 牛舌 和 慢煮 "
         "呢間 餐廳 好 出名 el perro come la casa a b c").split()


def sentence(rng, n):
    return " ".join(rng.choice(WORDS[:rng.randint(2, len(WORDS))])
                    for _ in range(n))


def value_text(rng, kind):
    """A number for an input file that steers the printer's mode."""
    if kind == "int":
        return str(rng.randint(-9, 9))
    if kind == "bigint":
        return str(rng.choice([0, 1, -3, 2000, 123456789, 5]))
    if kind == "tiny":
        return "%.6g" % rng.uniform(-1e-5, 1e-5)
    if kind == "huge":
        return rng.choice(["3e38", "-2e37", "1.5", "0", "-0"])
    if kind == "halves":  # fixed mode with -0.0000
        return rng.choice(["0.5", "-0", "0.25", "-1.5", "0", "-0.125"])
    if kind == "zeros":
        return rng.choice(["0", "-0", "0", "0.0"])
    return "%.7g" % rng.gauss(0, rng.choice([0.01, 1, 100, 1e5]))


def write_embeddings(path, rng, T, D, kind):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(",".join(["token"] + ["d%d" % j for j in range(D)]) + "\n")
        for t in range(T):
            f.write(",".join(["t%d" % rng.randint(0, T)] +
                             [value_text(rng, kind) for _ in range(D)]) + "\n")


def configuration(rng, i, outdir):
    """The arguments of configuration i (input files written to outdir)."""
    name = "c%03d" % i
    heads = rng.choice([1, 1, 2, 2, 3, 4, 8])
    d_out = heads * rng.choice([1, 2, 3, 4, 8, 16])
    args = ["--heads", str(heads), "--d-out", str(d_out),
            "--seed", str(rng.randint(0, 2 ** 40))]
    variants = rng.sample(["single", "wrapper", "fused"], rng.randint(1, 3))
    if rng.random() < 0.2:
        variants = ["block"]
    kind = rng.choice(["normal", "normal", "int", "bigint", "tiny", "huge",
                       "zeros", "halves", None, None, None])
    T = rng.choice([1, 2, 3, 5, 7, 12, 40])
    if variants == ["block"]:
        D = d_out
    else:
        D = rng.choice([1, 2, 3, 4, 5, 9, 16, 33])
    if kind is not None:
        write_embeddings(os.path.join(outdir, name + ".csv"), rng, T, D, kind)
        args += ["--embeddings", name + ".csv"]
    else:
        args += ["--d-model", str(D), sentence(rng, T)]
    args += ["--variant", ",".join(variants)]
    if rng.random() < 0.3:
        args.append("--no-causal")
    if rng.random() < 0.2:
        args.append("--no-scale")
    if rng.random() < 0.3:
        args.append("--qkv-bias")
    if rng.random() < 0.25:
        args += ["--precision", str(rng.choice([0, 1, 2, 6, 8]))]
    if rng.random() < 0.15:
        args.append("--full")
    return name, args


def parse_tables(text):
    """(header, rows, cols, values) for each table of the tidy CSV."""
    tables = []
    key = None
    for row in csv.DictReader(io.StringIO(text)):
        k = (row["variant"], row["head"], row["table"])
        if k != key:
            tables.append({"key": k, "cells": {}})
            key = k
        tables[-1]["cells"][(int(row["row"]), int(row["col"]))] = \
            float(row["value"])
    out = []
    for t in tables:
        R = 1 + max(r for r, _ in t["cells"])
        C = 1 + max(c for _, c in t["cells"])
        values = [t["cells"][(r, c)] for r in range(R) for c in range(C)]
        variant, head, name = t["key"]
        header = "[%s] " % variant
        if head != "":
            header += "head %s: " % head
        header += "%s (%d x %d)" % (name, R, C)
        out.append((header, R, C, values))
    return out


def expected(tables, args):
    precision = 4
    if "--precision" in args:
        precision = int(args[args.index("--precision") + 1])
    torch.set_printoptions(precision=precision,
                           threshold=math.inf if "--full" in args else 1000,
                           edgeitems=3, linewidth=80, sci_mode=None)
    parts = []
    for header, R, C, values in tables:
        t = torch.tensor(values, dtype=torch.float32).view(R, C)
        parts.append(header + "\n" + str(t) + "\n")
    torch.set_printoptions(profile="default")
    return "\n".join(parts)


def main(argv):
    program = argv[1]
    n = int(argv[2]) if len(argv) > 2 else 40
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = argv[3] if len(argv) > 3 else os.path.join(here, "torch_style")
    os.makedirs(outdir, exist_ok=True)
    rng = random.Random(12)
    total = 0
    for i in range(n):
        name, args = configuration(rng, i, outdir)
        r = subprocess.run([program] + args + ["--format", "csv"],
                           cwd=outdir, capture_output=True)
        if r.returncode != 0:
            sys.exit("%s: %s" % (name, r.stderr.decode()))
        tables = parse_tables(r.stdout.decode("utf-8"))
        total += len(tables)
        with open(os.path.join(outdir, name + ".args"), "w",
                  encoding="utf-8", newline="\n") as f:
            f.write("\n".join(args) + "\n")
        with open(os.path.join(outdir, name + ".txt"), "w",
                  encoding="utf-8", newline="\n") as f:
            f.write(expected(tables, args))
    print("%d configurations, %d tables" % (n, total))


if __name__ == "__main__":
    main(sys.argv)
