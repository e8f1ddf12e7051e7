#!/usr/bin/env python3
"""compare_builds.py's --expected manifests: the committed one reads, its
tests are the build's and its commits the repository's; an entry takes
only the differences it describes (what differs, the old and new
standard error and status, lines added, notes filled to other widths,
notes reworded over the same tables, pages whose tables are the same); a manifest that cannot be read is
refused naming its line; and compare_builds.py, run on two small
scripts, counts expected and unexpected differences and stale entries.

    compare_expected_test.py SOURCE_ROOT BUILD_ROOT

Prints TAP."""

import os
import re
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
import expected_diffs  # noqa: E402
from taplib import done, ok  # noqa: E402

ROOT, BUILD = sys.argv[1:3]
MANIFEST = os.path.join(HERE, "compare_2d6dd40.expected")


def git_history(root):
    """Whether root is a git checkout with its whole history."""
    r = subprocess.run(["git", "-C", root, "rev-parse",
                        "--is-shallow-repository"], capture_output=True,
                       text=True)
    return r.returncode == 0 and r.stdout.strip() == "false"


def manifest(text):
    """The entries of a manifest holding text."""
    with tempfile.NamedTemporaryFile("w", suffix=".expected",
                                     delete=False) as f:
        f.write(text)
    try:
        return expected_diffs.read(f.name)
    finally:
        os.unlink(f.name)


def refused(text):
    """The ManifestError a manifest holding text raises, as a string
    ("" when it is read)."""
    try:
        manifest(text)
    except expected_diffs.ManifestError as e:
        return str(e)
    return ""


ENTRY = "commit: abc1234\ntest: cli\nwhy: a reason\n"


def result(status=0, out=b"", err=b"", files=None):
    return (status, out, err, files or {})


def takes(text, differs, old, new, name="x --explain"):
    return expected_diffs.matches(manifest(text)[0], name, differs, old, new)


def committed():
    try:
        entries = expected_diffs.read(MANIFEST)
    except expected_diffs.ManifestError as e:
        ok(False, "compare_2d6dd40.expected reads", e)
        return
    ok(len(entries) > 0, "compare_2d6dd40.expected reads: %d entries"
       % len(entries))
    missing = expected_diffs.missing_tests(entries, BUILD)
    ok(not missing, "every test it names is one of the build's", missing)
    if git_history(ROOT):
        missing = expected_diffs.missing_commits(entries, ROOT)
        ok(not missing, "every commit it names is in the repository",
           missing)
    else:
        ok(True, "# SKIP its commits: the source is no git checkout with "
           "its history")


def conditions():
    e = "case: --explain\ndiffers: stdout\n" + ENTRY
    ok(takes(e, ["stdout"], result(out=b"a"), result(out=b"b")),
       "an entry takes a case it names where only what it allows differs")
    ok(not takes(e, ["stdout"], result(out=b"a"), result(out=b"b"),
                 name="x --train 2"),
       "an entry does not take a case its case does not match")
    ok(not takes(e, ["status", "stdout"], result(out=b"a"),
                 result(2, b"b")),
       "an entry does not take a case where more differs than it allows")
    e = ("case: .\ndiffers: status stderr\nold-stderr: unknown option\n"
         "new-status: 0\n" + ENTRY)
    old = result(2, err=b"mha-explain: unknown option '--ablate'\n")
    ok(takes(e, ["status", "stderr"], old, result(0)),
       "old-stderr and new-status: taken when both hold")
    ok(not takes(e, ["status", "stderr"], result(2, err=b"other"),
                 result(0)), "old-stderr: not taken when it does not hold")
    ok(not takes(e, ["status", "stderr"], old, result(1)),
       "new-status: not taken when the status is another")
    e = "case: .\ndiffers: stdout\nstdout-change: added\n" + ENTRY
    ok(takes(e, ["stdout"], result(out=b"a\nb\n"),
             result(out=b"a\nnew\nb\nmore\n")),
       "stdout-change added: lines added, none changed")
    ok(not takes(e, ["stdout"], result(out=b"a\nb\n"),
                 result(out=b"a\nB\nmore\n")),
       "stdout-change added: a changed line is not taken")
    e = "case: .\ndiffers: stdout\nstdout-change: rewrapped\n" + ENTRY
    ok(takes(e, ["stdout"], result(out=b"# one two\n# three\n"),
             result(out=b"# one\n# two three\n")),
       "stdout-change rewrapped: the same words on other lines")
    ok(not takes(e, ["stdout"], result(out=b"# one two\n# three\n"),
                 result(out=b"# one\n# too three\n")),
       "stdout-change rewrapped: a changed word is not taken")
    e = "case: .\ndiffers: stdout\nstdout-change: notes\n" + ENTRY
    ok(takes(e, ["stdout"], result(out=b"# a note\nq 0.25\n"),
             result(out=b"# a note, reworded\nq 0.25\n")),
       "stdout-change notes: a note reworded, the tables the same")
    ok(not takes(e, ["stdout"], result(out=b"# a note\nq 0.25\n"),
                 result(out=b"# a note\nq 0.26\n")),
       "stdout-change notes: a table's line changed is not taken")


