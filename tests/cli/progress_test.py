#!/usr/bin/env python3
"""progress_test: the progress line of a long intervention (--patch,
--ablate all-heads) on standard error (src/cli/progress.h), on a
pseudo-terminal, read back as the terminal shows it (pyte, a terminal
emulator, is given the bytes the program wrote to the terminal).

- on a terminal (standard output a file), after a second:
  'mha-explain: --patch: pass k of N', N the L.H + L.T passes, each
  drawn over the one before on the screen's first row (carriage return,
  erase to the end of the line), k rising; at the end the line is
  erased: the screen is blank, the cursor where it started, no newline
  left;
- the same for --ablate all-heads, N the L.H heads;
- the tables on standard output are the bytes of a run whose standard
  error is a pipe, and a pipe gets no progress line;
- a run that fails after its passes (standard output /dev/full): the
  line is erased before the error message, which is then the screen's
  only line;
- a run shorter than a second shows no line (under MHA_EXPLAIN_PREFIX,
  which may make it longer: it leaves the screen blank).

The long runs are over a GPT-2 checkpoint of random weights
(tests/tools/gpt2_checkpoint.py: 12 layers of 12 heads, 192 wide) with
the vocabulary of the reference checkpoint two_layers, one thread: about
two seconds of work each; the short ones over two_layers itself.

Usage: progress_test.py MHA_EXPLAIN GPT2_DIR
Needs pyte (Debian's python3-pyte, which lives with the system Python: a
test run by another Python is run again by /usr/bin/python3); skipped
(TAP's "1..0 # SKIP") without it.
"""
import os
import re
import subprocess
import sys
import tempfile

try:
    import pyte
