#!/usr/bin/env python3
"""Streamed runs: the tables that go to the output as they are made
(text, --style torch, CSV, --csv-dir, --average, --check, --focus) give
the same bytes as a run that keeps its whole trace until the end. --html FILE
makes a run keep its trace and changes nothing on stdout or in
--csv-dir, so each case runs with and without it.

Also: the names --tables accepts are exactly the tables a run makes
(checked before a streamed run writes anything), and a run too large to
keep whole still runs when it streams, also on a terminal, where
--layout auto would otherwise lay the heads out as a grid.

Usage: stream_test.py MHA_EXPLAIN

Prints TAP.
"""
import os
import pty
import random
import subprocess
import sys
import tempfile

from taplib import Program, done, ok

MHA = Program(sys.argv[1])


def words(n, seed):
    rng = random.Random(seed)
    vocab = "the cat sat on mat and dog ran to house big small red".split()
    return " ".join(rng.choice(vocab) for _ in range(n))


def files_of(top):
    """{relative path: bytes} of every file under top."""
    found = {}
    for root, _, names in os.walk(top):
        for n in names:
            path = os.path.join(root, n)
            with open(path, "rb") as f:
                found[os.path.relpath(path, top)] = f.read()
    return found


S = words(40, 1)
WIDE = ["--d-model", "12", "--d-out", "12", "--heads", "4"]
CASES = [
    ("text", [S]),
    ("text, every variant, 4 heads, 1 thread",
     WIDE + ["--variant", "single,wrapper,fused,block", "--threads", "1", S]),
    ("text, every variant, 4 heads, 2 threads",
     WIDE + ["--variant", "single,wrapper,fused,block", "--threads", "2", S]),
    ("--style torch", WIDE + ["--style", "torch", "--threads", "1", S]),
    ("--explain", WIDE + ["--explain", "--variant", "wrapper,block", S]),
    ("--color always --color-scale row",
     WIDE + ["--color", "always", "--color-scale", "row", S]),
    ("--tables attn_weights,out --full", WIDE + ["--tables",
                                                "attn_weights,out", "--full",
                                                words(12, 2)]),
    ("--kv", WIDE + ["--kv", words(7, 3), "--threads", "1", words(9, 4)]),
    ("--average --color always, every variant, 2 threads",
     WIDE + ["--average", "--color", "always", "--variant",
             "single,wrapper,fused,block", "--threads", "2", S]),
    ("--average, CSV, 20 heads, 1 thread",
     ["--d-model", "20", "--d-out", "20", "--heads", "20", "--average",
      "--format", "csv", "--threads", "1", "--variant", "fused", S]),
    ("--qkv-bias --no-causal --tie",
     WIDE + ["--qkv-bias", "--no-causal", "--tie", "--variant",
             "wrapper,fused", S]),
    ("--check --tie, every variant, 1 thread",
     WIDE + ["--check", "--tie", "--variant", "single,wrapper,fused,block",
             "--threads", "1", S]),
    ("--check --kv, CSV (the report on stderr)",
     WIDE + ["--check", "--kv", words(6, 13), "--format", "csv", S]),
    ("--focus, every variant, 1 thread",
     WIDE + ["--focus", "cat", "--variant", "single,wrapper,fused,block",
             "--threads", "1", words(12, 14)]),
    ("--focus --kv --color always --tables attn_weights,out",
     WIDE + ["--focus", "dog@0", "--kv", words(6, 15), "--color", "always",
             "--tables", "attn_weights,out", "dog " + words(30, 16)]),
    ("--focus --full --tables queries,keys,values,concat_context",
     WIDE + ["--focus", "red@0", "--full", "--tables",
             "queries,keys,values,concat_context", "--variant",
             "wrapper,fused", "--threads", "2", "red " + words(50, 17)]),
    ("--check, --tables out",
     WIDE + ["--check", "--tables", "out", "--variant", "wrapper,fused", S]),
    ("CSV, every variant, 1 thread",
     WIDE + ["--variant", "single,wrapper,fused,block", "--format", "csv",
             "--threads", "1", S]),
    ("CSV, --decimal-comma --bom, 2 threads",
     WIDE + ["--format", "csv", "--decimal-comma", "--bom", "--threads", "2",
             S]),
    ("CSV, --tables queries,W_key.weight",
     WIDE + ["--format", "csv", "--tables", "queries,W_key.weight", S]),
    ("--csv-dir, text", WIDE + ["--csv-dir", "DIR", "--variant",
                                "wrapper,fused", S]),
    ("--csv-dir, CSV, --kv",
     WIDE + ["--csv-dir", "DIR", "--format", "csv", "--kv", words(5, 5), S]),
    ("--input, text", WIDE + ["--input", "INPUT", "--column", "s"]),
    ("--input, CSV, --csv-dir, 1 thread",
     WIDE + ["--input", "INPUT", "--column", "s", "--format", "csv",
             "--csv-dir", "DIR", "--threads", "1"]),
    ("--input, --style torch --tables attn_scores",
     WIDE + ["--input", "INPUT", "--column", "s", "--style", "torch",
             "--tables", "attn_scores"]),
]


