#!/usr/bin/env python3
"""plot_generate_test: the pictures and grids of generation and of the
logit lens (TAP).

--generate N --kv-steps makes attn_weights_generated (each head's rows:
the prompt's attn_weights, then each step's new token over the cache;
the keys a row cannot see 0 in CSV, as attn_weights prints a masked key)
and generated_p (each chosen token's probability): their values must be
the --kv-steps tables' and the table generated's, in GPT-2 and in a
Llama-style checkpoint whose query heads share key/value heads. --plot
draws them: a PNG of the size asked, not blank, an SVG whose texts name
each kept head's panel, the generated tokens between the new text's
marks and the strip's caption, the strip's colour bar as tall as its
one row. The same of a trained lesson model,
which runs the whole sequence again at each step (a stack of two
blocks). --logit-lens's grid (logit_lens_grid):
each cell the first row of the layer's logit_lens for that position, in
CSV and in the text grid (the token beside its probability), and drawn
with its tokens written in the cells, each cell as wide as its tokens
need (tokens of 8 characters whole; one of 38 ends in an ellipsis).

Usage: plot_generate_test.py MHA_EXPLAIN REFERENCE_DIR
A build without plotting skips the pictures."""
import csv
import html
import io
import json
import math
import os
import re
import struct
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import Program, done, ok  # noqa: E402

mha = Program(sys.argv[1])
REF = sys.argv[2]
GPT2 = os.path.join(REF, "gpt2", "two_layers")
WIDE = os.path.join(REF, "gpt2", "wide")  # 96 positions, 2 x 6 heads
LLAMA = os.path.join(REF, "llama", "llama_tied_f32")
PROMPT20 = "the cat sat on the mat, the dog ran off"  # 20 tokens of wide's
# a trained lesson model of two heads; LESSON: a stack of two blocks
TRAINED = ["--train", "60", "--optimizer", "adam", "--lr", "0.02",
           "--d-model", "8", "--d-out", "8", "--heads", "2", "--seed", "123",
           "--positions", "--corpus",
           os.path.join(REF, "lesson_generate", "greedy.corpus.csv"),
           "--column", "text"]
LESSON = TRAINED + ["--variant", "block", "--layers", "2"]


def rows_of(args):
    r = mha.run(args + ["--format", "csv"])
    return r, list(csv.DictReader(io.StringIO(r.stdout.decode())))


def tables(rows):
    """(table, layer, head, step) -> {(row, col): value text}."""
    out = {}
    for x in rows:
        key = (x["table"], x.get("layer", ""), x.get("head", ""),
               x.get("step", ""))
        out.setdefault(key, {})[(int(x["row"]), int(x["col"]))] = x["value"]
    return out


def shape(cells):
    return (max(r for r, _ in cells) + 1, max(c for _, c in cells) + 1)


def check_generated(model, name, n):
    """attn_weights_generated against the prompt's and the steps' weights,
    generated_p against generated; model: a checkpoint's folder, or the
    arguments of a trained lesson model."""
    model = ["--model", model] if isinstance(model, str) else model
    r, rows = rows_of(model + ["--generate", str(n), "--kv-steps",
                       "--tables", "attn_weights,attn_weights_generated,"
                       "generated,generated_p", "the cat sat on the mat"])
    t = tables(rows)
    heads = [k for k in t if k[0] == "attn_weights_generated"]
    wrong, checked = [], 0
    for k in heads:
        _, layer, head, _ = k
        grown = t[k]
        prompt = t.get(("attn_weights", layer, head, ""), {})
        T = shape(prompt)[0] if prompt else 0
        R = shape(grown)[0]
        if T == 0 or shape(grown) != (R, R) or R != T + n - 1:
            wrong.append((k, "shape"))
            continue
        for i in range(R):
            if i < T:
                want = [prompt[(i, j)] for j in range(i + 1)]
            else:
                step = t.get(("attn_weights", layer, head, str(i - T + 1)))
                want = [step[(0, j)] for j in range(i + 1)] if step else None
            got = [grown[(i, j)] for j in range(R)]
            if (want is None or got[:i + 1] != want or
                    any(v != "0" for v in got[i + 1:])):
                wrong.append((k, i))
            checked += 1
    gen = t.get(("generated", "", "", ""), {})
    probs = t.get(("generated_p", "", "", ""), {})
    names = {}
    for x in rows:
        if x["table"] == "generated" and x["row"] == "0":
            names[x["col_label"]] = int(x["col"])
    p_col = names.get("probability")
    strip = [probs.get((0, i)) for i in range(n)]
    want_p = [gen.get((i, p_col)) for i in range(n)]
    ok(r.returncode == 0 and len(heads) > 0 and checked > 0 and not wrong,
       "%s: attn_weights_generated's rows are the prompt's attn_weights, "
       "then each step's (%d heads, %d rows; the later keys masked, 0 "
       "as attn_weights prints a masked key)"
       % (name, len(heads), checked), wrong[:3])
    ok(p_col is not None and None not in strip and strip == want_p,
       "%s: generated_p is generated's probability column" % name,
       (strip, want_p))


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">II", head[16:24]) if head[:8] == \
        b"\x89PNG\r\n\x1a\n" else None


