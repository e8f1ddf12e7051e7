#!/usr/bin/env python3
"""The allocation-failure sweep: every run with its N-th allocation failed
(tests/tools/failmalloc.c, loaded with LD_PRELOAD) either succeeds exactly as
the run without a failure does (same status, stdout and stderr: the
allocation had a fallback), or fails with status 1 or 2, one line on
stderr ('mha-explain: ...'), nothing left on disk and nothing on stdout
(a run without files or --input streams its tables as they are made, so
there a failure after the output began leaves the first tables of it,
each whole, and status 2). Never status 0 with different output, never a
crash.

Usage: alloc_sweep.py MHA_EXPLAIN LIBFAILMALLOC [--quick | --sample K]
                      [--only NAME | --only crashes]

--quick (the test suite) tries every N up to 80 and then 80 spread over
the rest of each run (every N of the short runs of EVERY_N); --sample K
tries K values of N spread over each run; without either every N is
tried (minutes; hours for the runs that draw pictures).

Runs that draw pictures (LIBRARY_RUNS) may also end on a signal raised
inside cairo, pango, fontconfig or GLib, which abort or crash when an
allocation fails: such a run must have left nothing behind, its stdout
empty and the supervising parent's line last on stderr
(cli/supervise.h). Those, runs that hang, and whole runs with a
library's warning on stderr are counted apart and reported.
Then a crash at the worst moment, right after a temporary file is made
and before the run could note it for the supervising parent (CRASHES):
nothing may be left. Prints TAP, and a summary line per command. Python
3 standard library.
"""
import os
import signal
import subprocess
import sys
import tempfile

# taplib.py and ptylib.py live with the command-line tests.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cli"))
from taplib import done, ok  # noqa: E402

S = "O gato sobe no tapete"
# the repository's tiny GPT-2 checkpoint, for --model runs
TINY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                    "reference", "gpt2", "tiny")
# name: arguments (DIR is a folder the run may write into)
COMMANDS = {
    "text": [S],
    "csv": [S, "--format", "csv"],
    "csv-dir": [S, "--csv-dir", "DIR/out"],
    "focus": [S, "--focus", "gato"],
    "explain": [S, "--explain", "--variant", "fused"],
    # several batches of heads, each written before the next is made
    "stream-text": [S, "--heads", "4", "--d-out", "8", "--threads", "1",
                    "--variant", "wrapper,fused", "--tables",
                    "attn_weights,head_context,out"],
    "stream-csv": [S, "--heads", "4", "--d-out", "8", "--d-model", "8",
                   "--threads", "1",
                   "--format", "csv", "--variant", "fused,block"],
    "input": ["--input", "SENTENCES", "--column", "s", "--variant",
              "single,fused"],
    "input-csv-dir": ["--input", "SENTENCES", "--column", "s", "--format",
                      "csv", "--csv-dir", "DIR/out"],
    # a notebook's order of draws, random input and dropout masks
    "notebook": [S, "--randn-input", "--batch", "2", "--draw",
                 "fused,input,block", "--d-model", "4", "--heads", "2",
                 "--dropout", "0.2", "--attn-dropout", "0.3", "--threads",
                 "1"],
    "html": [S, "--html", "DIR/p.html"],
    # training: the passes' working tables, the gradients, Adam's averages
    "train": [S, "--train", "2", "--grad", "--positions", "--variant",
              "single,wrapper,fused,block", "--d-model", "4", "--threads",
              "1", "--format", "csv"],
    "train-csv-dir": [S, "--train", "1", "--grad", "--optimizer", "sgd",
                      "--variant", "wrapper", "--csv-dir", "DIR/out"],
    # a checkpoint folder: config.json, the safetensors header, vocab.json
    # and merges.txt read, BPE, the layers' tables, the logits
    "model": ["--model", TINY, "hello, hello world!", "--threads", "1"],
    "model-csv-dir": ["--model", TINY, "hello world", "--tables",
                      "logits,next_tokens,h.0.attn.c_attn.weight",
                      "--threads", "1", "--csv-dir", "DIR/out"],
    # a trained model's folder read back (model.json, every file checked
    # before the first table), trained one step further
    "train-weights": [S, "--weights", "MODEL", "--train", "1", "--format",
                      "csv"],
    # the picture libraries (cairo, pango, fontconfig, GLib) allocate in
    # the run's child process (cli/supervise.h)
    "plot-html": [S, "--plot", "DIR/p.png", "--html", "DIR/p.html"],
    "input-plot-pdf": ["--input", "SENTENCES", "--column", "s", "--plot",
                       "DIR/p.pdf"],
}

