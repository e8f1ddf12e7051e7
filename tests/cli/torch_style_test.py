#!/usr/bin/env python3
"""--style torch against real PyTorch's print(tensor).

Usage: torch_style_test.py PROGRAM DIR

DIR holds cNNN.args and cNNN.txt, written by make_torch_style.py with
PyTorch: every table of each configuration, printed by str(tensor). Each
configuration is run with --style torch and must print exactly that.
Also checks the option's errors. Prints TAP.
"""
import difflib
import os
import sys

from taplib import Program, done, ok

MHA = Program(sys.argv[1])
DIR = sys.argv[2]


def main():
    names = sorted(f[:-5] for f in os.listdir(DIR) if f.endswith(".args"))
    ok(len(names) >= 20, "%d configurations" % len(names))
    tables = 0
    for name in names:
        with open(os.path.join(DIR, name + ".args"), encoding="utf-8") as f:
            args = f.read().splitlines()
        with open(os.path.join(DIR, name + ".txt"), encoding="utf-8") as f:
            want = f.read()
        tables += want.count("\ntensor(")
        r = MHA.run(args + ["--style", "torch", "--color", "always"],
                    cwd=DIR)
        got = r.stdout.decode("utf-8", "replace")
        diff = "\n".join(difflib.unified_diff(
            want.splitlines(), got.splitlines(), "torch", "mha-explain",
            lineterm="", n=1))
        ok(r.returncode == 0 and got == want,
           "%s: every table as PyTorch prints it (%s)" % (name, " ".join(args)),
           diff or r.stderr.decode("utf-8", "replace"))
    ok(tables >= 200, "%d tables compared" % tables)
    MHA.check_error(["a b", "--style", "numpy"], "--style: unknown style 'numpy'")
    MHA.check_error(["a b", "--style", "torch", "--format", "csv"],
                    "--style torch")
    MHA.check_error(["a b", "--style", "torch", "--focus", "a"],
                    "--style torch")
    return done()


if __name__ == "__main__":
    sys.exit(main())
