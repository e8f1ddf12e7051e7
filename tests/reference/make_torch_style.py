#!/usr/bin/env python3
"""Reference output of `--style torch`, printed by real PyTorch.

For N random configurations (variants, sizes, seeds, masks, biases,
--precision, --full, and input files whose values push PyTorch's printer
into integer mode, scientific notation, -0, inf and NaN), then 20 more
with --kv, --average, --tie and --input, alone and together, this runs
mha-explain with --format csv, rebuilds every table as a float32 tensor of
its shape and writes what `--style torch` must print: each table's header
line, then str(tensor) with PyTorch's print options (precision as
--precision, threshold 1000, or no summary with --full), a blank line
between tables.

Writes into OUTDIR (default: the `torch_style` folder beside this
script) cNNN.args (the arguments, one a line; input files are beside them) and
cNNN.txt (the expected standard output; with --input, each sentence's
tables under its "=== sentence K: TEXT ===" heading).

    /usr/bin/python3 tests/reference/make_torch_style.py \
        build/src/mha-explain [N [OUTDIR]]
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


EXTRA = 20  # configurations with --kv, --average, --tie and --input


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


def extra_configuration(rng, i, outdir):
    """Configuration i of the options that add or repeat tables: --kv
    (cross-attention), --average, --tie and --input, alone and together
    (--kv takes no --input)."""
    name = "c%03d" % i
    extras = [["kv"], ["average"], ["tie"], ["input"], ["kv", "average"],
              ["tie", "average"], ["input", "average"], ["input", "tie"],
              ["kv", "tie"], ["kv", "average", "tie"]][i % 10]
    heads = rng.choice([2, 2, 3, 4, 6])
    d_out = heads * rng.choice([1, 2, 4])
    D = rng.choice([2, 3, 4, 8])
    args = ["--heads", str(heads), "--d-out", str(d_out), "--d-model", str(D),
            "--seed", str(rng.randint(0, 2 ** 40))]
    variants = rng.sample(["single", "wrapper", "fused"], rng.randint(1, 3))
    if "tie" in extras:
        variants = sorted(set(variants) | {"fused"})
        args.append("--tie")
    if "average" in extras:
        if variants == ["single"]:
            variants = ["single", rng.choice(["wrapper", "fused"])]
        if rng.random() < 0.3:
            variants.append("block")
            args[args.index("--d-model") + 1] = str(heads * rng.choice([1, 2]))
        args.append("--average")
    if "input" in extras:
        with open(os.path.join(outdir, name + ".input.csv"), "w",
                  encoding="utf-8", newline="\n") as f:
            f.write("id,text\n")
            for k in range(rng.randint(2, 4)):
                f.write("%d,%s\n" % (k, sentence(rng, rng.randint(1, 9))))
        args += ["--input", name + ".input.csv", "--column", "text"]
    else:
        args.append(sentence(rng, rng.choice([1, 2, 5, 9])))
    if "kv" in extras:
        args += ["--kv", sentence(rng, rng.choice([1, 3, 6, 11]))]
    args += ["--variant", ",".join(variants)]
    if rng.random() < 0.3 and "kv" not in extras:
        args.append("--no-causal")
    if rng.random() < 0.3:
        args.append("--qkv-bias")
    if rng.random() < 0.2:
        args += ["--precision", str(rng.choice([0, 2, 6]))]
    return name, args


def input_sentences(args, outdir):
    """The sentences of the --input file of args, in order, or None."""
    if "--input" not in args:
        return None
    path = os.path.join(outdir, args[args.index("--input") + 1])
    with open(path, encoding="utf-8", newline="") as f:
        return [row["text"] for row in csv.DictReader(f)]


def parse_tables(text):
    """(sentence, header, rows, cols, values) for each table of the tidy
    CSV; sentence is the --input row's index, or None."""
    tables = []
    key = None
    for row in csv.DictReader(io.StringIO(text)):
        k = (row.get("sentence"), row["variant"], row["head"], row["table"])
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
        sentence, variant, head, name = t["key"]
        header = "[%s] " % variant
        if head != "":
            header += "head %s: " % head
        header += "%s (%d x %d)" % (name, R, C)
        out.append((sentence, header, R, C, values))
    return out


def expected(tables, args, sentences=None):
    precision = 4
    if "--precision" in args:
        precision = int(args[args.index("--precision") + 1])
    torch.set_printoptions(precision=precision,
                           threshold=math.inf if "--full" in args else 1000,
                           edgeitems=3, linewidth=80, sci_mode=None)
    text = ""
    shown = None
    for sentence, header, R, C, values in tables:
        if sentence != shown:  # --input: each row under its own heading
            k = int(sentence)
            text += "%s=== sentence %d: %s ===\n\n" % (
                "\n" if k > 0 else "", k, sentences[k])
            shown = sentence
        elif text:
            text += "\n"
        t = torch.tensor(values, dtype=torch.float32).view(R, C)
        text += header + "\n" + str(t) + "\n"
    torch.set_printoptions(profile="default")
    return text


def main(argv):
    program = argv[1]
    n = int(argv[2]) if len(argv) > 2 else 40
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = argv[3] if len(argv) > 3 else os.path.join(here, "torch_style")
    os.makedirs(outdir, exist_ok=True)
    rng = random.Random(12)
    extra_rng = random.Random(13)
    total = 0
    for i in range(n + EXTRA):
        if i < n:
            name, args = configuration(rng, i, outdir)
        else:
            name, args = extra_configuration(extra_rng, i, outdir)
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
            f.write(expected(tables, args, input_sentences(args, outdir)))
    print("%d configurations, %d tables" % (n + EXTRA, total))


if __name__ == "__main__":
    main(sys.argv)
