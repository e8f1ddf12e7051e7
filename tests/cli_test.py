#!/usr/bin/env python3
"""CLI tests for mha-explain: golden outputs, exit statuses, error lines.

Usage: cli_test.py MHA_EXPLAIN GOLDEN_DIR

Prints TAP. Golden files hold the exact expected stdout of a command; they
were checked by hand against the PyTorch reference tables (tests/reference)
when made, and are compared byte for byte.
"""
import os
import subprocess
import sys
import tempfile

PROGRAM = sys.argv[1]
GOLDEN = sys.argv[2]
count = 0
failed = 0


def ok(cond, name, detail=""):
    global count, failed
    count += 1
    if not cond:
        failed += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (count, name))
    if not cond and detail:
        for line in str(detail).splitlines()[:20]:
            print("# " + line)
    sys.stdout.flush()


def run(args, stdin=b"", env=None, cwd=None):
    full_env = dict(os.environ)
    full_env.pop("NO_COLOR", None)
    if env:
        full_env.update(env)
    return subprocess.run([PROGRAM] + args, input=stdin, capture_output=True,
                          env=full_env, cwd=cwd, timeout=60)


def golden(name):
    with open(os.path.join(GOLDEN, name), "rb") as f:
        return f.read()


def check_golden(name, args, stdin=b""):
    r = run(args, stdin)
    want = golden(name)
    ok(r.returncode == 0 and r.stdout == want and r.stderr == b"",
       "golden %s: %s" % (name, " ".join(args)),
       "status %d, stderr %r\n--- got ---\n%s" % (
           r.returncode, r.stderr, r.stdout.decode("utf-8", "replace")))


def check_error(args, fragment, stdin=b"", status=2, usage=None):
    """One line on stderr starting 'mha-explain: ', nothing on stdout."""
    r = run(args, stdin)
    err = r.stderr.decode("utf-8", "replace")
    lines = err.splitlines()
    good = (r.returncode == status and r.stdout == b"" and len(lines) >= 1
            and lines[0].startswith("mha-explain: ") and fragment in lines[0])
    if usage is True:
        good = good and len(lines) == 2 and "--help" in lines[1]
    elif usage is False:
        good = good and len(lines) == 1
    else:
        good = good and len(lines) <= 2
    ok(good, "error %r for %s" % (fragment, args),
       "status %d, stdout %r, stderr %r" % (r.returncode, r.stdout[:200], err))


def main():
    check_golden("classroom.txt", ["O gato sobe no tapete", "--heads", "2"])
    check_error(["--heads", "3", "a", "b"], "--heads", usage=True)
    print("1..%d" % count)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