# Runs short enough (about 1000 allocations) to try every N even with
# --quick: a checkpoint's run allocates its tables late, after the forward
# pass, where a spread of 80 values of N may miss one.
EVERY_N = ("model", "model-csv-dir")

# Runs whose failures may come from inside the picture libraries: those
# may abort, crash or print their own warnings when an allocation fails.
LIBRARY_RUNS = ("plot-html", "input-plot-pdf")


def run(program, shim, args, n, work):
    """(status, stdout, stderr, calls, failed) of one run failing
    allocation n (0: none)."""
    env = dict(os.environ)
    r_fd, w_fd = os.pipe()
    env.update({"LD_PRELOAD": shim, "MHA_FAIL_ALLOC": str(n),
                "MHA_ALLOC_COUNT_FD": str(w_fd), "TMPDIR": work})
    env.pop("NO_COLOR", None)
    env.pop("COLUMNS", None)
    p = subprocess.Popen([program] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env, pass_fds=(w_fd,),
                         cwd=work)
    os.close(w_fd)
    try:
        out, err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        os.close(r_fd)
        return "hung", out, err, 0, False
    report = b""
    while True:
        chunk = os.read(r_fd, 4096)
        if not chunk:
            break
        report += chunk
    os.close(r_fd)
    # a supervised run reports twice: the child's count and the parent's
    calls, failed = 0, False
    for line in report.decode().splitlines():
        parts = line.split()
        if len(parts) == 2:
            calls = max(calls, int(parts[0]))
            failed = failed or parts[1] == "1"
    return p.returncode, out, err, calls, failed


def whole_tables(out, full, csv):
    """Whether out, a cut-short output, is the beginning of the full
    output up to the end of a table: in text where a blank line and the
    next table's heading or note follow; in CSV at a line end where the
    next line starts another table (or after the header)."""
    if not full.startswith(out) or out == full:
        return False
    if out == b"":
        return True
    rest = full[len(out):]
    if not csv:
        return out.endswith(b"\n") and rest[:2] in (b"\n[", b"\n#")
    if not out.endswith(b"\n"):
        return False
    lines = out.splitlines()
    if len(lines) == 1 and lines[0].startswith(b"variant,"):
        return True

    def table_of(line):
        return line.split(b",")[:3]
    return table_of(lines[-1]) != table_of(rest.splitlines()[0])


def listing(top):
    found = []
    for root, dirs, names in os.walk(top):
        for n in dirs + names:
            found.append(os.path.relpath(os.path.join(root, n), top))
    return sorted(found)


# A crash at the worst moment: right after a file is made, before the
# run notes it (failmalloc.c's MHA_CRASH_ON_CREATE): (name, arguments,
# text of the path whose making crashes)
CRASHES = [
    ("a picture's temporary file", [S, "--plot", "DIR/p.png", "--html",
                                    "DIR/p.html"], ".p.png."),
    ("a page's temporary file", [S, "--html", "DIR/p.html"], ".p.html."),
    ("a file of --csv-dir's private folder", [S, "--csv-dir", "DIR/out"],
     "n0"),
]


def crash_on_create(program, shim, tmp):
    """Each of CRASHES ends on SIGSEGV, the parent says so, and nothing
    is left: the file was noted before it was made."""
    for number, (name, template, text) in enumerate(CRASHES):
        work = os.path.join(tmp, "crash%d" % number)
        os.mkdir(work)
        args = [a.replace("DIR", work) for a in template]
        env = dict(os.environ, LD_PRELOAD=shim, MHA_CRASH_ON_CREATE=text,
                   TMPDIR=work)
        p = subprocess.run([program] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=env, cwd=work,
                           timeout=60)
        lines = p.stderr.decode("utf-8", "replace").splitlines()
        left = listing(work)
        ok(p.returncode == -signal.SIGSEGV and p.stdout == b"" and
           lines[-1:] == ["mha-explain: the run ended on signal 11 "
                          "(Segmentation fault); its unfinished files were "
                          "removed"] and left == [],
           "a crash right after %s is made: nothing left" % name,
           (p.returncode, p.stderr[-300:], left))