def same_as_whole(tmp):
    sentences = os.path.join(tmp, "sentences.csv")
    with open(sentences, "w") as f:
        f.write("s\n%s\n%s\n\"%s, %s\"\n" % (words(6, 7), words(30, 8),
                                             words(3, 9), words(4, 10)))
    for k, (name, template) in enumerate(CASES):
        runs = []
        for whole in (False, True):
            work = os.path.join(tmp, "case%d-%d" % (k, whole))
            os.mkdir(work)
            args = [a.replace("DIR", os.path.join(work, "out"))
                    .replace("INPUT", sentences) for a in template]
            if whole:
                args += ["--html", os.path.join(tmp, "page%d.html" % k)]
            r = MHA.run(args)
            runs.append((r, files_of(os.path.join(work, "out"))))
        (a, a_files), (b, b_files) = runs
        ok(a.returncode == 0 and len(a.stdout) > 1000 and
           (a.returncode, a.stdout, a.stderr) ==
           (b.returncode, b.stdout, b.stderr),
           "%s: the same bytes streamed and with the whole trace" % name,
           (a.returncode, b.returncode, len(a.stdout), len(b.stdout),
            a.stderr[:200], b.stderr[:200]))
        if "--csv-dir" in template:
            ok(len(a_files) > 10 and a_files == b_files,
               "%s: the same --csv-dir files (%d)" % (name, len(a_files)),
               sorted(set(a_files) ^ set(b_files))[:5])


def table_names(args):
    """The table names of a run's CSV."""
    r = MHA.run(args + ["--format", "csv"])
    return {line.split(b",")[2].decode() for line in
            r.stdout.splitlines()[1:]}


def tables_option():
    # every table name any run makes (the block needs even widths here)
    everything = table_names([S, "--variant", "single,wrapper,fused,block",
                              "--average", "--qkv-bias", "--kv", "a b",
                              "--d-model", "4"])
    ok(len(everything) > 40, "the table names of every variant and option "
       "(%d)" % len(everything))
    runs = [
        ["--variant", "single,wrapper", "--average"],
        ["--variant", "fused", "--qkv-bias"],
        ["--variant", "fused,block", "--kv", "o cão late", "--heads", "2",
         "--d-model", "6"],
    ]
    # under valgrind (minutes for these many runs) one set of them
    for extra in runs[:1] if MHA.prefix else runs:
        made = table_names([S] + extra)
        wrong = []
        for name in sorted(everything):
            r = MHA.run([S, "--tables", name] + extra)
            if (r.returncode == 0) != (name in made):
                wrong.append((name, r.returncode, r.stderr[:120]))
            elif r.returncode != 0 and (r.stdout != b"" or
                                        b"makes no table" not in r.stderr):
                wrong.append((name, r.stdout[:60], r.stderr[:120]))
        ok(made and not wrong,
           "%s: --tables takes exactly the %d tables the run makes, and "
           "refuses the others before any output" % (" ".join(extra),
                                                     len(made)),
           wrong[:5])


