#!/usr/bin/env python3
"""Formatting check (TAP): every C file of src/ and tests/ (but not the
libFuzzer targets of tests/fuzz/) must be as clang-format formats it with
the repository's .clang-format.

    format_test.py SOURCE_ROOT

One TAP line per file; a file that differs fails, with the change
clang-format would make and the command that makes it. Exits 77 (skipped)
when clang-format is not installed."""

import glob
import os
import shutil
import subprocess
import sys


def main():
    root = sys.argv[1]
    clang_format = (shutil.which("clang-format")
                    or shutil.which("clang-format-14"))
    if clang_format is None:
        print("1..0 # SKIP clang-format is not installed")
        return 77
    fuzz = os.path.join(root, "tests", "fuzz", "")
    files = sorted(glob.glob(os.path.join(root, "src", "**", "*.[ch]"),
                             recursive=True)
                   + [path for path in
                      glob.glob(os.path.join(root, "tests", "**", "*.c"),
                                recursive=True)
                      if not path.startswith(fuzz)])
    print("1..%d" % len(files))
    failed = 0
    for n, path in enumerate(files, 1):
        rel = os.path.relpath(path, root)
        with open(path, "rb") as f:
            original = f.read()
        formatted = subprocess.run(
            [clang_format, "--style=file", "--assume-filename=" + path],
            input=original, stdout=subprocess.PIPE, check=True).stdout
        if formatted == original:
            print("ok %d - %s" % (n, rel))
            continue
        failed += 1
        print("not ok %d - %s is not formatted "
              "(run: clang-format -i %s)" % (n, rel, rel))
        diff = subprocess.run(
            ["diff", "-u", path, "-"], input=formatted,
            stdout=subprocess.PIPE).stdout.decode("utf-8", "replace")
        for line in diff.splitlines()[2:40]:
            print("# " + line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