except ImportError:
    if sys.executable != "/usr/bin/python3" and os.path.exists(
            "/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("1..0 # SKIP python3-pyte is not installed")
    sys.exit(0)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
from gpt2_checkpoint import gauss_draw, write  # noqa: E402
from ptylib import Terminal  # noqa: E402
from taplib import Program, done, ok  # noqa: E402

MHA = Program(sys.argv[1])
TWO_LAYERS = os.path.join(sys.argv[2], "two_layers")
LAYERS, HEADS = 12, 12
COLUMNS, ROWS = 80, 24
ENV = dict(os.environ, LANGUAGE="en", LANG="C.UTF-8", LC_ALL="C.UTF-8")
ERASE = b"\r\x1b[K"  # carriage return, erase to the end of the line


def repeated(sentence, n, end):
    return " ".join([sentence] * n) + end


def clean(n):
    return repeated("the cat sat on the mat", n, " and the")


def patch(model, n):
    """--patch over n copies of the sentences."""
    return ["--model", model, "--threads", "1", "--patch",
            "--clean", clean(n),
            "--corrupt", repeated("the mat sat on the cat", n, " and the"),
            "--answer", " cat", "--wrong", " mat"]


def ablate(model, n):
    """--ablate all-heads over n copies of the sentence."""
    return ["--model", model, "--threads", "1",
            repeated("the cat sat on the mat", n, ""), "--ablate",
            "all-heads"]


def on_terminal(args, stdout):
    """(exit status, the bytes written to the terminal) of args run with
    the terminal as standard input and error, stdout a file."""
    term = Terminal(MHA.command(args), ENV, columns=COLUMNS, rows=ROWS,
                    stdout=stdout)
    try:
        return term.finish(300)
    finally:
        term.close()


def screen_of(data):
    """The terminal's screen once data is written to it: (its rows, the
    cursor's (column, row))."""
    screen = pyte.Screen(COLUMNS, ROWS)
    pyte.ByteStream(screen).feed(data)
    return [row.rstrip() for row in screen.display], \
        (screen.cursor.x, screen.cursor.y)


def redrawn(name, err, option, total):
    """The progress lines of err, a run's terminal output, each drawn on
    the first row over the one before, k rising in 'pass k of total';
    returns what is left after the last erase."""
    parts = err.split(ERASE)
    frames = parts[1:-1]
    said = [re.fullmatch(r"mha-explain: %s: pass (\d+) of (\d+)"
                         % re.escape(option), f.decode("utf-8", "replace"))
            for f in frames]
    counts = [int(m.group(1)) for m in said if m]
    ok(parts[0] == b"" and frames and len(counts) == len(frames) and
       all(int(m.group(2)) == total for m in said) and
       counts == sorted(counts) and 1 <= counts[0] and counts[-1] < total,
       "%s: 'mha-explain: %s: pass k of %d' after an erase, k rising"
       % (name, option, total), err[:300])
    # each line as the terminal shows it: alone on the first row
    shown, wrong = b"", []
    for f in frames:
        shown += ERASE + f
        rows, cursor = screen_of(shown)
        if rows[0] != f.decode("utf-8", "replace") or any(rows[1:]) or \
                cursor != (len(f), 0):
            wrong.append((rows[:2], cursor))
    ok(frames and not wrong, "%s: each of the %d lines is drawn over the "
       "one before, on the first row" % (name, len(frames)), wrong[:2])
    return parts[-1]


def long_run(name, args, option, total, tmp):
    """A long run on a terminal: its progress line, redrawn then erased;
    its tables, and stderr a pipe."""
    out = os.path.join(tmp, name + ".out")
    with open(out, "wb") as f:
        status, err = on_terminal(args, f)
    last = redrawn(name, err, option, total)
    rows, cursor = screen_of(err)
    ok(status == 0 and last == b"" and not any(rows) and cursor == (0, 0),
       "%s: the line erased at the end, the screen blank, the cursor at "
       "the start" % name, "status %r, rows %r, cursor %r"
       % (status, rows[:2], cursor))
    piped = MHA.run(args)
    with open(out, "rb") as f:
        tables = f.read()
    ok(piped.returncode == 0 and piped.stderr == b"" and
       len(tables) > 100 and piped.stdout == tables,
       "%s: stderr a pipe: no progress line; stdout the same as on a "
       "terminal" % name, piped.stderr[:300])


def short_run(name, args):
    """A run shorter than a second, on a terminal: no line. Under
    MHA_EXPLAIN_PREFIX (valgrind) it may take longer: then the screen is
    left blank."""
    status, err = on_terminal(args, subprocess.DEVNULL)
    if MHA.prefix:
        rows, cursor = screen_of(err)
        ok(status == 0 and not any(rows) and cursor == (0, 0),
           "%s on a terminal under %s: the screen left blank"
           % (name, MHA.prefix[0]), "status %r, %r" % (status, err))
    else:
        ok(status == 0 and err == b"", "%s on a terminal: no line before "
           "a second" % name, "status %r, %r" % (status, err))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "gpt2_12x12")
        write(model, TWO_LAYERS, (LAYERS, HEADS, 192), 128,
              draw=gauss_draw(124))
        # the 1st, 4th and 7th runs are the short ones: in CI those go
        # under MHA_EXPLAIN_PREFIX (valgrind, MHA_EXPLAIN_PREFIX_EVERY=3:
        # taplib.py), and the long ones run as they are
        tokens = MHA.run(["--model", model, "--tables", "tokens", "--format",
                          "csv", clean(5)])
        count = tokens.stdout.count(b",tokens,")
        ok(tokens.returncode == 0 and count > 30,
           "the patched texts are %d tokens" % count, tokens.stderr)
        passes = LAYERS * HEADS + LAYERS * count
        long_run("--patch", patch(model, 5), "--patch", passes, tmp)
        short_run("a short --ablate all-heads", ablate(TWO_LAYERS, 1))
        long_run("--ablate all-heads", ablate(model, 18),
                 "--ablate all-heads", LAYERS * HEADS, tmp)
        short_run("a short --patch", patch(TWO_LAYERS, 1))
        # a run that fails once its passes are done: the line is erased
        # before the message
        with open("/dev/full", "wb") as full:
            status, err = on_terminal(patch(model, 5), full)
        last = redrawn("--patch, stdout /dev/full", err, "--patch", passes)
        rows, cursor = screen_of(err)
        ok(status == 1 and last.startswith(b"mha-explain: ") and
           last.count(b"\n") == 1 and rows[0].startswith("mha-explain: ")
           and "No space left" in rows[0] and not any(rows[1:]),
           "--patch, stdout /dev/full: the line erased, then the error "
           "alone on the screen", "status %r, rows %r" % (status, rows[:3]))
    return done()


if __name__ == "__main__":
    sys.exit(main())