def weights_before_output():
    # the last variant's file is read before the first table goes out
    cases = [
        (["--variant", "single,fused"], "fused.W_query.weight.csv",
         "token,in0,in1\nout0,1,2\n"),
        (["--variant", "single,fused", "--tie"],
         "wrapper.heads.1.W_key.weight.csv",
         "token,in0,in1,in2\nout0,1,2,x\n"),
    ]
    for extra, name, text in cases:
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
            r = MHA.run([S, "--weights", tmp] + extra)
        ok(r.returncode == 2 and r.stdout == b"" and
           len(r.stderr.splitlines()) == 1 and name.encode() in r.stderr,
           "%s: a bad --weights file of a later variant stops the run "
           "before any output" % " ".join(extra),
           (r.returncode, r.stdout[:60], r.stderr[:200]))


def larger_than_whole():
    # 512 heads of one column over 400 tokens: every table together is
    # more than the limit, a few heads at a time are not
    args = ["--d-model", "8", "--d-out", "512", "--heads", "512",
            "--variant", "fused", "--tables", "out", words(400, 11)]
    if MHA.prefix:  # minutes under valgrind
        ok(True, "# SKIP a run of 160 million values under "
           "MHA_EXPLAIN_PREFIX")
    else:
        r = MHA.run(args)
        ok(r.returncode == 0 and
           r.stdout.startswith(b"[fused] out (400 x 512)"),
           "a run too large to keep whole runs streamed",
           (r.returncode, r.stdout[:80], r.stderr[:200]))
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "page.html")
        r = MHA.run(args + ["--html", page])
        ok(r.returncode == 2 and r.stdout == b"" and
           len(r.stderr.splitlines()) == 1 and
           b"every table kept to the end" in r.stderr and
           not os.path.exists(page),
           "with --html it would keep every table: refused before anything "
           "is made", (r.returncode, r.stderr[:300]))


def on_terminal(args):
    """(status, stdout, stderr) of a run whose standard output is a
    terminal (a pty), which chooses --layout grid unless told otherwise."""
    master, slave = pty.openpty()
    r = subprocess.run(MHA.command(args), stdin=subprocess.DEVNULL,
                       stdout=slave, stderr=subprocess.PIPE, timeout=120)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the pty is closed and read
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return r.returncode, out.replace(b"\r\n", b"\n"), r.stderr


def grid_on_terminal():
    big = ["--no-pager", "--width", "200", "--d-model", "8", "--d-out",
           "512", "--heads", "512", "--variant", "fused", "--tables", "out",
           words(400, 11)]
    if MHA.prefix:  # minutes under valgrind
        ok(True, "# SKIP a run of 160 million values under "
           "MHA_EXPLAIN_PREFIX")
    else:
        status, out, err = on_terminal(big)
        ok(status == 0 and out.startswith(b"[fused] out (400 x 512)"),
           "on a terminal, a run too large to keep whole is stacked and "
           "streamed instead of laid out as a grid",
           (status, out[:80], err[:200]))
    status, out, err = on_terminal(big + ["--layout", "grid"])
    ok(status == 2 and out == b"" and b"--layout grid" in err,
       "--layout grid asked for: refused, the message says why",
       (status, out[:80], err[:300]))
    small = ["--no-pager", "--width", "200", "--heads", "4", "--d-out", "8",
             "--variant", "fused", "--tables", "attn_weights",
             words(5, 12)]
    status, out, err = on_terminal(small)
    ok(status == 0 and out.startswith(b"[fused] heads 0 to 3: attn_weights"),
       "a run that fits is still a grid on a terminal", (status, out[:80]))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        same_as_whole(tmp)
    tables_option()
    weights_before_output()
    larger_than_whole()
    grid_on_terminal()
    return done()


if __name__ == "__main__":
    sys.exit(main())
