#!/usr/bin/env python3
"""Writes docs/guide.md and docs/notebooks.md with real program output,
and the pictures listed in HAND_FIGURES of pages written by hand.

The pages are written from the templates in docs/templates/. A template
line of the form

    @run[opts] COMMAND

(inside a ``` fence) becomes "$ COMMAND" followed by what the command
printed, stdout and stderr together. COMMAND runs under bash in a fresh
temporary directory that holds a link to the repository's data/, with the
program's directory first on PATH. opts, comma-separated inside []:

    keep=A-B;C-D   keep only these output lines (1-based), "..." for gaps
    status         add "$ echo $?" and the exit status
    hide           run it but show nothing (set-up commands)
    quiet          show the command but not its output

A template line (outside a fence) of the form

    @figure[ALT] FILE COMMAND

runs COMMAND the same way, which must write the picture FILE (a PNG,
with --plot FILE); it becomes "$ COMMAND" in a fence and the picture
below it, and FILE is copied into docs/. With --check a figure is out of
date when docs/FILE is missing or its size in pixels differs (its bytes
may differ with the fonts installed).

A page written by hand (docs/interventions.md) has its pictures drawn
here too, listed in HAND_FIGURES: the page's own block of commands (the
indented lines tests/tools/doc_commands.py reads) that draws the file is
run as shown, in a temporary directory, and the file is copied into
docs/. Such a block may write a checkpoint under /tmp first with
`python3 tests/tools/gpt2_checkpoint.py DIR`; a DIR that already holds
a model.safetensors is kept (delete it to write it again: GPT-2 small's
shape takes a few minutes). With --check a hand figure is only checked
to be a PNG in docs/ and drawn by a block of its page (drawing it needs
that checkpoint; tests/tools/doc_commands.py runs the same commands on
a narrower one).

A command that fails without "status" is reported, and the script exits 1.
Run it again after changing the program:

    python3 docs/make_docs.py build/src

With --check it writes nothing and exits 1 if a page differs from what
the program prints now (the test suite runs it so).
"""
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PAGES = ["guide.md", "notebooks.md"]
# The pictures of the pages written by hand: the page, the picture kept
# in docs/, the file the page's commands draw (with --plot FILE).
HAND_FIGURES = [("interventions.md", "interventions-ioi.png", "ioi.png")]
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import doc_commands  # noqa: E402 (the commands of a page)


def run(cmd, cwd, env):
    p = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.stdout.decode("utf-8"), p.returncode


def cut(lines, spec):
    """The lines that keep=spec names, with "..." where lines are left out."""
    ranges = []
    for part in spec.split(";"):
        a, _, b = part.partition("-")
        a = int(a)
        b = int(b) if b else a
        if b == 0 or b > len(lines):
            b = len(lines)
        ranges.append((a, b))
    out, last = [], 0
    for a, b in ranges:
        if a > last + 1:
            out.append("...")
        out.extend(lines[a - 1:b])
        last = b
    if last < len(lines):
        out.append("...")
    return out


def png_size(path):
    """A PNG's width and height, or None."""
    try:
        with open(path, "rb") as f:
            head = f.read(24)
    except OSError:
        return None
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24],
                                                                "big")


def figure(m, cwd, env, check, out, failures):
    """@figure[ALT] FILE COMMAND: the command, then the picture."""
    alt, name, cmd = m.group(1), m.group(2), m.group(3)
    text, rc = run(cmd, cwd, env)
    made = os.path.join(cwd, name)
    if rc != 0 or png_size(made) is None:
        failures.append((cmd, None, "exit %d, no PNG %s: %s" % (rc, name,
                                                                 text)))
        return
    out.extend(["```", "$ " + cmd] + text.rstrip("\n").split("\n")
               if text.strip("\n") else ["```", "$ " + cmd])
    out.extend(["```", "", "![%s](%s)" % (alt, name)])
    kept = os.path.join(HERE, name)
    if not check:
        shutil.copyfile(made, kept)
    elif png_size(kept) != png_size(made):
        failures.append((cmd, None, "docs/%s is %s pixels, the program draws "
                         "%s: run python3 docs/make_docs.py build/src"
                         % (name, png_size(kept), png_size(made))))


