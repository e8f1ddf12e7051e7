#!/usr/bin/env python3
"""Runs the commands a document shows, as a reader types them.

Usage: doc_commands.py MHA_EXPLAIN DOC.md DIR [NAME=FOLDER...]

Prints TAP. A command is an indented line of the document starting with
`mha-explain` (with its continuation lines ending in a backslash); DIR,
the checkpoint the document's examples name, stands for its DIR, and
each NAME given (BERT_DIR) for its FOLDER. Each
runs in a scratch folder under the shell, with `mha-explain` on PATH the
program given, and must exit with status 0. A command that uses a shell
variable set by another of the document's lines (the lesson trainings of
thousands of steps, which take minutes) is listed as skipped. Python 3
standard library only.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cli"))
from taplib import done, ok  # noqa: E402


def commands(path):
    """The document's commands, each joined from its lines."""
    found, current = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            text = line.rstrip("\n")
            if current is not None:
                current += " " + text.strip().rstrip("\\").strip()
                if not text.endswith("\\"):
                    found.append(current)
                    current = None
                continue
            m = re.match(r"    (mha-explain .*)", text)
            if m is None:
                continue
            body = m.group(1)
            if body.endswith("\\"):
                current = body.rstrip("\\").strip()
            else:
                found.append(body)
    return found


def main():
    program, doc, folder = (os.path.abspath(a) for a in sys.argv[1:4])
    others = [a.split("=", 1) for a in sys.argv[4:]]
    found = commands(doc)
    ok(len(found) > 0, "%s shows commands (%d)" % (doc, len(found)))
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
            line = command
            for name, path in others:
                line = re.sub(r"\b%s\b" % name,
                              shlex.quote(os.path.abspath(path)), line)
            line = re.sub(r"\bDIR\b", shlex.quote(folder), line)
            r = subprocess.run(["/bin/sh", "-c", line], cwd=tmp,
                               capture_output=True, timeout=600, env=env)
            ok(r.returncode == 0, "runs: %s" % command,
               r.stderr.decode("utf-8", "replace"))
    sys.exit(done())


if __name__ == "__main__":
    main()
