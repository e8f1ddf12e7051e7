#!/usr/bin/env python3
"""CLI tests of the teaching options: --explain, --focus, --tie, --check,
--average, --color, --variant block, --kv.

Usage: teaching_cli_test.py MHA_EXPLAIN

Prints TAP. Python 3 standard library only.
"""
import csv
import io
import math
import os
import re
import struct
import subprocess
import sys
import tempfile

from ptylib import Terminal
from taplib import Program, done, ok

MHA = Program(sys.argv[1])
CLASSROOM = "O gato sobe no tapete"
run = MHA.run
check_error = MHA.check_error



def tables(args):
    """{(variant, head, table): [[values]]} from --format csv."""
    r = run(args + ["--format", "csv"])
    out = {}
    for row in csv.DictReader(io.StringIO(r.stdout.decode())):
        key = (row["variant"], row["head"], row["table"])
        rows = out.setdefault(key, [])
        i = int(row["row"])
        while len(rows) <= i:
            rows.append([])
        rows[i].append(float(row["value"]))
    return out


def tie_and_check():
    r = run([CLASSROOM, "--tie", "--check", "--variant", "wrapper,fused"])
    checks = [l for l in r.stdout.decode().splitlines() if l.startswith("[check]")]
    ok(r.returncode == 0 and len(checks) == 3 and all(l.endswith(": ok") for l in checks)
       and "largest difference 0 " in checks[2],
       "--tie --check: three checks, all ok, no difference", r.stdout[-600:])
    t = tables([CLASSROOM, "--tie"])
    ok(t[("wrapper", "", "concat_context")] == t[("fused", "", "concat_context")],
       "--tie: wrapper and fused concat_context are identical")
    t = tables([CLASSROOM])
    ok(t[("wrapper", "", "concat_context")] != t[("fused", "", "concat_context")],
       "without --tie the two modules differ")
    r = run([CLASSROOM, "--check"])
    ok(b"not compared" in r.stdout and r.returncode == 0,
       "--check without --tie says the modules were not compared")
    r = run([CLASSROOM, "--check", "--format", "csv"])
    rows = list(csv.reader(io.StringIO(r.stdout.decode())))
    ok(r.returncode == 0 and all(len(x) == 8 for x in rows) and
       r.stderr.decode().count("[check]") == 3,
       "--check with CSV: stdout stays CSV, the checks go to stderr")
    r = run([CLASSROOM, "--check", "--no-causal"])
    ok(r.returncode == 0 and b"masked cells: 0 scores" in r.stdout,
       "--check --no-causal: no masked cells")
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "fused.W_query.weight.csv"), "w") as f:
            f.write("token,in0,in1,in2\n" + "".join(
                "out%d,3e38,3e38,3e38\n" % i for i in range(4)))
        r = run([CLASSROOM, "--weights", d, "--check", "--variant", "fused",
                 "--tables", "attn_weights", "--format", "csv"])
        rows = [x for x in csv.DictReader(io.StringIO(r.stdout.decode()))]
        nan_rows = {(x["head"], x["row"]) for x in rows if x["value"] == "nan"}
        whole = all(x["value"] == "nan" for x in rows if (x["head"], x["row"]) in nan_rows)
        err = r.stderr.decode()
        ok(r.returncode == 3 and nan_rows and whole and
           "largest deviation nan" in err and "FAILED" in err,
           "scores that overflow: NaN rows, as torch.softmax, and --check fails (exit 3)",
           err)


def average():
    t = tables(["the cat sat on the mat", "--average", "--heads", "4", "--d-out", "8"])
    ok(("single", "", "attn_weights_avg") not in t, "no average for the single head")
    check_error([CLASSROOM, "--variant", "single", "--average"], "--average",
                "--average with the single head alone is refused")
    good = True
    for variant in ("wrapper", "fused"):
        avg = t[(variant, "", "attn_weights_avg")]
        heads = [t[(variant, str(h), "attn_weights")] for h in range(4)]
        for i in range(6):
            good &= abs(sum(avg[i]) - 1) < 1e-6
            for j in range(6):
                good &= abs(avg[i][j] - sum(h[i][j] for h in heads) / 4) < 1e-6
    ok(good, "--average: the mean of the heads' weights, rows sum to 1")


