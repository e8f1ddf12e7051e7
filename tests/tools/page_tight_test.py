#!/usr/bin/env python3
"""The page's scripts made tight (src/html/page/embed.py) are the same
program: for every script of src/html/page, acorn's tokens of compact()
and of tight(compact()) are the same, in the same order, with the same
values (regular expressions and strings too). A space that parted two
tokens, left out, joins them into one token or none; a regular
expression read as a division changes the tokens.

Usage: page_tight_test.py SOURCE_ROOT

Prints TAP. Needs node and acorn (./node_modules, as .ci/run installs
it); without them the checks are skipped.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cli"))
from taplib import done, ok  # noqa: E402

# the tokens of each file argument, as JSON lines: [type, value] pairs
TOKENS = r"""
const acorn = require(process.argv[1]);
const fs = require('fs');
for (const path of process.argv.slice(2)) {
  const text = fs.readFileSync(path, 'utf8');
  const out = [];
  for (const t of acorn.tokenizer(text, {ecmaVersion: 2022,
                                         allowReturnOutsideFunction: true}))
    out.push([t.type.label, t.value === undefined ? null :
              typeof t.value === 'bigint' ? t.value + 'n' :
              t.value && t.value.pattern !== undefined ?
              '/' + t.value.pattern + '/' + t.value.flags : t.value]);
  console.log(JSON.stringify(out));
}
"""


def main():
    root = sys.argv[1]
    sys.path.insert(0, os.path.join(root, "src", "html", "page"))
    import embed  # noqa: E402
    modules = os.environ.get("MHA_NODE_MODULES",
                             os.path.join(root, "node_modules"))
    acorn = os.path.join(modules, "acorn")
    node = shutil.which("node")
    scripts = sorted(glob.glob(os.path.join(root, "src", "html", "page",
                                            "*.js")))
    ok(len(scripts) > 10, "the page's scripts found (%d)" % len(scripts))
    if node is None or not os.path.isdir(acorn):
        ok(True, "# SKIP no node or no acorn in %s" % modules)
        return done()
    with tempfile.TemporaryDirectory() as tmp:
        pairs = []
        for path in scripts:
            with open(path, encoding="utf-8") as f:
                loose = embed.compact(f.read())
            name = os.path.basename(path)
            for kind, text in (("loose", loose),
                               ("tight", embed.tight(loose))):
                out = os.path.join(tmp, kind + "." + name)
                with open(out, "w", encoding="utf-8") as f:
                    f.write(text)
                pairs.append(out)
        got = subprocess.run([node, "-e", TOKENS, acorn] + pairs,
                             capture_output=True, text=True)
        ok(got.returncode == 0, "acorn reads every script, loose and tight",
           got.stderr[-2000:])
        lines = got.stdout.splitlines()
        for k, path in enumerate(scripts):
            if 2 * k + 1 >= len(lines):
                break
            loose, tight = (json.loads(lines[2 * k]),
                            json.loads(lines[2 * k + 1]))
            first = next((i for i, (a, b) in enumerate(zip(loose, tight))
                          if a != b), None)
            sizes = (os.path.getsize(pairs[2 * k]),
                     os.path.getsize(pairs[2 * k + 1]))
            ok(loose == tight and len(loose) > 0,
               "%s: the same %d tokens tight (%d bytes, %d loose)"
               % (os.path.basename(path), len(loose), sizes[1], sizes[0]),
               "token %s: %s against %s" % (
                   first, loose[first] if first is not None else None,
                   tight[first] if first is not None else None)
               if first is not None else "%d against %d tokens"
               % (len(loose), len(tight)))
    return done()


if __name__ == "__main__":
    sys.exit(main())