def expand(src, cwd, env, check=False):
    out, failures = [], []
    for line in src.splitlines():
        f = re.match(r"^@figure\[([^\]]*)\] (\S+) (.*)$", line)
        if f:
            figure(f, cwd, env, check, out, failures)
            continue
        m = re.match(r"^@run(?:\[([^\]]*)\])? (.*)$", line)
        if not m:
            out.append(line)
            continue
        opts, cmd = m.group(1) or "", m.group(2)
        o = dict((kv.split("=", 1) + [""])[:2] for kv in opts.split(",") if kv)
        text, rc = run(cmd, cwd, env)
        if "status" not in o and rc != 0:
            failures.append((cmd, rc, text))
        if "hide" in o:
            continue
        out.append("$ " + cmd)
        lines = text.rstrip("\n").split("\n") if text.strip("\n") else []
        if "keep" in o:
            lines = cut(lines, o["keep"])
        if "quiet" not in o:
            out.extend(lines)
        if "status" in o:
            out.append("$ echo $?")
            out.append(str(rc))
    return "\n".join(out) + "\n", failures


def hand_figure(page, kept, drawn, env, check):
    """Draws docs/kept with the block of docs/page whose commands draw
    the file drawn; the failures, as (command, None, text)."""
    block = [b for b in doc_commands.blocks(os.path.join(HERE, page))
             if any(re.search(r"--plot %s\b" % re.escape(drawn), c)
                    for c in b)]
    if len(block) != 1:
        return [("docs/%s" % page, None, "no block of commands (or more "
                 "than one) draws %s" % drawn)]
    if check:
        if png_size(os.path.join(HERE, kept)) is None:
            return [("docs/%s" % kept, None, "missing: run python3 "
                     "docs/make_docs.py build/src")]
        return []
    with tempfile.TemporaryDirectory() as cwd:
        for cmd in block[0]:
            m = re.match(r"python3 tests/tools/gpt2_checkpoint.py (\S+)", cmd)
            if m and os.path.exists(os.path.join(m.group(1),
                                                 "model.safetensors")):
                print("%s: kept %s (delete it to write it again)"
                      % (page, m.group(1)))
                continue
            text, rc = run(doc_commands.script_line(cmd), cwd, env)
            if rc != 0:
                return [(cmd, None, "exit %d: %s" % (rc, text))]
        if png_size(os.path.join(cwd, drawn)) is None:
            return [(block[0][-1], None, "no PNG %s" % drawn)]
        shutil.copyfile(os.path.join(cwd, drawn), os.path.join(HERE, kept))
    return []


def main():
    args = sys.argv[1:]
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    if len(args) != 1:
        sys.exit("usage: make_docs.py [--check] PROGRAM_DIR   (e.g. build/src)")
    program_dir = os.path.abspath(args[0])
    if not os.access(os.path.join(program_dir, "mha-explain"), os.X_OK):
        sys.exit("make_docs.py: no mha-explain in " + program_dir)
    env = dict(os.environ, LC_ALL="C.UTF-8",
               PATH=program_dir + os.pathsep + os.environ.get("PATH", ""))
    env.pop("NO_COLOR", None)
    env.pop("COLUMNS", None)  # pages show the 80 columns of a pipe
    env.pop("COLORTERM", None)  # and 256 colours
    failed = False
    for page in PAGES:
        with tempfile.TemporaryDirectory() as cwd:
            os.symlink(os.path.join(ROOT, "data"), os.path.join(cwd, "data"))
            with open(os.path.join(HERE, "templates", page), encoding="utf-8") as f:
                text, failures = expand(f.read(), cwd, env, check)
        for cmd, rc, out in failures:
            if rc is None:  # a figure
                print("%s: %s\n%s" % (page, cmd, out), file=sys.stderr)
            else:
                print("%s: exit %d without 'status': %s\n%s"
                      % (page, rc, cmd, out), file=sys.stderr)
            failed = True
        path = os.path.join(HERE, page)
        if check:
            with open(path, encoding="utf-8") as f:
                old = f.read()
            if old != text:
                diff = difflib.unified_diff(old.splitlines(), text.splitlines(),
                                            "docs/" + page, "program output",
                                            lineterm="", n=1)
                print("\n".join(list(diff)[:40]))
                print("docs/%s is out of date: run python3 docs/make_docs.py "
                      "build/src" % page)
                failed = True
            continue
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    for page, kept, drawn in HAND_FIGURES:
        for cmd, _, out in hand_figure(page, kept, drawn, env, check):
            print("%s: %s\n%s" % (page, cmd, out), file=sys.stderr)
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
