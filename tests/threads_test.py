#!/usr/bin/env python3
"""--threads: its errors, and the same bytes whatever the number of
threads (runs big enough that the helpers do start).

Usage: threads_test.py MHA_EXPLAIN

Prints TAP.
"""
import os
import random
import sys

from taplib import Program, done, ok

MHA = Program(sys.argv[1])


def words(n, seed):
    rng = random.Random(seed)
    vocab = "the cat sat on mat and dog ran to house big small red".split()
    return " ".join(rng.choice(vocab) for _ in range(n))


def errors():
    for value in ("0", "257", "-1", "two", "", "1.5", "99999999999999999999"):
        MHA.check_error([words(3, 1), "--threads", value], "--threads",
                        "--threads %r: status 2, one line naming the option"
                        % value)
    r = MHA.run([words(3, 1), "--threads", "0"])
    ok(b"1 to 256" in r.stderr, "the error gives the range 1 to 256",
       r.stderr)
    r = MHA.run(["--help"])
    ok(r.returncode == 0 and b"--threads N" in r.stdout,
       "--help lists --threads")


def same_bytes():
    wide = ["--d-model", "96", "--d-out", "96", "--heads", "4"]
    cases = [
        ("all variants and the block, causal, CSV",
         wide + ["--variant", "single,wrapper,fused,block", "--format", "csv",
                 words(150, 2)]),
        ("--no-causal, --qkv-bias, CSV",
         wide + ["--no-causal", "--qkv-bias", "--format", "csv",
                 words(120, 3)]),
        ("--kv cross-attention, CSV",
         wide + ["--kv", words(90, 4), "--format", "csv", words(110, 5)]),
        ("text, --average, --tie --check",
         wide + ["--average", "--tie", "--check", words(130, 6)]),
    ]
    for name, args in cases:
        outputs = [MHA.run(args + ["--threads", n]) for n in ("1", "2", "3")]
        first = outputs[0]
        ok(first.returncode == 0 and len(first.stdout) > 10000 and
           all(r.returncode == 0 and r.stdout == first.stdout and
               r.stderr == first.stderr for r in outputs),
           "%s: the same bytes with --threads 1, 2 and 3" % name,
           [(r.returncode, len(r.stdout), r.stderr[:200]) for r in outputs])
    default = MHA.run(cases[0][1])
    one = MHA.run(cases[0][1] + ["--threads", "1"])
    ok(default.returncode == 0 and default.stdout == one.stdout,
       "the default number of threads gives the same bytes as 1")


def main():
    errors()
    same_bytes()
    return done()


if __name__ == "__main__":
    sys.exit(main())