def main():
    program, shim = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    quick = "--quick" in sys.argv
    sample = int(sys.argv[sys.argv.index("--sample") + 1]) \
        if "--sample" in sys.argv else 0
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv \
        else None
    totals = {"runs": 0, "same": 0, "failed": 0, "cut": 0}
    with tempfile.TemporaryDirectory() as tmp:
        sentences = os.path.join(tmp, "sentences.csv")
        with open(sentences, "w") as f:
            f.write("s\nO gato\nO gato sobe\n\"a, b\"\n")
        model = os.path.join(tmp, "trained-model")
        subprocess.run([program, S, "--train", "2", "--positions",
                        "--variant", "single,fused", "--d-model", "4",
                        "--csv-dir", model, "--tables", "loss"],
                       stdout=subprocess.DEVNULL, check=True)
        for name, template in COMMANDS.items():
            if only and name != only:
                continue
            work = os.path.join(tmp, name)
            os.mkdir(work)
            args = [a.replace("DIR", work).replace("SENTENCES", sentences)
                    .replace("MODEL", model) for a in template]
            base = run(program, shim, args, 0, work)
            files = listing(work)
            ok(base[0] == 0 and base[3] > 0,
               "%s: runs with the library loaded (%d allocations)"
               % (name, base[3]), base[2])
            total = base[3]
            if sample and total > sample:
                ns = sorted({1 + (total - 1) * k // (sample - 1)
                             for k in range(sample)})
            elif quick and total > 160 and name not in EVERY_N:
                step = (total - 80) / 80.0
                ns = list(range(1, 81)) + sorted(
                    {80 + int(step * k) for k in range(1, 81)})
            else:
                ns = list(range(1, total + 1))
            bad, same, failed, cut = [], 0, 0, 0
            library = {"crash": 0, "hung": 0, "noise": 0, "stdout": 0}
            by_signal = {}
            # a run that writes no file and reads no --input streams its
            # tables: a failure after the first cuts the output short
            # (status 2), after a whole table
            streamed = not any(a in args for a in ("--csv-dir", "--input"))
            for n in ns:
                # the output of the unfailed run, removed before each run
                for f in reversed(listing(work)):
                    path = os.path.join(work, f)
                    if os.path.isdir(path) and not os.path.islink(path):
                        os.rmdir(path)
                    else:
                        os.remove(path)
                status, out, err, calls, hit = run(program, shim, args, n,
                                                   work)
                lines = err.decode("utf-8", "replace").splitlines()
                left = listing(work)
                if status == base[0] and out == base[1] and err == base[2] \
                        and left == files:
                    same += 1
                elif status in (1, 2) and len(lines) == 1 and \
                        lines[0].startswith("mha-explain: ") and left == [] \
                        and (out == b"" or (streamed and whole_tables(
                            out, base[1], "csv" in args))):
                    failed += 1
                    cut += out != b""
                elif name in LIBRARY_RUNS and isinstance(status, int) and \
                        status < 0 and left == [] and \
                        (out == b"" or not base[1].startswith(out[:8])) and \
                        lines and lines[-1].startswith(
                            "mha-explain: the run ended on signal"):
                    # a library aborted or crashed in the child: the
                    # parent said so and removed the unfinished files
                    # (GLib's failed assertions write "Bail out! ..." on
                    # standard output themselves)
                    library["crash"] += 1
                    library["stdout"] += out != b""
                    by_signal[-status] = by_signal.get(-status, 0) + 1
                elif name in LIBRARY_RUNS and status == "hung":
                    library["hung"] += 1
                elif name in LIBRARY_RUNS and status == base[0] and \
                        out == base[1] and left == files:
                    # the whole output, with a library's warning on stderr
                    library["noise"] += 1
                else:
                    bad.append((n, status, out[:60], err[:200], left[:3]))
            totals["runs"] += len(ns)
            totals["same"] += same
            totals["failed"] += failed
            totals["cut"] += cut
            print("# %s: %d allocations, %d runs: %d as without a failure, "
                  "%d clean failures (%d with the text cut short), %d wrong"
                  % (name, total, len(ns), same, failed, cut, len(bad)))
            if name in LIBRARY_RUNS:
                print("# %s: inside the picture libraries: %d ended on a "
                      "signal (nothing left behind: %s; %d with the "
                      "library's own text on stdout), %d hung, %d whole "
                      "with a library's warning" % (
                          name, library["crash"],
                          ", ".join("%d %s" % (n, signal.Signals(sig).name)
                                    for sig, n in sorted(by_signal.items())),
                          library["stdout"], library["hung"],
                          library["noise"]))
            for k in library:
                totals[k] = totals.get(k, 0) + library[k]
            ok(not bad, "%s: every failed allocation gives the whole output "
               "or a clean failure" % name,
               "\n".join("N=%d status %s stdout %r stderr %r left %r" % b
                         for b in bad[:8]))
        if only in (None, "crashes"):
            crash_on_create(program, shim, tmp)
    print("# all: %(runs)d runs, %(same)d as without a failure, "
          "%(failed)d clean failures (%(cut)d with the text cut short)"
          % totals)
    print("# picture libraries: %d ended on a signal with nothing left "
          "behind, %d hung, %d whole with a warning"
          % (totals.get("crash", 0), totals.get("hung", 0),
             totals.get("noise", 0)))
    return done()


if __name__ == "__main__":
    sys.exit(main())
