"""The differences compare_builds.py is told to expect: a manifest of
entries, each naming the cases it covers, what may differ in them, and
the commit and the test that made the difference on purpose.

A manifest is blocks of "key: value" lines; a blank line ends a block,
and a line starting with # is a comment.

    case: --ablate                  (a regular expression, searched in the
    case: --head-scores              case's name; several case lines: any)
    differs: status stdout stderr   (what may differ: status, stdout,
                                     stderr, files)
    old-stderr: unknown option      (optional: a regular expression the
    new-stderr: out of range         old or the new standard error holds)
    old-status: 2                   (optional: the old or the new exit
    new-status: 0                    status, exactly)
    stdout-change: added            (optional: how the standard output
                                     changed: "added", the old lines all
                                     kept in order and lines added;
                                     "rewrapped", the same characters
                                     but for spaces, line ends and #;
                                     "notes", the lines that are not
                                     --explain's notes (# ...) the same)
    files-change: page-data         (optional: how the files changed:
                                     "page-data", every file that differs
                                     is a page whose tables (its mha-data
                                     but the words of its labels) are the
                                     same)
    commit: 0123abcd                (the commit that made the change)
    test: interventions             (the tests, as `meson test --list`
                                     names them, that pin the new
                                     behaviour; several, space-separated)
    why: --ablate did not exist     (one line for the reader)

A case's name is its command line with the source root written {root}
and a run's own folder {d}; a case read from a file of tests/ starts
with that file's path and a colon. A differing case is expected when an
entry's case matches its name, everything that differs is in the
entry's differs, and the entry's optional conditions hold."""

import difflib
import json
import os
import re
import subprocess

ASPECTS = ("status", "stdout", "stderr", "files")
KEYS = ("case", "differs", "old-stderr", "new-stderr", "old-status",
        "new-status", "stdout-change", "files-change", "commit", "test",
        "why")
REQUIRED = ("case", "differs", "commit", "test", "why")


class ManifestError(Exception):
    """A manifest that cannot be read: its file, line and why."""


def _entry(fields, where):
    """One block's fields (key -> list of values) as an entry dict."""
    for key in REQUIRED:
        if key not in fields:
            raise ManifestError("%s: the entry has no '%s'" % (where, key))
    for key in KEYS[1:]:
        if len(fields.get(key, [])) > 1:
            raise ManifestError("%s: '%s' is given twice" % (where, key))
    entry = {"where": where, "matched": 0}
    try:
        entry["case"] = [re.compile(c) for c in fields["case"]]
        for key in ("old-stderr", "new-stderr"):
            if key in fields:
                entry[key] = re.compile(fields[key][0])
    except re.error as e:
        raise ManifestError("%s: %s" % (where, e)) from None
    entry["differs"] = set(fields["differs"][0].split())
    unknown = entry["differs"] - set(ASPECTS)
    if unknown or not entry["differs"]:
        raise ManifestError("%s: differs takes %s, not '%s'" % (
            where, ", ".join(ASPECTS), fields["differs"][0]))
    for key in ("old-status", "new-status"):
        if key in fields:
            if not re.fullmatch(r"[0-9]+", fields[key][0]):
                raise ManifestError("%s: %s is a number, not '%s'" % (
                    where, key, fields[key][0]))
            entry[key] = int(fields[key][0])
    if "stdout-change" in fields:
        entry["stdout-change"] = fields["stdout-change"][0]
        if entry["stdout-change"] not in STDOUT_CHANGES:
            raise ManifestError("%s: stdout-change takes %s, not '%s'" % (
                where, ", ".join(STDOUT_CHANGES), entry["stdout-change"]))
    if "files-change" in fields:
        entry["files-change"] = fields["files-change"][0]
        if entry["files-change"] not in FILES_CHANGES:
            raise ManifestError("%s: files-change takes %s, not '%s'" % (
                where, ", ".join(FILES_CHANGES), entry["files-change"]))
    entry["commit"] = fields["commit"][0]
    entry["test"] = fields["test"][0].split()
    entry["why"] = fields["why"][0]
    return entry


