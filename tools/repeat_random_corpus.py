#!/usr/bin/env python3
"""A corpus of repeated random sequences for mha-explain --train --corpus.

Each line is N words drawn at random from a vocabulary of V words
(w0 ... w(V-1)), then the same N words again: the second half can be
predicted only by looking back at the first, which is what an induction
head learns to do (docs/interventions.md). N is drawn for each line
from --min-length to --length, so that no fixed distance back finds the
copy: a head must find it by its token.

    tools/repeat_random_corpus.py [--lines K] [--length N] [--min-length M]
                                  [--vocab V] [--seed S] > corpus.csv

writes a CSV with one column, "text", of K such lines (defaults: 200
lines, N from 5 to 10, V = 20, seed 0). --shown prints one more sequence, drawn
after the K lines, on its own (no header): the sentence to show, which
the training never sees.

Only Python's standard library: the lines are the same on every machine
for the same arguments.
"""
import argparse
import random
import sys


def sequences(lines, shortest, longest, vocab, seed):
    """lines + 1 repeated sequences from one generator: the corpus's,
    then the shown one (the longest)."""
    rng = random.Random(seed)
    words = ["w%d" % i for i in range(vocab)]
    for i in range(lines + 1):
        n = rng.randint(shortest, longest) if i < lines else longest
        first = [rng.choice(words) for _ in range(n)]
        yield " ".join(first + first)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--lines", type=int, default=200)
    p.add_argument("--length", type=int, default=10)
    p.add_argument("--min-length", type=int, default=5)
    p.add_argument("--vocab", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--shown", action="store_true",
                   help="print the shown sequence instead of the corpus")
    a = p.parse_args()
    if a.lines < 1 or a.min_length < 1 or a.vocab < 1:
        p.error("--lines, --min-length and --vocab must be at least 1")
    if a.length < a.min_length:
        p.error("--length must be at least --min-length")
    all_lines = list(sequences(a.lines, a.min_length, a.length, a.vocab,
                               a.seed))
    if a.shown:
        print(all_lines[-1])
        return 0
    out = sys.stdout
    out.write("text\n")
    for line in all_lines[:-1]:
        out.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