def explain():
    r = run([CLASSROOM, "--explain", "--variant", "fused"])
    text = r.stdout.decode()
    ok("view (5, 2, 2) -> transpose (2, 5, 2)" in text and
       "Parameters: 52 weights + 4 biases = 56." in text,
       "--explain: shapes through view and transpose, parameter count")
    ok(all(len(l) <= 78 for l in text.splitlines() if l.startswith("#")),
       "--explain: notes wrap at 78 columns")
    r = run(["a b", "--explain", "--variant", "fused", "--d-model", "512",
             "--d-out", "512", "--heads", "8", "--qkv-bias", "--tables", "out"])
    ok(b"= 1,050,624." in r.stdout, "the 512-wide 8-head module has 1,050,624 parameters")
    r = run([CLASSROOM, "--explain", "--variant", "single", "--tables", "queries"])
    ok(b"36 weights + 0 biases = 36." in r.stdout, "single head: 3 x (4 x 3) weights")
    t = tables(["a b", "--variant", "block", "--d-model", "8", "--d-out", "8"])
    size = sum(len(v) * len(v[0]) for k, v in t.items()
               if k[0] == "block" and (k[2].endswith(".weight") or k[2].endswith(".bias")))
    r = run(["a b", "--variant", "block", "--d-model", "8", "--d-out", "8",
             "--explain", "--tables", "out"])
    m = re.search(r"= ([\d,]+)\.", r.stdout.decode())
    ok(m and int(m.group(1).replace(",", "")) == size,
       "block: the count equals the size of its parameter tables (%d)" % size)
    check_error([CLASSROOM, "--explain", "--format", "csv"], "--explain",
                "--explain with CSV is a usage error")
    for extra in (["--no-causal"], ["--kv", "the cat sat"]):
        r = run([CLASSROOM, "--explain"] + extra)
        notes = " ".join(l[2:] for l in r.stdout.decode().splitlines() if l.startswith("# "))
        ok(r.returncode == 0 and "No mask" in notes and "masked" not in notes,
           "--explain %s: no mask, and no masked cells mentioned" % extra[0])
    r = run(["a b c d e f g h i j k l", "--explain", "--d-model", "512", "--d-out", "768",
             "--heads", "12", "--variant", "wrapper,fused"])
    lines = [l for l in r.stdout.decode().splitlines() if l.startswith("#")]
    ok(lines and not any(l.endswith("@") or l.startswith("# @") for l in lines) and
       all(len(l) <= 78 for l in lines) and
       "# (12, 768) -> view (12, 12, 64) -> transpose (12, 12, 64)" in lines,
       "--explain: a product 'a @ b' and a view chain stay on one line", lines)


