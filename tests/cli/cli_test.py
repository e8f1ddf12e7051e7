#!/usr/bin/env python3
"""CLI tests for mha-explain: golden outputs, exit statuses, error lines.

Usage: cli_test.py MHA_EXPLAIN GOLDEN_DIR

Prints TAP. Golden files hold the exact expected stdout of a command (or,
for NAME.err, the stderr of a command that fails with status 2); they were
checked by hand against the PyTorch reference tables (tests/reference)
when made, and are compared byte for byte.
"""
import os
import re
import sys

from taplib import Program, done, ok

MHA = Program(sys.argv[1])
GOLDEN = sys.argv[2]
run = MHA.run
check_error = MHA.check_error



def golden(name):
    with open(os.path.join(GOLDEN, name), "rb") as f:
        return f.read()


def check_golden(name, args, stdin=b""):
    r = run(args, stdin)
    want = golden(name)
    if name.endswith(".err"):  # a usage or input error: its stderr
        ok(r.returncode == 2 and r.stdout == b"" and r.stderr == want,
           "golden %s: %s" % (name, " ".join(args)),
           "status %d, stdout %r\n--- got ---\n%s" % (
               r.returncode, r.stdout[:200],
               r.stderr.decode("utf-8", "replace")))
        return
    ok(r.returncode == 0 and r.stdout == want and r.stderr == b"",
       "golden %s: %s" % (name, " ".join(args)),
       "status %d, stderr %r\n--- got ---\n%s" % (
           r.returncode, r.stderr, r.stdout.decode("utf-8", "replace")))


S = "O gato sobe no tapete"


def goldens():
    """Byte-exact outputs. Their numbers are PyTorch's (the reference suite
    checks them bit for bit); these files pin the layout. Each golden
    NAME.txt, NAME.csv or NAME.err (an error's stderr) has its arguments
    beside it in NAME.args, one argument a line: adding a golden is adding
    the two files."""
    outputs = sorted(f for f in os.listdir(GOLDEN) if not f.endswith(".args"))
    for name in outputs:
        args_file = os.path.join(GOLDEN, os.path.splitext(name)[0] + ".args")
        if not os.path.exists(args_file):
            ok(False, "golden %s has its arguments in %s" % (name, args_file))
            continue
        with open(args_file, encoding="utf-8") as f:
            args = f.read().split("\n")[:-1]
        check_golden(name, args)
    ok(len(outputs) == len([f for f in os.listdir(GOLDEN)
                            if f.endswith(".args")]),
       "every NAME.args in %s has its golden output" % GOLDEN)


def display_width(text):
    """Terminal cells, as the program counts them for these goldens."""
    import unicodedata
    width = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return width


def alignment():
    """Every line of a table block has the same display width."""
    for name in ("chinese-wrapper.txt", "accents-emoji-nocausal.txt"):
        blocks = golden(name).decode("utf-8").strip("\n").split("\n\n")
        good = True
        for block in blocks:
            rows = block.split("\n")[1:]
            good &= len({display_width(r) for r in rows}) == 1
        ok(good, "%s: columns line up in display cells" % name)


def equivalences():
    one = run([S]).stdout
    ok(run(S.split()).stdout == one, "words as separate arguments = one sentence")
    ok(run(["-"], S.encode() + b"\n").stdout == one, "'-' reads the sentence from stdin")
    ok(run(["-"], S.replace(" ", "\r\n").encode() + b"\r\n").stdout == one,
       "'-' with CRLF line ends")
    ok(run(["--d-model=3", "--heads=2", S]).stdout == one, "--option=value form")
    r = run(["--variant", "single", "--tables", "tokens", "--", "-x", "y"])
    ok(r.returncode == 0 and b"-x" in r.stdout, "'--' lets a word start with '-'")
    ok(run([S, "--seed", str(2 ** 32 + 42)]).stdout == one,
       "only the low 32 bits of the seed count")
    ok(run([S, "--seed", "-1"]).returncode == 0, "negative seeds wrap as in PyTorch")
    r = run([S, "--variant", "single", "--d-out", "3", "--tables",
             "head_context"])
    ok(r.returncode == 0 and b"head_context (5 x 3)" in r.stdout,
       "single alone takes a d_out that --heads does not divide")
    ok(run([S, "--seed", "+42"]).stdout == one,
       "--seed +42 is seed 42, as torch.manual_seed(+42)")
    zero = run([S, "--seed", "0"]).stdout
    ok(zero != one and run([S, "--seed", "+0"]).stdout == zero
       and run([S, "--seed", "-0"]).stdout == zero, "+0 and -0 are seed 0")


def help_and_version():
    r = run(["--help"])
    text = r.stdout.decode()
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                            "..", "src", "cli", "option_list.h"),
               encoding="utf-8").read()
    names = re.findall(r'^OPTION\(\w+, "([a-z-]+)"', src, re.M)
    missing = [n for n in names if "--" + n not in text]
    ok(r.returncode == 0 and r.stderr == b"" and names and not missing and
       all("(default %s)" % d in text for d in ("3", "4", "2", "42")),
       "--help lists every option with its default", missing)
    r = run(["--version"])
    ok(r.returncode == 0 and re.fullmatch(rb"mha-explain \d+\.\d+\.\d+\n", r.stdout),
       "--version prints mha-explain X.Y.Z")


def locales():
    outs = {run([S, "--format", "csv"], env={"LC_ALL": loc}).stdout
            for loc in ("C", "C.UTF-8", "de_DE.UTF-8", "pt_BR.UTF-8")}
    ok(len(outs) == 1, "the same bytes under every locale")


def main():
    goldens()
    alignment()
    equivalences()
    help_and_version()
    locales()
    check_error(["--heads", "3", "a", "b"], "--heads", hint=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
