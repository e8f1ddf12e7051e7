#!/usr/bin/env python3
"""Benchmark of mha-explain: wall-clock time of whole runs.

Usage: bench.py MHA_EXPLAIN [--runs N]
(or `meson test -C build --benchmark`).

Times, as a user runs them:
  classroom  mha-explain "O gato sobe no tapete" --heads 2
  gpt2       --d-model 768 --d-out 768 --heads 12 over a 256-word sentence
             (GPT-2 small's attention width), summarised text output
Each is run several times and the median is reported. When PyTorch is
installed for /usr/bin/python3, the same work is timed there too (a fresh
python3 process that builds the same modules and prints the same tables,
as a notebook cell would), and the ratio is printed. Ratios measured in
one run on one machine are the figures the README quotes.
"""
import os
import random
import statistics
import subprocess
import sys
import time

CLASSROOM = ["O gato sobe no tapete", "--heads", "2"]


def gpt2_sentence():
    rng = random.Random(1)
    words = ("the cat sat on mat and dog ran to house big small red blue "
             "tree sky run jump over under").split()
    return " ".join(rng.choice(words) for _ in range(256))


GPT2 = ["--d-model", "768", "--d-out", "768", "--heads", "12", gpt2_sentence()]

# The same work in PyTorch: seed, embedding, the three modules, print
# every table (PyTorch summarises big tensors the same way).
TORCH_SCRIPT = r'''
import sys, torch, torch.nn as nn
d_in, d_out, heads, sentence = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
words = sentence.split(); vocab = list(dict.fromkeys(words))
ids = torch.tensor([vocab.index(w) for w in words])
def attend(q, k, v):
    s = q @ k.transpose(-2, -1)
    T = s.shape[-1]
    s = s.masked_fill(torch.triu(torch.ones(T, T), 1).bool(), -torch.inf)
    w = torch.softmax(s / k.shape[-1] ** 0.5, dim=-1)
    print(q, k, v, s, w, w @ v)
    return w @ v
def lin(i, o, bias=False):
    return nn.Linear(i, o, bias=bias)
with torch.no_grad():
    for variant in ("single", "wrapper", "fused"):
        torch.manual_seed(42)
        emb = nn.Embedding(len(vocab), d_in)
        x = emb(ids)
        print(emb.weight, x)
        if variant == "single":
            Wq, Wk, Wv = lin(d_in, d_out), lin(d_in, d_out), lin(d_in, d_out)
            attend(Wq(x), Wk(x), Wv(x))
        elif variant == "wrapper":
            hd = d_out // heads
            layers = [(lin(d_in, hd), lin(d_in, hd), lin(d_in, hd)) for _ in range(heads)]
            print(torch.cat([attend(q(x), k(x), v(x)) for q, k, v in layers], -1))
        else:
            hd = d_out // heads
            Wq, Wk, Wv = lin(d_in, d_out), lin(d_in, d_out), lin(d_in, d_out)
            out_proj = lin(d_out, d_out, True)
            split = lambda t: t.view(len(words), heads, hd).transpose(0, 1)
            ctx = attend(split(Wq(x)), split(Wk(x)), split(Wv(x)))
            concat = ctx.transpose(0, 1).contiguous().view(len(words), d_out)
            print(concat, out_proj(concat))
'''


def median_seconds(cmd, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def have_torch():
    try:
        subprocess.run(["/usr/bin/python3", "-c", "import torch"],
                       check=True, capture_output=True)
        return True
    except (OSError, subprocess.CalledProcessError):
        return False


def main():
    program = sys.argv[1]
    runs = 5
    if "--runs" in sys.argv:
        runs = int(sys.argv[sys.argv.index("--runs") + 1])
    torch = have_torch()
    print("machine: %d cores; runs per figure: %d (median)" %
          (os.cpu_count(), runs))
    cases = [("classroom", CLASSROOM, ("3", "4", "2", CLASSROOM[0])),
             ("gpt2", GPT2, ("768", "768", "12", GPT2[-1]))]
    for name, args, torch_args in cases:
        ours = median_seconds([program] + args, runs * 4 if name == "classroom" else runs)
        line = "%-10s mha-explain %8.4f s" % (name, ours)
        if torch:
            theirs = median_seconds(["/usr/bin/python3", "-c", TORCH_SCRIPT] +
                                    list(torch_args), runs)
            line += "   python3+torch %8.4f s   ratio %.0fx" % (theirs, theirs / ours)
        print(line)
        sys.stdout.flush()
    if not torch:
        print("(PyTorch not installed for /usr/bin/python3: no ratio)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