def random_weights():
    """--explain says what seeded weights mean, and it holds: swap two
    words and only the labels change; two sentences whose repeated words
    sit at the same places give the same tables, until --train."""
    r = run([CLASSROOM, "--explain", "--variant", "single", "--tables",
             "vocab"])
    notes = " ".join(l[2:] for l in r.stdout.decode().splitlines()
                     if l.startswith("# "))
    ok(r.returncode == 0 and
       "Drawn weights (torch.manual_seed(42)): word i of the vocabulary gets "
       "row i of the embedding table" in notes and
       "not on the words themselves" in notes and
       "a repeated word shares its row" in notes and
       "Training on many sentences (--train N --corpus FILE) makes them "
       "depend on the words" in notes,
       "--explain: the first step says what drawn weights mean", notes)
    r = run([CLASSROOM, "--explain", "--seed", "7", "--tables", "vocab"])
    ok(b"(torch.manual_seed(7))" in r.stdout, "... with the run's seed")

    def values(sentence):
        out = run([sentence, "--format", "csv", "--variant",
                   "single,wrapper,fused,block", "--d-model", "4", "--tables",
                   "inputs,attn_weights,head_context,out"]).stdout.decode()
        rows = [l.split(",") for l in out.splitlines()[1:]]
        return [(r[0], r[1], r[2], r[3], r[5], r[7]) for r in rows], \
            [r[4] for r in rows]
    a, a_labels = values("O gato sobe no tapete")
    b, b_labels = values("gato O sobe tapete no")
    ok(a and a == b and a_labels != b_labels,
       "swapping two pairs of words changes only the labels")
    c, _ = values("the cat sat on the mat")
    d, _ = values("a dog ran to a park")
    ok(c and c == d, "the same places of repeated words: the same tables")

    def trained(sentence, extra=()):
        out = run([sentence, "--format", "csv", "--train", "5", "--tables",
                   "attn_weights"] + list(extra)).stdout.decode()
        return [l.split(",")[-1] for l in out.splitlines()[1:]]
    c, d = trained("the cat sat on the mat"), trained("a dog ran to a park")
    ok(c and c == d, "--train on the sentence alone: still the same tables "
       "(--explain says so)")
    with tempfile.TemporaryDirectory() as tmp:
        corpus = os.path.join(tmp, "corpus.csv")
        with open(corpus, "w") as f:
            f.write("text\nthe cat sat on the mat\na dog ran to a park\n"
                    "the dog sat on a mat\n")
        extra = ["--corpus", corpus, "--column", "text"]
        c = trained("the cat sat on the mat", extra)
        d = trained("a dog ran to a park", extra)
        ok(c and len(c) == len(d) and c != d,
           "--train --corpus: the words matter, the tables differ")
    with tempfile.TemporaryDirectory() as d:
        emb = os.path.join(d, "emb.csv")
        with open(emb, "w") as f:
            f.write("token,d0,d1,d2\nO,1,0,0\ngato,0,1,0\nsobe,0,0,1\n")
        r = run(["--embeddings", emb, "--explain",
                 "--tables", "inputs"])
        ok(r.returncode == 0 and b"Drawn weights" not in r.stdout,
           "--embeddings: vectors given, no note on random embeddings",
           r.stderr)


def focus():
    r = run([CLASSROOM, "--focus", "gato", "--variant", "fused"])
    text = r.stdout.decode()
    t = tables([CLASSROOM, "--variant", "fused"])
    m = re.search(r"\[fused\] head 0\n(?:.*\n)*?  attends   O ([\d.]+), gato ([\d.]+)", text)
    row = t[("fused", "0", "attn_weights")][1]
    ok(text.startswith("focus: gato (position 1 of 5)") and m and
       m.group(1) == "%.4f" % row[0] and m.group(2) == "%.4f" % row[1],
       "--focus gato: whom it attends to, as in attn_weights", text[:400])
    s = "我 喜欢 吃 牛舌 和 慢煮 牛舌"
    check_error([s, "--focus", "牛舌"], "牛舌@3, 牛舌@6", "a repeated word needs a position")
    r = run([s, "--focus", "牛舌@6"])
    ok(r.returncode == 0 and "focus: 牛舌 (position 6 of 7)" in r.stdout.decode(),
       "WORD@POSITION picks the occurrence")
    check_error([CLASSROOM, "--focus", "cachorro"], "not a token", "an unknown word")
    check_error([CLASSROOM, "--focus", "gato@3"], "gato@3" if False else "position 3",
                "a position holding another word")
    check_error([CLASSROOM, "--focus", "gato@99"], "past the end", "a position past the end")
    long = " ".join("w%d" % i for i in range(30))
    r = run([long, "--focus", "w29", "--variant", "single"])
    ok(b"(and 22 more)" in r.stdout, "a long attends list is capped at 8")
    r = run([CLASSROOM, "--focus", "gato", "--kv", "the cat sat", "--variant", "fused"])
    text = r.stdout.decode()
    t = tables([CLASSROOM, "--kv", "the cat sat", "--variant", "fused"])
    row = t[("fused", "0", "attn_weights")][1]
    want = ", ".join("%s %.4f" % (w, v) for w, v in zip(["the", "cat", "sat"], row)
                     if round(v, 4) > 0)
    ok(r.returncode == 0 and "keys and values belong to the --kv sentence" in text
       and "  K " not in text and "seen by" not in text and want in text,
       "--focus with --kv: the query side, attending to the other sentence", text[:500])
    r = run([CLASSROOM, "--focus", "sobe", "--tables", "attn_weights"])
    ok(r.returncode == 0 and r.stdout.decode().startswith("focus: sobe (position 2 of 5)"),
       "--focus with --tables that leave out the inputs still names the token")
    r = run(["o gato e o rato", "--focus", "rato", "--variant", "single"])
    ok(r.returncode == 0 and re.search(r"attends .*o@0 [\d.]+, .*o@3 [\d.]+", r.stdout.decode()),
       "a word the sentence has twice is shown with its position", r.stdout[:500])


