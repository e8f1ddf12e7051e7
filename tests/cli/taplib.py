"""taplib: the small TAP harness the CLI test scripts share.

    from taplib import Program, done, ok
    mha = Program(sys.argv[1])
    r = mha.run(["O gato sobe"])
    ok(r.returncode == 0, "it runs", r.stderr)
    sys.exit(done())

Setting MHA_EXPLAIN_PREFIX runs commands under that prefix; CI sets it to
valgrind (see .ci/run). With MHA_EXPLAIN_PREFIX_EVERY=N as well, only the
1st, (N+1)th, (2N+1)th... run of each test goes through the prefix and the
others run plain: every run is still checked, and valgrind sees a fixed
sample of them in a CI that has time for that many.
"""
import os
import re
import shlex
import subprocess
import sys
import unicodedata

_count = 0
_failed = 0


def ok(cond, name, detail=""):
    """One TAP line; on failure the detail follows as # lines."""
    global _count, _failed
    _count += 1
    if not cond:
        _failed += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (_count, name))
    if not cond and detail:
        for line in str(detail).splitlines()[:20]:
            print("# " + line)
    sys.stdout.flush()


def done():
    """The plan line; the exit status for sys.exit."""
    print("1..%d" % _count)
    return 1 if _failed else 0


class Program:
    """mha-explain, run the way a user runs it (NO_COLOR and COLUMNS
    unset)."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.prefix = shlex.split(os.environ.get("MHA_EXPLAIN_PREFIX", ""))
        self.every = max(1, int(os.environ.get("MHA_EXPLAIN_PREFIX_EVERY",
                                               "1")))
        self.runs = 0

    def command(self, args):
        self.runs += 1
        under = self.prefix if (self.runs - 1) % self.every == 0 else []
        return under + [self.path] + list(args)

    def run(self, args, stdin=b"", env=None, cwd=None, stdout=None):
        full = dict(os.environ)
        full.pop("NO_COLOR", None)
        full.pop("COLUMNS", None)  # text is 80 columns wide unless a test says
        full.pop("COLORTERM", None)  # 256 colours unless a test says
        if env:
            full.update(env)
        return subprocess.run(
            self.command(args), input=stdin, env=full, cwd=cwd, timeout=600,
            stdout=subprocess.PIPE if stdout is None else stdout,
            stderr=subprocess.PIPE)

    def check_error(self, args, fragment, name=None, stdin=b"", status=2,
                    hint=None):
        """Exit status `status`, nothing on stdout, a first stderr line
        'mha-explain: ...' holding fragment; with hint True exactly one
        more line, the --help hint, with hint False none, else at most
        one."""
        r = self.run(args, stdin)
        lines = r.stderr.decode("utf-8", "replace").splitlines()
        good = (r.returncode == status and r.stdout == b"" and len(lines) >= 1
                and lines[0].startswith("mha-explain: ") and fragment in lines[0])
        if hint is True:
            good = good and len(lines) == 2 and lines[1] == \
                "Try 'mha-explain --help' for more information."
        elif hint is False:
            good = good and len(lines) == 1
        else:
            good = good and len(lines) <= 2
        ok(good, name or "error %r for %s" % (fragment, args),
           "status %d, stdout %r, stderr %r" % (r.returncode, r.stdout[:200],
                                                r.stderr[:400]))
        return r


# a terminal's colour codes (SGR), which take no cells
ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def cells(line):
    """Display cells of a line as a terminal draws it: colour codes,
    combining marks, the zero-width joiner and the emoji selector take
    none, wide and full-width characters two."""
    width = 0
    for ch in ESCAPE.sub("", line):
        if unicodedata.combining(ch) or ch in "\u200d\ufe0f":
            continue
        width += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return width