def png_colours(path):
    """How many different bytes the PNG's pixels hold (1: blank)."""
    with open(path, "rb") as f:
        data = f.read()
    at, idat = 8, b""
    while at < len(data):
        (n,) = struct.unpack(">I", data[at:at + 4])
        kind = data[at + 4:at + 8]
        if kind == b"IDAT":
            idat += data[at + 8:at + 8 + n]
        at += 12 + n
    return len(set(zlib.decompress(idat)))


def svg_texts(args, path):
    r = mha.run(args + ["--plot", path])
    if r.returncode != 0:
        print("# " + r.stderr.decode("utf-8", "replace"))
        return []
    with open(path, encoding="utf-8") as f:
        return [html.unescape(x) for x in
                re.findall(r"<text [^>]*>([^<]*)</text>", f.read())]


def check_pictures(d):
    png = os.path.join(d, "gen.png")
    args = ["--model", WIDE, "--generate", "10", "--kv-steps", PROMPT20]
    r = mha.run(args + ["--plot", png, "--plot-size", "900x700"])
    size = png_size(png) if os.path.exists(png) else None
    ok(r.returncode == 0 and size == (900, 700) and png_colours(png) > 8,
       "--generate 10 --kv-steps --plot: a PNG of the size asked, not "
       "blank", (size, r.stderr[-200:]))
    r = mha.run(args + ["--plot", png])
    size = png_size(png)
    ok(r.returncode == 0 and size is not None and size[0] > 400 and
       size[1] > 400, "--plot of its own size", size)
    t = svg_texts(args + ["--layers", "1", "--show-heads", "0"],
                  os.path.join(d, "gen.svg"))
    titles = [x for x in t if "attn_weights_generated" in x]
    marked = {x[3:-1] for x in t if x.startswith("Q:\u27e6")}
    _, rows = rows_of(args + ["--tables", "generated"])
    chosen = {x["row_label"] for x in rows}
    ok(titles == ["[h.1] head 0: attn_weights_generated"] and marked and
       marked <= chosen and
       "probability of the chosen token" in "".join(t),
       "--layers 1 --show-heads 0: one head's panel, its rows of generated "
       "tokens marked, the probabilities' strip", (titles, marked, chosen))
    # the strip's colour bar (its ends' ticks, the last pair drawn) as
    # tall as the strip's one row, which its row label centres on
    with open(os.path.join(d, "gen.svg"), encoding="utf-8") as f:
        svg = f.read()
    ends = [float(y) for y, v in re.findall(
        r'<text [^>]*y="([\d.]+)"[^>]*>([01]\.00)</text>', svg)]
    row = re.findall(r'<text [^>]*y="([\d.]+)"[^>]*>probability</text>', svg)
    span = ends[-2] - ends[-1] if len(ends) >= 4 else None
    ok(span is not None and row and 10 < span < 60 and
       ends[-1] < float(row[0]) < ends[-2],
       "the strip's colour bar is as tall as its one row", (span, row))
    t = svg_texts(["--model", LLAMA, "--generate", "4", "--kv-steps",
                   "the cat sat on the mat"], os.path.join(d, "llama.svg"))
    titles = [x for x in t if "attn_weights_generated" in x]
    ok(len(titles) == 2 * 4 and
       "probability of the chosen token" in "".join(t),
       "llama: a panel per layer and head", titles)
    png = os.path.join(d, "lesson.png")
    r = mha.run(LESSON + ["--generate", "6", "--kv-steps", "--plot", png,
                          "the cat"])
    ok(r.returncode == 0 and png_size(png) is not None and
       png_colours(png) > 8, "a lesson model's generation: a PNG, not blank",
       r.stderr[-200:])
    t = svg_texts(LESSON + ["--generate", "6", "--kv-steps", "the cat"],
                  os.path.join(d, "lesson.svg"))
    titles = [x for x in t if "attn_weights_generated" in x]
    marked = [x for x in t if x.startswith("Q:\u27e6")]
    ok(titles == ["[block.%d] head %d: attn_weights_generated" % (l, h)
                  for l in range(2) for h in range(2)] and
       len(marked) == 4 * 5 and
       "probability of the chosen token" in "".join(t),
       "a lesson model: a panel per block and head, the 5 tokens fed after "
       "the prompt marked in each, the probabilities' strip", (titles, marked))
    t = svg_texts(["--model", GPT2, "--logit-lens", "the cat sat on the mat"],
                  os.path.join(d, "lens.svg"))
    _, rows = rows_of(["--model", GPT2, "--logit-lens", "--tables",
                       "logit_lens", "the cat sat on the mat"])
    tops = {x["row_label"].split(" \u2192 ", 1)[1] for x in rows
            if int(x["row"]) % 5 == 0}
    # the bar no taller than the grid's panel: its caption on two lines,
    # and no empty band under the grid (the page ends a margin below the
    # columns' title)
    with open(os.path.join(d, "lens.svg"), encoding="utf-8") as f:
        svg = f.read()
    height = float(re.search(r'<svg [^>]*height="([0-9.]+)pt"', svg).group(1))
    title_y = float(re.search(r'<text [^>]*y="([0-9.]+)"[^>]*>position \(',
                              svg).group(1))
    ok(0 < height - title_y <= 40,
       "--logit-lens --plot of two layers: no empty band under the grid",
       (height, title_y))
    ok("probability of the likeliest next token" in
       " ".join(x.strip() for x in t) and
       "[gpt2] logit_lens_grid" in t and tops and tops <= set(t),
       "--logit-lens --plot: the grid with every cell's token written",
       (sorted(tops), t[:12]))
    png = os.path.join(d, "lens.png")
    r = mha.run(["--model", WIDE, "--logit-lens", PROMPT20, "--plot", png,
                 "--plot-size", "500x300"])
    ok(r.returncode == 0 and png_size(png) == (500, 300) and
       png_colours(png) > 8, "--logit-lens --plot at a small size",
       r.stderr[-200:])