def read(path):
    """The manifest at path as a list of entries, in the file's order."""
    entries, fields, start = [], {}, 0
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines() + [""]
    for n, line in enumerate(lines, 1):
        if line.startswith("#"):
            continue
        if not line.strip():
            if fields:
                entries.append(_entry(fields, "%s:%d" % (path, start)))
            fields = {}
            continue
        key, sep, value = line.partition(":")
        if not sep or key not in KEYS or not value.strip():
            raise ManifestError("%s:%d: expected 'key: value' with a key "
                                "of %s" % (path, n, ", ".join(KEYS)))
        if not fields:
            start = n
        fields.setdefault(key, []).append(value.strip())
    return entries


def _added(old, new):
    """Whether new is old with lines added and none changed or lost."""
    ops = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(),
                                  autojunk=False).get_opcodes()
    return all(op in ("equal", "insert") for op, *_ in ops)


def _rewrapped(old, new):
    """Whether new is old filled to other line ends: the same characters
    but for spaces, line ends and the comments' #."""
    def squeeze(b):
        return re.sub(rb"[\s#]+", b"", b)
    return squeeze(old) == squeeze(new)


def _notes(old, new):
    """Whether only --explain's notes (the lines starting with #) differ:
    the tables' lines are the same, in the same order."""
    def tables(b):
        return [line for line in b.splitlines() if not line.startswith(b"#")]
    return tables(old) == tables(new)


STDOUT_CHANGES = {"added": _added, "rewrapped": _rewrapped, "notes": _notes}


PAGE_DATA = re.compile(rb'<script type="application/json" id="mha-data">'
                       rb'(.*?)</script>', re.S)


def _page_tables(page):
    """A page's mha-data without its labels (the page's words), or None
    when the page has none."""
    m = PAGE_DATA.search(page)
    if not m:
        return None
    data = json.loads(m.group(1))
    data.pop("labels", None)
    return data


def _page_data(old, new):
    """Whether every file that differs between the runs (name -> bytes) is
    a page of both whose tables are the same."""
    for name in set(old) | set(new):
        if old.get(name) == new.get(name):
            continue
        if name not in old or name not in new:
            return False
        a, b = _page_tables(old[name]), _page_tables(new[name])
        if a is None or a != b:
            return False
    return True


FILES_CHANGES = {"page-data": _page_data}


def matches(entry, name, differs, old, new):
    """Whether entry expects the case called name, whose differing parts
    are differs, with results old and new: (status, stdout, stderr,
    files)."""
    if not any(c.search(name) for c in entry["case"]):
        return False
    if not set(differs) <= entry["differs"]:
        return False
    for key, result in (("old", old), ("new", new)):
        if key + "-status" in entry and result[0] != entry[key + "-status"]:
            return False
        if key + "-stderr" in entry and not entry[key + "-stderr"].search(
                result[2].decode("utf-8", "replace")):
            return False
    change = entry.get("stdout-change")
    if change and not STDOUT_CHANGES[change](old[1], new[1]):
        return False
    change = entry.get("files-change")
    if change and not FILES_CHANGES[change](old[3], new[3]):
        return False
    return True


def expected_by(entries, name, differs, old, new):
    """The first entry that expects this difference, or None; counts it."""
    for entry in entries:
        if matches(entry, name, differs, old, new):
            entry["matched"] += 1
            return entry
    return None


def build_tests(build):
    """The names of the tests of the meson build folder build, each bare
    and as SUITE/NAME (meson-info/intro-tests.json)."""
    with open(os.path.join(build, "meson-info", "intro-tests.json"),
              encoding="utf-8") as f:
        tests = json.load(f)
    names = set()
    for t in tests:
        names.add(t["name"])
        for suite in t["suite"]:
            # "project:suite"
            names.add(suite.split(":")[-1] + "/" + t["name"])
    return names


def missing_tests(entries, build):
    """The tests the entries name that the build folder does not have:
    a list of lines."""
    tests = build_tests(build)
    return ["%s: no test '%s' in %s" % (e["where"], t, build)
            for e in entries for t in e["test"] if t not in tests]


def missing_commits(entries, root):
    """The commits the entries name that root's repository does not hold:
    a list of lines."""
    out = []
    for entry in entries:
        r = subprocess.run(["git", "-C", root, "rev-parse", "--verify",
                            "--quiet", entry["commit"] + "^{commit}"],
                           capture_output=True)
        if r.returncode != 0:
            out.append("%s: commit %s is not in %s" % (
                entry["where"], entry["commit"], root))
    return out
