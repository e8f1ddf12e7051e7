#!/usr/bin/env python3
"""Random configurations against real PyTorch, beyond the committed cases.

Draws N random configurations (sizes, heads, seeds, biases, masks and
scaling, sentences in several scripts; the three modules, the block,
cross-attention and --tie/--average), makes PyTorch's tables for each with
the generators of make_reference.py and make_reference_teaching.py, and
runs check_reference on them. Needs PyTorch, so it is not part of
`meson test`; run it after changing the arithmetic:

    /usr/bin/python3 tests/reference/sweep_reference.py \
        build/tests/reference/check_reference [SEED [N]]

Prints one line per configuration and exits 1 if any differs.
"""
import os
import random
import subprocess
import sys
import tempfile

import torch

from make_reference import run_case
from make_reference_teaching import average_tie_case, block_case, cross_case

WORDS = ("O gato sobe no tapete the cat sat on mat 我 喜欢 吃 牛舌 "
         "el perro come a b c d e f g h").split()


def sentence(rng):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 40)))


def draw(rng, i):
    heads = rng.choice([1, 2, 3, 4, 6, 8])
    width = heads * rng.choice([1, 2, 3, 5, 8, 16])
    kind = rng.choice(["modules", "modules", "block", "cross", "tie"])
    c = dict(name="c%d" % i, sentence=sentence(rng), seed=rng.randint(0, 2**40),
             heads=heads, d_model=rng.randint(1, 70), d_out=width,
             qkv_bias=rng.random() < 0.5)
    if kind == "modules":
        c.update(causal=rng.random() < 0.7, scale=rng.random() < 0.8)
        return run_case, c
    if kind == "block":
        c.update(d_model=width)
        if rng.random() < 0.5:
            c["ff"] = rng.randint(1, 100)
        return block_case, c
    if kind == "cross":
        c["kv"] = sentence(rng)
        return cross_case, c
    c.update(tie=True, average=True)
    return average_tie_case, c


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    check = argv[1]
    rng = random.Random(int(argv[2]) if len(argv) > 2 else 1)
    n = int(argv[3]) if len(argv) > 3 else 20
    torch.set_num_threads(1)
    bad = 0
    with tempfile.TemporaryDirectory() as out:
        for i in range(n):
            make, c = draw(rng, i)
            make(c, out)
            base = os.path.join(out, c["name"])
            r = subprocess.run([check, base + ".args", base + ".csv"],
                               capture_output=True, text=True)
            fails = [l for l in r.stdout.splitlines() if l.startswith("not ok")]
            failed = bool(fails) or r.returncode != 0
            bad += failed
            print("%3d %-18s d_model %3d d_out %3d heads %d: %s%s" % (
                i, make.__name__, c["d_model"], c["d_out"], c["heads"],
                "DIFFERS " if failed else "ok", fails[0] if fails else ""))
    print("%d of %d configurations differ" % (bad, n))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