def color():
    r = run([CLASSROOM, "--color", "always"])
    blocks = r.stdout.decode().split("\n\n")
    shaded = [b for b in blocks if "\x1b[48;5;" in b]
    ok(shaded and all(re.search(r"attn_(weights|scores)", b.splitlines()[0]) for b in shaded)
       and len(shaded) == 10,
       "--color always shades the 5 weight and 5 score tables only")
    never = run([CLASSROOM, "--color", "never"]).stdout
    auto = run([CLASSROOM]).stdout
    ok(b"\x1b" not in never and b"\x1b" not in auto,
       "never, and auto into a pipe, write no escape byte")
    plain = re.sub(r"\x1b\[[0-9;]*m", "", r.stdout.decode())
    # the legend lines under shaded tables carry no table values
    plain = "\n".join(l for l in plain.split("\n") if not l.startswith("scale: "))
    ok(re.findall(r"-?\d+\.\d+|-inf", plain) == re.findall(r"-?\d+\.\d+|-inf", never.decode()),
       "the shaded output holds the same numbers")
    ok(b"\x1b[48;5;" in run([CLASSROOM, "--color", "always"], env={"NO_COLOR": "1"}).stdout,
       "--color always wins over NO_COLOR")

    def under_terminal(env):
        full = dict(os.environ)
        full.pop("NO_COLOR", None)
        full.update(env)
        term = Terminal(MHA.command([CLASSROOM, "--tables", "attn_weights",
                                     "--no-pager"]), full,
                        stdin=None, stderr=subprocess.DEVNULL)
        _, data = term.finish(600)
        term.close()
        return data
    ok(b"\x1b[48;5;" in under_terminal({"TERM": "xterm"}), "auto shades a terminal")
    ok(b"\x1b" not in under_terminal({"TERM": "xterm", "NO_COLOR": "1"}),
       "auto with NO_COLOR does not")
    ok(b"\x1b" not in under_terminal({"TERM": "dumb"}), "auto on a dumb terminal does not")
    check_error([CLASSROOM, "--color", "sometimes"], "--color", "an unknown --color")


