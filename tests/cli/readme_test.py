#!/usr/bin/env python3
"""The output samples in README.md are what the program prints.

Usage: readme_test.py MHA_EXPLAIN README.md

Every indented "$ mha-explain ARGS" line of the README is run from the
folder that holds the README (so data/ paths work); the lines under it
must be the program's first lines of output, up to a line "..." where the
sample is cut. Prints TAP. Python 3 standard library only.
"""
import os
import shlex
import sys

from taplib import Program, done, ok


def samples(text):
    """(command line, expected lines) for each sample."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("    $ mha-explain "):
            i += 1
            continue
        command = lines[i][len("    $ "):]
        want = []
        i += 1
        while i < len(lines) and (lines[i].startswith("    ") or lines[i] == ""):
            if lines[i].startswith("    $ "):
                break
            want.append(lines[i][4:])
            i += 1
        while want and want[-1] == "":
            want.pop()
        out.append((command, want))
    return out


def matches(want, got):
    """None when the sample agrees with the output, else what differs.

    The sample is runs of lines separated by "...": the first run starts
    the output (unless the sample starts with "..."), each run appears
    whole after the previous one, and the last run ends the output
    (unless the sample ends with "...")."""
    runs = [[]]
    for line in want:
        if line == "...":
            runs.append([])
        else:
            runs[-1].append(line)
    while got and got[-1] == "":
        got = got[:-1]
    at = 0
    for n, run in enumerate(runs):
        if not run:
            continue
        first = n == 0
        last = n == len(runs) - 1
        starts = [at] if first else range(at, len(got) - len(run) + 1)
        found = None
        for k in starts:
            if got[k:k + len(run)] == run and (not last or k + len(run) == len(got)):
                found = k
                break
        if found is None:
            return "not in the output: %r ..." % run[0]
        at = found + len(run)
    return None


def main():
    mha = Program(sys.argv[1])
    readme = os.path.abspath(sys.argv[2])
    with open(readme, encoding="utf-8") as f:
        found = samples(f.read())
    ok(len(found) >= 5, "the README has output samples (%d)" % len(found))
    for command, want in found:
        args = shlex.split(command)[1:]
        r = mha.run(args, cwd=os.path.dirname(readme), env={"LC_ALL": "C.UTF-8"})
        got = (r.stdout + r.stderr).decode("utf-8").split("\n")
        problem = matches(want, got)
        ok(want and problem is None, "README sample: %s" % command[:70],
           problem)
    return done()


if __name__ == "__main__":
    sys.exit(main())