def check_lens_long_tokens(d):
    """The grid's cells as wide as their tokens need: a copy of two_layers
    whose byte tokens outside the text and the merges are renamed
    "piece<id>" (8 characters, cut short in cells of the old fixed
    width), one of them 38 characters (wider than a cell grows): each
    drawn whole but that one, which ends in an ellipsis."""
    folder = os.path.join(d, "long_tokens")
    os.mkdir(folder)
    for name in ("config.json", "model.safetensors", "merges.txt"):
        os.symlink(os.path.abspath(os.path.join(GPT2, name)),
                   os.path.join(folder, name))
    text = "the cat sat on the mat"
    with open(os.path.join(GPT2, "merges.txt"), encoding="utf-8") as f:
        merged = set(f.read().split("\n", 1)[1].replace(" ", "")
                     .replace("\n", ""))
    kept = merged | set(text.replace(" ", "\u0120")) | {"\u0120"}
    with open(os.path.join(GPT2, "vocab.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    renamed = {}
    for s, i in vocab.items():
        if len(s) == 1 and s not in kept:
            s = "piece%03d" % i + ("x" * 30 if i == 19 else "")
        renamed[s] = i
    with open(os.path.join(folder, "vocab.json"), "w",
              encoding="utf-8") as f:
        json.dump(renamed, f)
    args = ["--model", folder, "--logit-lens", text]
    _, rows = rows_of(args + ["--tables", "logit_lens"])
    cells = [x["row_label"].split(" \u2192 ", 1)[1] for x in rows
             if int(x["row"]) % 5 == 0]
    t = svg_texts(args, os.path.join(d, "long.svg"))
    pieces = [x for x in t if x.startswith("piece")]
    long_one = "piece019" + "x" * 30
    whole = [c for c in cells if c.startswith("piece") and c != long_one]
    ok(whole and all(c in t for c in whole) and long_one not in t and
       any(x.startswith("piece019") and x.endswith("\u2026")
           for x in pieces),
       "--logit-lens --plot: every token of 8 characters whole in its cell, "
       "one of 38 cut with an ellipsis", (cells, pieces))


def check_lens_one_column(d):
    """--tables logit_lens --plot, a strip of one column per layer: every
    row named when the strip may grow tall enough (a line a row), its
    column's title in the user's language; a prompt too long for that
    names one row in N and says so."""
    args = ["--model", GPT2, "--logit-lens", "--tables", "logit_lens",
            "the cat sat on the mat"]
    _, rows = rows_of(args)
    labels = sorted(x["row_label"] for x in rows)
    t = svg_texts(args, os.path.join(d, "strip.svg"))
    drawn = sorted(x for x in t if " \u2192 " in x)
    ok(labels and drawn == labels and
       not any(x.startswith("Labels:") for x in t),
       "--tables logit_lens --plot: every row of each layer's strip named",
       (len(labels), len(drawn)))
    t = svg_texts(args + ["--lang", "zh_CN"], os.path.join(d, "strip_zh.svg"))
    ok("\u6982\u7387" in "".join(t) and "probability" not in t,
       "--tables logit_lens --plot --lang zh_CN: the column's title in "
       "Chinese", t[-6:])
    long_args = ["--model", WIDE, "--logit-lens", "--tables", "logit_lens",
                 PROMPT20 + " " + PROMPT20]
    _, rows = rows_of(long_args)
    t = svg_texts(long_args, os.path.join(d, "strip_long.svg"))
    note = [re.match(r"Labels: one row in ([0-9]+) of logit_lens is named",
                     x) for x in t]
    every = [int(m.group(1)) for m in note if m]
    per_layer = len(rows) // 2
    drawn = [x for x in t if " \u2192 " in x]
    ok(len(every) == 1 and every[0] > 1 and
       len(drawn) == 2 * -(-per_layer // every[0]),
       "--tables logit_lens --plot of %d rows a layer: one row in N named, "
       "the picture says so" % per_layer, (every, len(drawn), per_layer))


def check_lens_grid():
    r, rows = rows_of(["--model", WIDE, "--logit-lens", "--tables",
                       "logit_lens,logit_lens_grid", PROMPT20])
    lens = [x for x in rows if x["table"] == "logit_lens"]
    grid = [x for x in rows if x["table"] == "logit_lens_grid"]
    T = len({x["col"] for x in grid})
    want = {}
    for x in lens:
        row = int(x["row"])
        if row % 5 == 0:
            want[(int(x["layer"]), row // 5)] = x["value"]
    got = {(int(x["row"]), int(x["col"])): x["value"] for x in grid}
    ok(r.returncode == 0 and T > 10 and got == want,
       "logit_lens_grid: each cell is the layer's likeliest next token's "
       "probability (%d cells)" % len(got))
    names = {x["row_label"] for x in grid}
    layers = {int(x["layer"]) for x in lens}
    ok(names == {"h.%d" % n for n in layers},
       "logit_lens_grid: its rows named as the other maps' layers (h.0, "
       "h.1, ...)", sorted(names)[:3])
    text = mha.run(["--model", GPT2, "--logit-lens", "--tables",
                    "logit_lens_grid", "--full", "--width", "0",
                    "the cat sat"]).stdout.decode()
    _, small = rows_of(["--model", GPT2, "--logit-lens", "--tables",
                        "logit_lens", "the cat sat"])
    line0 = next((ln for ln in text.splitlines()
                  if ln.startswith("h.0 ")), "")
    cells = ["%s %.4f" % (x["row_label"].split(" \u2192 ", 1)[1],
                          float(x["value"]))
             for x in small if x["layer"] == "0" and int(x["row"]) % 5 == 0]
    ok(len(cells) == 3 and all(c in line0 for c in cells),
       "the text grid: each cell the token beside its probability",
       (line0, cells))


def main():
    check_generated(GPT2, "gpt2", 5)
    check_generated(LLAMA, "llama", 4)
    check_generated(TRAINED + ["--variant", "fused"], "lesson fused", 4)
    check_generated(LESSON, "lesson block --layers 2", 5)
    check_lens_grid()
    # the page shows the steps (html_generation_test.py checks its numbers)
    with tempfile.TemporaryDirectory() as d:
        page = os.path.join(d, "steps.html")
        r = mha.run(["--model", GPT2, "--generate", "2", "--kv-steps",
                     "--html", page, "the cat"])
        ok(r.returncode == 0 and os.path.getsize(page) > 0,
           "--kv-steps with --html: the page is written",
           r.stderr.decode())
    with tempfile.TemporaryDirectory() as d:
        probe = mha.run(["the cat", "--plot", os.path.join(d, "p.png")])
        if probe.returncode != 0 and b"without" in probe.stderr:
            print("# this build draws no pictures")
        else:
            check_pictures(d)
            check_lens_long_tokens(d)
            check_lens_one_column(d)
    return done()


if __name__ == "__main__":
    sys.exit(main())