def block():
    check_error([CLASSROOM, "--variant", "block"], "do not divide --d-model 3",
                "the block's heads divide d_model (its attention is d_model wide)")
    # the residual adds the attention's output to its input: the block's
    # attention is d_model wide, whatever --d-out says
    alone = tables([CLASSROOM, "--variant", "block", "--d-model", "4"])
    with_others = tables([CLASSROOM, "--variant", "wrapper,block", "--d-model", "4",
                          "--d-out", "6", "--heads", "2"])
    block_of = lambda t: {k: v for k, v in t.items() if k[0] == "block"}
    ok(block_of(alone) and block_of(alone) == block_of(with_others) and
       len(with_others[("wrapper", "", "concat_context")][0]) == 6 and
       len(alone[("block", "", "concat_context")][0]) == 4,
       "--d-out sets the wrapper's width, not the block's")
    check_error([CLASSROOM, "--variant", "block", "--d-out", "3", "--ff", "0"], "--ff",
                "--ff 0 is refused")
    t = tables([CLASSROOM, "--variant", "block", "--d-out", "3", "--heads", "3", "--ff", "7"])
    ok(t[("block", "", "ff.0.weight")] and len(t[("block", "", "ff.0.weight")]) == 7 and
       len(t[("block", "", "ff.2.weight")][0]) == 7, "--ff sets the feed-forward width")
    ok(t[("block", "", "norm1.weight")] == [[1.0, 1.0, 1.0]] and
       t[("block", "", "norm2.bias")] == [[0.0, 0.0, 0.0]],
       "LayerNorm starts at ones and zeros")
    ok(all(v >= 0 for row in t[("block", "", "ffn_hidden")] for v in row),
       "ffn_hidden has no negative value (ReLU)")
    good = True
    for name in ("add_norm1", "out"):
        for row in t[("block", "", name)]:
            mean = sum(row) / len(row)
            var = sum((v - mean) ** 2 for v in row) / len(row)
            good &= abs(mean) < 1e-5 and abs(var - 1) < 1e-3
    ok(good, "add_norm1 and out rows have mean 0 and variance 1")
    ok(("block", "", "attn_out") in t and ("block", "2", "attn_weights") in t,
       "the block records attn_out and its heads")


