#!/usr/bin/env python3
"""The man page's option list against the option rows.

Usage: man_test.py MHA_EXPLAIN SOURCE_ROOT

Prints TAP. --help is made from the rows of src/cli/option_list.h (and
test_option_rows checks that the defaults it tells are the rows'). The
OPTIONS section of docs/mha-explain.1 must describe every option of
--help and no other, each under the value name of its row (an option may
have a second entry for another use, such as --layers N and --layers
LIST), and where --help tells a number as the default (a whole or a
real number, or one for each choice of another option: "0.01 with adam,
0.1 with sgd") the man page's "Default:" says the same, and so does the
default column of docs/cli.md's tables of options.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cli"))
from taplib import done, ok  # noqa: E402

BINARY, ROOT = sys.argv[1:3]


def help_options():
    """{name: (value name or None, numeric default or None)}"""
    env = dict(os.environ, LANGUAGE="", LC_ALL="C.UTF-8")
    text = subprocess.run([BINARY, "--help"], capture_output=True, env=env,
                          text=True, check=True).stdout
    helps, last = {}, None
    for line in text.splitlines():
        m = re.match(r"  (?:-\w, )?--([\w-]+)(?: (\S+))?", line)
        if m:
            last = m.group(1)
            helps[last] = [m.group(2), ""]
        elif not line.startswith("    "):
            last = None
        if last is not None:
            helps[last][1] += line + " "
    found = {}
    for name, (value, words) in helps.items():
        # the option's own default is the last one its help tells
        told = [re.sub(r"\s+", " ", t)
                for t in re.findall(r"\(default ([^)]*)\)", words)]
        # (a flag's is its absence: --decimal-comma's "0.25" is a number
        # as written without it)
        numeric = value and told and re.fullmatch(NUMERIC, told[-1])
        found[name] = (value, told[-1] if numeric else None)
    return found


# A default --help tells as numbers: 42, 1.0, or 0.01 with adam, 0.1 with
# sgd.
NUMBER = r"\d+(?:\.\d+)?"
NUMERIC = r"%s(?: with [\w-]+(?:, %s with [\w-]+)*)?" % (NUMBER, NUMBER)


def cli_md_defaults():
    """{name: the default column of docs/cli.md's tables of options}"""
    with open(os.path.join(ROOT, "docs", "cli.md"), encoding="utf-8") as f:
        text = f.read()
    found = {}
    for m in re.finditer(r"^\| `--([\w-]+)[^`]*` \| ([^|]*) \| [^\n]*\|$",
                         text, re.M):
        found.setdefault(m.group(1), m.group(2).strip().strip("`"))
    return found


def man_entries():
    """[(name, value name or None, the entry's text)] of OPTIONS."""
    with open(os.path.join(ROOT, "docs", "mha-explain.1"),
              encoding="utf-8") as f:
        text = f.read()
    section = text.split("\n.SH OPTIONS\n", 1)[1].split("\n.SH ", 1)[0]
    entries = []
    for block in section.split("\n.TP\n")[1:]:
        head, _, body = block.partition("\n")
        m = re.match(r'\.B[IR]? (?:\\-\w ", " )?\\-\\-([\w\\-]+)'
                     r'(?: " ([^"\\]+))?', head)
        if m:
            entries.append((m.group(1).replace("\\-", "-"), m.group(2),
                            body))
    return entries


def main():
    rows = help_options()
    entries = man_entries()
    ok(len(rows) >= 50, "--help lists the options (%d)" % len(rows))
    names = {e[0] for e in entries}
    ok(names == set(rows), "the man page describes exactly --help's options",
       sorted(names ^ set(rows)))
    for name, (value, default) in rows.items():
        mine = [e for e in entries if e[0] == name]
        ok(any(e[1] == value for e in mine),
           "--%s: the man page names its value %s" % (name, value),
           [e[1] for e in mine])
        if default is not None:
            ok(any(re.search(r"Default: %s\b" % re.escape(default),
                             re.sub(r"\s+", " ", e[2]))
                   for e in mine),
               "--%s: the man page's default is %s" % (name, default))
    column = cli_md_defaults()
    told = [(n, d) for n, (_, d) in rows.items()
            if d is not None and n in column]
    ok(len(told) >= 8, "docs/cli.md's tables tell %d numeric defaults"
       % len(told))
    for name, default in told:
        ok(column[name] == default, "--%s: docs/cli.md's default is %s"
           % (name, default), column[name])
    done()


if __name__ == "__main__":
    main()
