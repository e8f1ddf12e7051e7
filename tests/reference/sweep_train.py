#!/usr/bin/env python3
"""Random training configurations against the notebooks' classes in
real PyTorch, beyond the committed cases of make_train_reference.py.

Draws N random configurations (variant, widths down to 1, heads, the
block's --ff down to 1, 2 to 40 tokens from a small vocabulary so that
words repeat, --qkv-bias, the causal mask or not, --positions, SGD or
Adam, 0 to 40 steps, --qkv-order kqv or qkv), trains the class of that
order as make_train_reference.py does (the book's classes for kqv), runs
mha-explain --train ... --grad --format csv and compares every table bit
for bit. Needs PyTorch, so it is not part of `meson test`:

    /usr/bin/python3 tests/reference/sweep_train.py build/src/mha-explain \\
        [SEED [N]]

Prints one line per configuration that differs, then the counts; exits 1
if any differs.
"""
import csv
import io
import random
import struct
import subprocess
import sys

import torch

import make_train_reference as ref

WORDS = "the cat sat on mat a dog ran to park O gato 牛舌 好".split()


def draw(rng, i):
    variant = rng.choice(["single", "wrapper", "fused", "block"])
    order = rng.choice(["kqv", "qkv"])
    bias = rng.random() < 0.5
    d_model = rng.choice([1, 2, 3, 4, 5, 6, 8])
    if variant == "block":
        d_model = rng.choice([2, 3, 4, 6, 8])
        d_out = d_model
    elif variant == "fused" and order == "qkv":
        d_out = d_model         # the lessons' modules are d_model wide
    else:
        d_out = rng.choice([1, 2, 3, 4, 6, 8])
    if order == "qkv" and variant in ("fused", "block"):
        bias = True             # nn.Linear's default in the lessons
    heads = rng.choice([h for h in range(1, d_out + 1) if d_out % h == 0])
    T = rng.randint(2, 40)
    sentence = " ".join(rng.choice(WORDS[:rng.randint(2, len(WORDS))])
                        for _ in range(T))
    adam = rng.random() < 0.5
    c = dict(name="sweep%d" % i, sentence=sentence, d_model=d_model,
             d_out=d_out, heads=heads, seed=rng.randint(0, 10000),
             variants=[variant], steps=rng.choice([0, 1, 5, 20, 40]),
             lr=None, optimizer="adam" if adam else "sgd",
             positions=rng.random() < 0.3, corpus=None, grad=True,
             threads=rng.choice([1, 2]), order=order, order_given=True,
             qkv_bias=bias, causal=rng.random() < 0.6)
    if variant == "block":
        c["ff"] = rng.choice([1, 2, 3, 4 * d_model])
    return c


def bits(text):
    return struct.pack(">f", float(text)).hex()


def run(mha, c):
    args = [a.replace("{DIR}", "/nonexistent") for a in ref.args_of(c)]
    r = subprocess.run([mha] + args + ["--format", "csv"],
                       capture_output=True)
    if r.returncode != 0:
        return None, r.stderr.decode("utf-8", "replace").strip()
    got = {}
    for row in list(csv.reader(io.StringIO(r.stdout.decode("utf-8"))))[1:]:
        got.setdefault((row[0], row[1], row[2]), []).append(bits(row[7]))
    return got, None


def main():
    mha = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    rng = random.Random(seed)
    torch.set_num_threads(1)
    same = differ = 0
    kinds = {}
    for i in range(n):
        c = draw(rng, i)
        variant = c["variants"][0]
        one = (c["d_out"] == 1 or c["d_out"] == c["heads"] or
               c.get("ff") == 1)
        for kind in ("%s %s" % (variant, c["order"]),
                     "a layer or head one column wide" if one else None,
                     "qkv-bias" if c["qkv_bias"] else None,
                     "no causal mask" if not c["causal"] else None,
                     c["optimizer"]):
            if kind is not None:
                kinds[kind] = kinds.get(kind, 0) + 1
        want = ref.tables_of(c)
        got, error = run(mha, c)
        wrong = []
        if got is None:
            wrong.append(error)
        else:
            for variant, head, table, t in want:
                if got.get((variant, head, table)) != ref.hexes(t):
                    wrong.append("%s/%s/%s" % (variant, head, table))
        if wrong:
            differ += 1
            print("differs: %s: %s" % (" ".join(ref.args_of(c)),
                                       ", ".join(wrong[:8])))
        else:
            same += 1
        sys.stdout.flush()
    print("%d configurations: %d bit for bit, %d differ" % (n, same, differ))
    print("; ".join("%s: %d" % kv for kv in sorted(kinds.items())))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