def stacked_blocks():
    """--layers N with --variant block: N blocks, each reading the one
    before; named, laid out and read back as a stack."""
    base = [CLASSROOM, "--variant", "block", "--d-model", "4", "--ff", "6"]
    check_error([CLASSROOM, "--layers", "2"], "--variant block",
                "--layers without --model goes with --variant block")
    check_error(base + ["--layers", "0"], "out of range",
                "--layers 0 is refused")
    check_error(base + ["--layers", "0,1"], "not a whole number",
                "--layers is a count for the lesson's blocks")
    for extra, name in ((["--kv", "the cat"], "--kv"), (["--average"], "--average")):
        check_error(base + ["--layers", "2"] + extra, name,
                    "%s does not go with a stack of blocks" % name)
    r = run(base + ["--layers", "3", "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(r.stdout.decode())))
    layers = {(x["variant"], x["layer"]) for x in rows}
    ok(r.returncode == 0 and layers == {("input", ""), ("block", "0"),
                                        ("block", "1"), ("block", "2"),
                                        ("block", "")},
       "the CSV's layer column names each block, empty outside them "
       "(the input, the stack's attn_entropy)", layers)
    params = [x["table"] for x in rows if x["table"].endswith("norm2.bias")]
    ok(sorted(set(params)) == ["0.norm2.bias", "1.norm2.bias", "2.norm2.bias"],
       "parameters named as nn.Sequential's state_dict", sorted(set(params)))

    def table(layer, name):
        t = [x for x in rows if x["layer"] == layer and x["table"] == name]
        return [float(x["value"]) for x in t]
    # block i + 1 reads block i's out: its first product is out @ W_query^T
    out0, wq1 = table("0", "out"), table("1", "1.attention.W_query.weight")
    q1 = [x for x in rows if x["layer"] == "1" and x["head"] == "0" and
          x["table"] == "queries" and x["row"] == "1"]
    expect = [sum(out0[4 + k] * wq1[4 * c + k] for k in range(4)) for c in range(2)]
    ok(len(q1) == 2 and all(abs(float(x["value"]) - e) < 1e-5
                            for x, e in zip(q1, expect)),
       "block 1's queries are made from block 0's out", (q1, expect))
    one = tables(base)
    ok(one[("block", "", "out")] != [], "without --layers one block, no layer column")
    r = run(base + ["--layers", "2"])
    heads = re.findall(r"^\[(block\.\d)\] head 0: attn_weights", r.stdout.decode(), re.M)
    ok(heads == ["block.0", "block.1"], "text headings name the block", heads)
    r = run(base + ["--layers", "3", "--explain"])
    notes = r.stdout.decode().replace("\n# ", " ")
    ok("Stacked 3 times as nn.Sequential" in notes and
       "Block 1 of the stack reads block 0's out" in notes and
       "Block 2 of the stack reads block 1's out" in notes,
       "--explain: the stack, and each block's input", notes[:400])
    r = run(base + ["--layers", "2", "--focus", "gato"])
    places = re.findall(r"^\[([a-z.0-9]+)\] ", r.stdout.decode(), re.M)
    ok(places == ["block.0"] * 3 + ["block.1"] * 3,
       "--focus shows each block's heads and out", places)
    with tempfile.TemporaryDirectory() as d:
        r = run(base + ["--layers", "2", "--csv-dir", d])
        names = sorted(os.listdir(d))
        ok(r.returncode == 0 and "block.1.head0.attn_weights.csv" in names and
           "block.1.norm1.weight.csv" in names and "block.0.out.csv" in names,
           "--csv-dir names each block's tables and parameters", names[:8])
        plain = run(base + ["--layers", "2"]).stdout
        again = run(base + ["--layers", "2", "--seed", "42", "--weights", d])
        ok(again.returncode == 0 and again.stdout == plain,
           "--weights reads a stack's parameter files back")
        check_error(base + ["--layers", "1", "--weights", d], "no layer '1.",
                    "a file for a block the stack lacks is refused")
        svg = os.path.join(d, "view.svg")
        # base's --variant block, as fused,block (a list is given once)
        both = [x if x != "block" else "fused,block" for x in base]
        r = run(both + ["--layers", "3", "--d-out", "4", "--plot", svg])
        if r.returncode == 2 and b"plot" in r.stderr and not os.path.exists(svg):
            ok(True, "--plot: # SKIP pictures are not built")
        else:
            texts = re.findall(r"<text[^>]*>([^<]*)</text>", open(svg).read())
            rows = [x for x in texts if x in ("fused", "block.0", "block.1",
                                              "block.2")]
            ok(r.returncode == 0 and rows == ["fused", "block.0", "block.1",
                                               "block.2"] and
               texts.count("head 1") == 1,
               "--plot: the model view, a row per module and block", texts)


def float32(x):
    """x rounded to the nearest float32, as the program rounds a double."""
    return struct.unpack("f", struct.pack("f", x))[0]


def stacked_entropy():
    """A stack's attn_entropy (--layers N): each block's and head's mean
    over the queries of -sum p ln p over the row's p > 0, from the run's
    own attn_weights, causal and not."""
    base = [CLASSROOM, "--variant", "block", "--d-model", "8", "--heads", "4",
            "--layers", "3", "--format", "csv"]
    for extra, what in (([], "causal"), (["--no-causal"], "--no-causal")):
        r = run(base + extra)
        rows = list(csv.DictReader(io.StringIO(r.stdout.decode())))
        weights = {}
        for x in rows:
            if x["table"] == "attn_weights":
                key = (int(x["layer"]), int(x["head"]))
                m = weights.setdefault(key, [])
                while len(m) <= int(x["row"]):
                    m.append([])
                m[int(x["row"])].append(float32(float(x["value"])))
        expect = {}
        for (layer, head), m in weights.items():
            # in order, in double, each row's -sum p ln p over p > 0
            total = 0.0
            for row in m:
                h = 0.0
                for p in row:
                    if p > 0:
                        h -= p * math.log(p)
                total += h
            expect[(layer, head)] = float32(total / len(m))
        got = {(int(x["row"]), int(x["col"])): float32(float(x["value"]))
               for x in rows if x["table"] == "attn_entropy"}
        places = {(x["variant"], x["layer"], x["head"], x["row_label"])
                  for x in rows if x["table"] == "attn_entropy"}
        zeros = sum(p == 0 for m in weights.values() for row in m for p in row)
        ok(r.returncode == 0 and len(expect) == 12 and got == expect and
           (zeros > 0) == (what == "causal"),
           "%s: attn_entropy (3 x 4) is each head's mean entropy of its "
           "attn_weights rows, to the float32" % what,
           sorted(set(got.items()) ^ set(expect.items()))[:4])
        ok(places == {("block", "", "", "block.%d" % i) for i in range(3)},
           "%s: attn_entropy once, under block outside the layers, a row "
           "per block" % what, places)
    one = run([CLASSROOM, "--variant", "block", "--d-model", "4", "--format",
               "csv"])
    ok(one.returncode == 0 and b"attn_entropy" not in one.stdout,
       "a lone block (no --layers) makes no attn_entropy")
    check_error([CLASSROOM, "--variant", "block", "--d-model", "4", "--tables",
                 "attn_entropy"],
                "attn_entropy", "--tables attn_entropy needs a stack")
    # text: twelve heads of twelve blocks in 80 columns, two decimals
    r = run([CLASSROOM, "--variant", "block", "--d-model", "24", "--heads",
             "12", "--layers", "12", "--tables", "attn_entropy",
             "--width", "80"])
    lines = r.stdout.decode().splitlines()
    cells = [l.split() for l in lines[2:]]
    ok(r.returncode == 0 and lines[0] == "[block] attn_entropy (12 x 12)" and
       lines[1].split() == [str(h) for h in range(12)] and
       [c[0] for c in cells] == ["block.%d" % i for i in range(12)] and
       all(len(c) == 13 and all(re.fullmatch(r"\d\.\d\d", v) for v in c[1:])
           for c in cells) and
       max(len(l) for l in lines) <= 80,
       "text: 12 heads of 12 blocks on one line each, two decimals, within "
       "80 columns", lines[:3])
    with tempfile.TemporaryDirectory() as d:
        r = run([CLASSROOM, "--variant", "block", "--d-model", "4",
                 "--layers", "2", "--tables", "attn_entropy", "--csv-dir", d])
        names = sorted(os.listdir(d))
        text = open(os.path.join(d, "block.attn_entropy.csv")).read() \
            if names == ["block.attn_entropy.csv"] else ""
        ok(r.returncode == 0 and text.startswith("token,0,1\nblock.0,") and
           "\nblock.1," in text,
           "--csv-dir: block.attn_entropy.csv, a row per block", names)


def cross():
    t = tables([CLASSROOM, "--kv", "the cat sat on the mat", "--variant", "fused"])
    r = run([CLASSROOM, "--kv", "the cat sat on the mat", "--format", "csv",
             "--tables", "vocab,attn_scores", "--variant", "fused"])
    rows = list(csv.DictReader(io.StringIO(r.stdout.decode())))
    vocab = [x["row_label"] for x in rows if x["table"] == "vocab"]
    ok(vocab == ["O", "gato", "sobe", "no", "tapete", "the", "cat", "sat", "on", "mat"],
       "--kv: the vocabulary is the sentence's words, then the other's new words")
    scores = t[("fused", "0", "attn_scores")]
    ok(len(scores) == 5 and len(scores[0]) == 6 and
       all(v != float("-inf") for row in scores for v in row),
       "--kv: scores are 5 x 6 with no mask")
    labels = {x["col_label"] for x in rows if x["table"] == "attn_scores"}
    ok("K:mat" in labels and ("input", "", "kv_inputs") in t,
       "--kv: keys labelled with the other sentence; kv_inputs recorded")
    check_error([CLASSROOM, "--kv", ""], "--kv", "an empty --kv sentence")
    check_error([CLASSROOM, "--kv", "a\udcff".encode("utf-8", "surrogateescape").decode(
        "utf-8", "surrogateescape")], "--kv", "invalid UTF-8 in --kv")
    check_error(["--embeddings", "x.csv", "--kv", "a"], "--kv", "--kv with --embeddings")


def wrapper_width():
    """The book's MultiHeadAttentionWrapper takes one head's width as d_out;
    mha-explain's --d-out is the total: --explain says so, and heads of one
    column (the book's call copied as it is) get a note on stderr."""
    r = run([CLASSROOM, "--explain", "--variant", "wrapper", "--tables",
             "concat_context"])
    text = " ".join(l.lstrip("# ") for l in r.stdout.decode().splitlines())
    ok("this run is MultiHeadAttentionWrapper(3, 2, ..., num_heads=2)" in text,
       "--explain: the wrapper's --d-out as the book's call")
    note = b"note: --d-out 2 is the wrapper's total width"
    r = run([CLASSROOM, "--variant", "wrapper", "--d-out", "2", "--heads", "2",
             "--tables", "concat_context"])
    ok(r.returncode == 0 and r.stderr.count(b"\n") == 1 and note in r.stderr
       and b"is --d-out 4" in r.stderr,
       "wrapper with heads of 1 column: one line on stderr suggests --d-out 4")
    r = run([CLASSROOM, "--variant", "fused", "--d-out", "2", "--heads", "2",
             "--tables", "out"])
    ok(r.returncode == 0 and r.stderr == b"",
       "no note without the wrapper (the fused module's d_out is the total)")
    r = run([CLASSROOM, "--variant", "wrapper", "--tables", "concat_context"])
    ok(r.stderr == b"", "no note for heads wider than one column")
    r = run([CLASSROOM, "--variant", "wrapper", "--d-out", "3"])
    ok(r.returncode == 2 and b"do not divide --d-out 3" in r.stderr and
       b"MultiHeadAttentionWrapper(d_in, 3, ..., num_heads=2) is --d-out 6"
       in r.stderr, "heads that do not divide the wrapper's d_out: the error "
       "names the book's call")
    # the book's width only when it is within --d-out's limit (8192)
    r = run(["O gato sobe no tapete", "--heads", "3", "--d-out", "8000"])
    ok(r.returncode == 2 and b"do not divide --d-out 8000" in r.stderr and
       b"--d-out 7998 would do" in r.stderr and b"24000" not in r.stderr,
       "--heads 3 --d-out 8000: suggests 7998, not the book's 24000",
       r.stderr)
    r = run(["O gato sobe no tapete", "--heads", "1000", "--d-out", "999",
             "--variant", "wrapper"])
    ok(r.returncode == 2 and b"--d-out 1000 would do" in r.stderr,
       "--heads 1000 --d-out 999: suggests 1000", r.stderr)
    r = run(["a b", "--heads", "91", "--d-out", "91", "--variant", "wrapper",
             "--tables", "inputs"])
    ok(r.returncode == 0 and r.stderr == b"",
       "no note for 91 heads of 1 column (91 x 91 is past the limit)",
       r.stderr)
    r = run(["a b", "--heads", "90", "--d-out", "90", "--variant", "wrapper",
             "--tables", "inputs"])
    ok(r.returncode == 0 and b"is --d-out 8100" in r.stderr,
       "90 heads of 1 column: the note suggests 8100", r.stderr)


def main():
    tie_and_check()
    wrapper_width()
    average()
    explain()
    random_weights()
    focus()
    color()
    block()
    stacked_blocks()
    stacked_entropy()
    cross()
    return done()


if __name__ == "__main__":
    sys.exit(main())
