#!/usr/bin/env python3
"""tests/README.md maps every feature to its tests: this checks that the
map names every test of the build, every option of --help and every
table --help lists, and that each unit test is named after its file.

    test_map_test.py MHA_EXPLAIN SOURCE_ROOT BUILD_ROOT

The tests are meson's own list (BUILD_ROOT/meson-info/intro-tests.json),
each written in the map as `SUITE/NAME` (a fuzz target as `fuzz-NAME`;
a reference case as the `reference/reference-NAME` line, its NAME listed
in tests/reference/cases/cases.txt). The options and tables are read
from `MHA_EXPLAIN --help`, each written in the map's features part as
`--NAME` and `` `NAME` ``. A unit test NAME is built from
tests/unit/test_NAME.c (or is a script NAME_test.py), and every
tests/unit/test_*.c is a test. Prints TAP."""

import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cli"))
from taplib import done, ok  # noqa: E402

BINARY, ROOT, BUILD = sys.argv[1:4]

with open(os.path.join(ROOT, "tests", "README.md"), encoding="utf-8") as f:
    README = f.read()
# the features part: from its heading to the tools run by hand
FEATURES = README[README.index("## Features and their tests"):
                  README.index("## Tools run by hand")]


def help_text():
    env = dict(os.environ, LANGUAGE="", LC_ALL="C.UTF-8")
    return subprocess.run([BINARY, "--help"], capture_output=True, env=env,
                          text=True, check=True).stdout


def help_options(text):
    return [m.group(1) for m in
            re.finditer(r"^  (?:-\w, )?--([\w-]+)", text, re.M)]


def help_tables(text):
    """The names under "Tables, as --tables and the CSV name them", but
    the parameters' (named by the model, not the catalogue)."""
    part = text[text.index("Tables, as --tables"):]
    part = part[:part.index("  the parameters")]
    names = []
    for line in part.splitlines()[1:]:
        if line.startswith("    "):
            names += [n.strip() for n in line.split(",") if n.strip()]
    return names


def cases():
    with open(os.path.join(ROOT, "tests", "reference", "cases",
                           "cases.txt"), encoding="utf-8") as f:
        return {l.strip() for l in f
                if l.strip() and not l.startswith("#")}


def main():
    with open(os.path.join(BUILD, "meson-info", "intro-tests.json"),
              encoding="utf-8") as f:
        tests = json.load(f)
    ref_cases = cases()
    missing = []
    for t in tests:
        suite = t["suite"][0].split(":")[-1] if t["suite"] else ""
        name = t["name"]
        if suite == "reference" and name[len("reference-"):] in ref_cases:
            found = "`reference/reference-NAME`" in FEATURES
        elif suite == "fuzz":
            found = "`%s`" % name in FEATURES
        else:
            found = "`%s/%s`" % (suite, name) in FEATURES
        if not found:
            missing.append("%s/%s" % (suite, name))
    ok(len(tests) > 0 and not missing,
       "the map names each of the build's %d tests" % len(tests), missing)

    text = help_text()
    options = help_options(text)
    absent = [o for o in options
              if not re.search(r"`--%s`" % re.escape(o), FEATURES)]
    ok(len(options) > 50 and not absent,
       "the map names each of --help's %d options" % len(options), absent)

    tables = help_tables(text)
    absent = [t for t in tables if "`%s`" % t not in FEATURES]
    ok(len(tables) > 40 and not absent,
       "the map names each of --help's %d tables" % len(tables), absent)

    unit = {t["name"] for t in tests if t["suite"] == ["mha-explain:unit"]}
    unit_dir = os.path.join(ROOT, "tests", "unit")
    files = {f[len("test_"):-len(".c")] for f in os.listdir(unit_dir)
             if f.startswith("test_") and f.endswith(".c")}
    scripts = {f[:-len("_test.py")] for f in os.listdir(unit_dir)
               if f.endswith("_test.py")}
    ok(unit and unit <= files | scripts,
       "each unit test NAME is built from test_NAME.c or NAME_test.py",
       sorted(unit - files - scripts))
    ok(files <= unit, "each tests/unit/test_NAME.c is the unit test NAME",
       sorted(files - unit))
    return done()


if __name__ == "__main__":
    sys.exit(main())
