#!/usr/bin/env python3
"""Layering check (TAP): the folders of src/ are the stages of a run, and
every include follows them downwards.

    layering_test.py SOURCE_ROOT

The stages, from the bottom: base (errors, messages, signals), numerics,
io, model, render, plot, html, cli; main.c and wasm/ (the page's entry
points) stand on top. A file may include its own folder's headers and
those of any folder below it; one TAP line per folder, failing with each
include that runs upwards."""

import os
import re
import sys

STAGES = ["base", "numerics", "io", "model", "render", "plot", "html", "cli",
          "wasm"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/', re.MULTILINE)


def folder_of(path, src):
    rel = os.path.relpath(path, src)
    top = rel.split(os.sep)[0]
    return top if os.sep in rel else "wasm"  # main.c stands with the top


def main():
    src = os.path.join(sys.argv[1], "src")
    upward = {stage: [] for stage in STAGES}
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(root, name)
            folder = folder_of(path, src)
            if folder not in upward:
                upward.setdefault(folder, [])
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for target in INCLUDE.findall(text):
                if target in STAGES and \
                        STAGES.index(target) > STAGES.index(folder):
                    upward[folder].append("%s includes %s/" % (
                        os.path.relpath(path, sys.argv[1]), target))
    unknown = [f for f in upward if f not in STAGES]
    print("1..%d" % (len(STAGES) + 1))
    failed = 0
    for n, stage in enumerate(STAGES, 1):
        if upward[stage]:
            failed += 1
            print("not ok %d - %s/ includes only its own stage and those "
                  "below" % (n, stage))
            for line in upward[stage]:
                print("# " + line)
        else:
            print("ok %d - %s/ includes only its own stage and those below"
                  % (n, stage))
    n = len(STAGES) + 1
    if unknown:
        failed += 1
        print("not ok %d - every folder of src/ is a stage: add %s to "
              "STAGES" % (n, ", ".join(sorted(unknown))))
    else:
        print("ok %d - every folder of src/ is a stage" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
