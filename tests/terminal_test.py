#!/usr/bin/env python3
"""The text output fits the screen: runs on a real pseudo-terminal.

Usage: terminal_test.py MHA_EXPLAIN

Each run gets a pty of 80 or 120 columns (Python's pty module, the window
size set with TIOCSWINSZ) and no line it prints may be wider than the
terminal in display cells. Prints TAP. Python 3 standard library only.
"""
import fcntl
import os
import pty
import re
import struct
import sys
import termios
import unicodedata

from taplib import Program, done, ok

MHA = Program(sys.argv[1])
ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
TEN = "the quick brown fox jumps over the sleeping lazy dog"


def cells(line):
    """Display cells of a line as a terminal draws it."""
    width = 0
    for ch in ESCAPE.sub("", line):
        if unicodedata.combining(ch) or ch in "\u200d\ufe0f":
            continue
        width += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return width


def on_pty(args, columns, rows=40):
    """(exit status, output text) of the program on a pty of that size."""
    pid, fd = pty.fork()
    if pid == 0:
        env = dict(os.environ, TERM="xterm-256color")
        env.pop("COLUMNS", None)
        env.pop("NO_COLOR", None)
        try:
            fcntl.ioctl(1, termios.TIOCSWINSZ,
                        struct.pack("HHHH", rows, columns, 0, 0))
            os.execvpe(MHA.command(args)[0], MHA.command(args), env)
        finally:
            os._exit(127)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


def fits(args, columns, name):
    status, text = on_pty(args, columns)
    lines = text.replace("\r\n", "\n").split("\n")
    widest = max(lines, key=cells)
    ok(status == 0 and len(lines) > 5 and cells(widest) <= columns,
       "%s at %d columns: no line wider than the terminal" % (name, columns),
       "status %d, widest %d cells: %r" % (status, cells(widest), widest))
    return text


def screens():
    for columns in (80, 120):
        text = fits([TEN, "--heads", "8", "--d-out", "16"], columns,
                    "10 words, 8 heads")
        fits([TEN, "--heads", "8", "--d-out", "16", "--explain"], columns,
             "10 words, 8 heads, --explain")
        fits(["O gato sobe no tapete", "--d-model", "64", "--d-out", "64"],
             columns, "a 64-wide model")
        fits(["我 喜欢 吃 牛舌 和 慢煮 牛舌", "--d-out", "6", "--heads", "3"],
             columns, "a Chinese sentence")
        fits(["café naïve 🙂 cafe 🎉", "--no-causal"], columns,
             "an emoji sentence")
        fits([TEN, "--heads", "8", "--d-out", "16", "--focus", "sleeping",
              "--precision", "8"], columns, "--focus with 8 decimals")
    # at 80 columns the 10x10 weights need two blocks, at 120 one
    _, narrow = on_pty([TEN, "--heads", "8", "--d-out", "16", "--variant",
                        "fused", "--tables", "attn_weights"], 80)
    _, wide = on_pty([TEN, "--heads", "8", "--d-out", "16", "--variant",
                      "fused", "--tables", "attn_weights"], 120)
    ok("in 2 blocks of columns (width 80)" in narrow and
       "blocks of columns" not in wide,
       "the weights are split into column blocks only where they must be",
       narrow[:400])
    # each block is a whole table: row labels on every row of both blocks
    block = ESCAPE.sub("", narrow).replace("\r\n", "\n").split("\n\n")[1]
    rows = [r for r in block.split("\n") if not r.startswith("scale: ")]
    ok(rows[0].strip().startswith("K:sleeping") and
       [r.split()[0] for r in rows[1:] if r] ==
       ["Q:" + w for w in TEN.split()],
       "the second block repeats every row label", block)


def not_a_terminal():
    args = [TEN, "--heads", "8", "--d-out", "16", "--variant", "fused",
            "--tables", "attn_weights"]

    def widest(r):
        return max(cells(l) for l in r.stdout.decode().split("\n"))
    r = MHA.run(args)
    ok(r.returncode == 0 and widest(r) <= 80 and b"(width 80)" in r.stdout,
       "a pipe without COLUMNS: 80 columns", r.stdout[:300])
    r = MHA.run(args, env={"COLUMNS": "120"})
    ok(r.returncode == 0 and widest(r) > 80 and widest(r) <= 120 and
       b"blocks of columns" not in r.stdout,
       "a pipe with COLUMNS=120: 120 columns", r.stdout[:300])
    r = MHA.run(args + ["--width", "50"], env={"COLUMNS": "120"})
    ok(r.returncode == 0 and widest(r) <= 50 and b"(width 50)" in r.stdout,
       "--width 50 wins over COLUMNS", r.stdout[:300])
    r = MHA.run(["O gato sobe no tapete", "--variant", "block", "--d-model",
                 "4", "--tables", "ffn_hidden", "--width", "0"])
    ok(r.returncode == 0 and widest(r) > 120 and
       b"blocks of columns" not in r.stdout,
       "--width 0: no limit, one block", r.stdout[:300])
    r = MHA.run(args, env={"COLUMNS": "wide"})
    ok(r.returncode == 0 and widest(r) <= 80,
       "a COLUMNS that is not a number is ignored (80)", r.stdout[:300])
    MHA.check_error(["x", "--width", "-1"], "--width")
    MHA.check_error(["x", "--width", "100001"], "--width")


screens()
not_a_terminal()
sys.exit(done())
