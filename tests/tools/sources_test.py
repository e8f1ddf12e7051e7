#!/usr/bin/env python3
"""Built sources (TAP): every C file of src/ is named in a meson.build.

    sources_test.py SOURCE_ROOT

A file is named when a meson.build of the project holds its path, in
quotes, relative to that meson.build's folder (src/meson.build's
'model/heads.c', src/wasm/meson.build's '../io/page_files.c'). A C file
that no list names is built by no target: it is not compiled, its
warnings are never seen, and a reader takes it for code that runs.
The second line checks the reader of the lists itself: it must find at
least as many names as src/meson.build plainly holds."""

import os
import re
import sys

SKIP = {"build", "node_modules", ".git"}


def named_files(root):
    """The normalised paths every meson.build of root names."""
    named = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs
                   if d not in SKIP and not d.startswith("build")]
        if "meson.build" not in files:
            continue
        with open(os.path.join(folder, "meson.build"),
                  encoding="utf-8") as f:
            text = f.read()
        for name in re.findall(r"'([^'\n]+\.c)'", text):
            named.add(os.path.normpath(os.path.join(folder, name)))
    return named


def main():
    root = os.path.abspath(sys.argv[1])
    named = named_files(root)
    unnamed = []
    count = 0
    for folder, _, files in os.walk(os.path.join(root, "src")):
        for name in sorted(files):
            if not name.endswith(".c"):
                continue
            count += 1
            path = os.path.normpath(os.path.join(folder, name))
            if path not in named:
                unnamed.append(os.path.relpath(path, root))
    print("1..2")
    title = "every C file of src/ is named in a meson.build (%d)" % count
    if unnamed:
        print("not ok 1 - " + title)
        for path in sorted(unnamed):
            print("# not in any list: " + path)
    else:
        print("ok 1 - " + title)
    in_src = sum(1 for p in named
                 if p.startswith(os.path.join(root, "src") + os.sep))
    if in_src >= 200:
        print("ok 2 - the lists name %d files of src/" % in_src)
    else:
        print("not ok 2 - the lists name only %d files of src/" % in_src)
    return 1 if unnamed or in_src < 200 else 0


if __name__ == "__main__":
    sys.exit(main())
