#!/usr/bin/env python3
"""html_test.py MHA_EXPLAIN: the --html page without a browser.

The JSON the page embeds must hold exactly the CSV's values (weights,
scores, queries and keys of every head of every variant) and the tokens;
the page must be self-contained (nothing fetched: a Content-Security-Policy
of default-src 'none', no src, href, url() or @import); two runs must give
the same bytes; the file must appear whole or not at all.
"""
import csv
import io
import json
import os
import re
import sys
import tempfile

from taplib import Program, done, ok

DATA = re.compile(
    r'<script type="application/json" id="mha-data">\n(.*?)\n</script>',
    re.S)

TABLES = {"weights": "attn_weights", "scores": "attn_scores",
          "queries": "queries", "keys": "keys"}


def page_data(text):
    m = DATA.search(text)
    return json.loads(m.group(1)) if m else None


def csv_values(mha, args):
    r = mha.run(args + ["--format", "csv"])
    out = {}
    for row in csv.DictReader(io.StringIO(r.stdout.decode("utf-8"))):
        out[(row["variant"], row["head"], row["table"], int(row["row"]),
             int(row["col"]))] = row["value"]
    return out


def compare(mha, tmp, name, args):
    """The page's data against --format csv for the same arguments."""
    path = os.path.join(tmp, name + ".html")
    r = mha.run(args + ["--html", path])
    ok(r.returncode == 0 and os.path.exists(path),
       "%s: --html writes the page" % name, r.stderr)
    if r.returncode != 0:
        return
    with open(path, encoding="utf-8") as f:
        text = f.read()
    data = page_data(text)
    ok(data is not None, "%s: the page embeds its data as JSON" % name)
    if data is None:
        return
    values = csv_values(mha, args)
    inputs = mha.run(args + ["--format", "csv", "--tables", "inputs"])
    rows = csv.DictReader(io.StringIO(inputs.stdout.decode("utf-8")))
    tokens = []
    for row in rows:
        if row["col"] == "0":
            tokens.append(row["row_label"])
    ok(data["queries"] == tokens, "%s: the query tokens are the inputs' "
       "rows" % name, (data["queries"], tokens))

    expected_variants = []
    for k in values:
        if k[2] == "attn_weights" and k[0] not in expected_variants:
            expected_variants.append(k[0])
    ok([v["name"] for v in data["variants"]] == expected_variants,
       "%s: every variant with attention, in order (%s)" %
       (name, ",".join(expected_variants)),
       [v["name"] for v in data["variants"]])
    checked = 0
    wrong = []
    for v in data["variants"]:
        heads = {k[1] for k in values
                 if k[0] == v["name"] and k[2] == "attn_weights"}
        if len(v["heads"]) != len(heads):
            wrong.append((v["name"], "heads", len(v["heads"]), len(heads)))
        for head in v["heads"]:
            for key, table in TABLES.items():
                for i, row in enumerate(head[key]):
                    for j, value in enumerate(row):
                        checked += 1
                        want = values.get((v["name"], str(head["head"]),
                                           table, i, j))
                        if value != want:
                            wrong.append((v["name"], head["head"], table, i,
                                          j, value, want))
    expected = sum(1 for k in values if k[2] in TABLES.values()
                   and k[0] in expected_variants)
    ok(checked == expected and not wrong,
       "%s: all %d values equal the CSV's text" % (name, expected),
       wrong[:5] or "checked %d of %d" % (checked, expected))
    return text, data


def main():
    mha = Program(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        got = compare(mha, tmp, "classroom",
                      ["the cat sat on the mat", "--heads", "2"])
        text, data = got
        ok(data["masked"] is True and data["scaled"] is True and
           data["cross"] is False,
           "classroom: the page knows the mask, the scaling, no --kv")

        # self-contained: nothing to fetch, and the browser told so
        ok("default-src 'none'" in text,
           "the page forbids every request (Content-Security-Policy)")
        found = [p for p in (r"\ssrc\s*=", r"\shref\s*=", r"url\(",
                             r"@import", r"<link", r"<iframe", r"https?://(?!"
                             r"www\.w3\.org/2000/svg)")
                 if re.search(p, text)]
        ok(not found, "the page refers to nothing outside itself", found)
        ok(len(text.encode("utf-8")) < 60000,
           "the classroom page is small (%d bytes)" %
           len(text.encode("utf-8")))

        compare(mha, tmp, "cross", ["the cat", "--kv", "a dog runs fast"])
        compare(mha, tmp, "nocausal-3-heads",
                ["O gato sobe no tapete", "--heads", "3", "--d-out", "6",
                 "--no-causal", "--no-scale", "--qkv-bias"])
        compare(mha, tmp, "block",
                ["the cat sat", "--variant", "block,fused", "--d-model", "4"])

        # words that look like markup stay text
        tricky = ["</script><b>x</b>", "a&amp;b", '"q"', "\\n"]
        got = compare(mha, tmp, "markup", tricky)
        if got:
            text, data = got
            ok(data["queries"] == tricky and "</script><b>" not in text,
               "markup in the sentence stays text in the data",
               data["queries"])

        # --decimal-comma changes CSV, not the page
        a = os.path.join(tmp, "a.html")
        b = os.path.join(tmp, "b.html")
        mha.run(["the cat sat", "--html", a])
        mha.run(["the cat sat", "--html", b, "--decimal-comma",
                 "--format", "csv"])
        with open(a, "rb") as fa, open(b, "rb") as fb:
            same = fa.read() == fb.read()
        ok(same, "the same run gives the same bytes (whatever the CSV "
           "options)")
        mha.run(["the cat sat", "--html", a, "--heads", "1"])
        with open(a, "rb") as fa, open(b, "rb") as fb:
            ok(fa.read() != fb.read(), "another run gives another page")

        # stdout keeps the chosen format
        r = mha.run(["the cat sat", "--html", a, "--format", "csv"])
        plain = mha.run(["the cat sat", "--format", "csv"])
        ok(r.stdout == plain.stdout, "--html leaves standard output as "
           "it was")

        # written whole or not at all
        missing = os.path.join(tmp, "no", "such", "dir", "p.html")
        r = mha.run(["the cat", "--html", missing])
        ok(r.returncode == 1 and b"cannot write" in r.stderr,
           "a page that cannot be written: status 1 and why", r.stderr)
        isdir = os.path.join(tmp, "adir")
        os.mkdir(isdir)
        before = sorted(os.listdir(tmp))
        r = mha.run(["the cat", "--html", isdir])
        ok(r.returncode == 1 and sorted(os.listdir(tmp)) == before,
           "a directory in the way: status 1, no temporary file left",
           (r.returncode, r.stderr, sorted(os.listdir(tmp))))
        c = os.path.join(tmp, "c.html")
        r = mha.run(["the cat", "--heads", "3", "--html", c])
        ok(r.returncode == 2 and not os.path.exists(c),
           "bad input: status 2 and no page", r.stderr)
        with open(a, "rb") as fa:
            old = fa.read()
        r = mha.run(["the cat", "--heads", "3", "--html", a])
        with open(a, "rb") as fa:
            ok(r.returncode == 2 and fa.read() == old,
               "bad input leaves an earlier page as it was")
        mha.check_error(["--input", "x.csv", "--column", "s", "--html", a],
                        "--html: one page shows one run")
        mha.check_error(["the cat", "--html", ""], "--html: the name is empty")
        mha.check_error(["the cat", "--html"], "needs a value")
    return done()


if __name__ == "__main__":
    sys.exit(main())