def page(labels, value, script=b""):
    return (b'<html><script type="application/json" id="mha-data">'
            b'{"labels": {"View": "%s"}, "t": [%s]}</script><script>%s'
            b'</script></html>' % (labels, value, script))


def pages():
    e = "case: .\ndiffers: files\nfiles-change: page-data\n" + ENTRY
    old = result(files={"p.html": page(b"View", b"1.5")})
    ok(takes(e, ["files"], old, result(files={
        "p.html": page(b"Vista", b"1.5", b"draw()")})),
       "files-change page-data: other words and script, the same tables")
    ok(not takes(e, ["files"], old, result(files={
        "p.html": page(b"View", b"1.25")})),
       "files-change page-data: a table's value changed is not taken")
    ok(not takes(e, ["files"], old, result(files={
        "p.html": page(b"View", b"1.5"), "p.svg": b"<svg/>"})),
       "files-change page-data: another file written is not taken")


def bad_manifests():
    for text, says in (
            ("case: x\ndiffers: stdout\ncolour: red\n" + ENTRY, ":3:"),
            ("case: x\ndiffers: stdout\ntest: cli\nwhy: w\n", "'commit'"),
            ("case: x\ndiffers: output\n" + ENTRY, "differs takes"),
            ("case: (x\ndiffers: stdout\n" + ENTRY, ":1"),
            ("case: x\ndiffers: stdout\nnew-status: two\n" + ENTRY,
             "new-status is a number"),
            ("case: x\ndiffers: stdout\nstdout-change: some\n" + ENTRY,
             "stdout-change takes"),
            ("case: x\ndiffers: stdout\ncommit: a\n" + ENTRY,
             "'commit' is given twice")):
        why = refused(text)
        ok(says in why, "a bad manifest is refused: %s" % says, why)


def script(folder, name, body):
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def tool(folder, text):
    """compare_builds.py on two scripts, with a manifest holding text:
    (status, stdout)."""
    # the old build prints nothing, the new one "new" in --explain's runs
    old = script(folder, "old", "exit 0\n")
    new = script(folder, "new", 'case " $* " in *" --explain "*) '
                 'echo new;; esac\n')
    path = os.path.join(folder, "m.expected")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    r = subprocess.run([sys.executable, os.path.join(
        HERE, "compare_builds.py"), old, new, ROOT, "--expected", path],
        capture_output=True, text=True, timeout=600)
    return r.returncode, r.stdout + r.stderr


def whole_tool():
    if not git_history(ROOT):
        ok(True, "# SKIP compare_builds.py --expected: its manifest's "
           "commit needs the repository's history")
        return
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    entry = ("case: (^| )--explain( |$)\ndiffers: stdout\ncommit: %s\n"
             "test: cli\nwhy: the explained runs print new\n" % head)
    with tempfile.TemporaryDirectory() as d:
        status, out = tool(d, entry)
        ok(status == 0 and " 0 unexpected-different; 0 stale" in out
           and "DIFF" not in out,
           "every difference expected: exit 0", out[-2000:])
        status, out = tool(d, "# nothing expected\n")
        ok(status == 1 and "DIFF (stdout): " in out
           and re.search(r" 0 expected-different, [1-9][0-9]* "
                         r"unexpected-different", out),
           "differences no entry expects: exit 1", out[-2000:])
        stale = entry.replace("--explain", "--no-such")
        status, out = tool(d, entry + "\n" + stale)
        ok(status == 1 and "STALE: " in out and "DIFF" not in out
           and " 0 unexpected-different; 1 stale" in out,
           "an entry that matches no difference: exit 1", out[-2000:])
        status, out = tool(d, entry.replace(head, "0" * 40))
        ok(status != 0 and "commit 0000000000000000000000000000000000000000"
           " is not in" in out, "a commit not in the repository: refused",
           out[-2000:])


committed()
conditions()
pages()
bad_manifests()
whole_tool()
sys.exit(done())
